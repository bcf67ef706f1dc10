// "Sign in with Google": the button appears only when the service says Google is configured (the
// meta tag src/web.ts writes), and its credential goes to POST /v1/users/google-login/. No network:
// Google's script is replaced by a stub and fetch by a recorder.
import { act, cleanup, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { GoogleSignIn, googleClientId, type GsiId } from '../src/components/GoogleSignIn';
import { I18nProvider, makeI18n } from '../src/i18n';
import { SignIn, SignUp } from '../src/pages/auth';
import { auth } from '../src/auth';

afterEach(() => {
  cleanup();
  document.head.querySelectorAll('meta[name="google-signin-client-id"], script').forEach((m) => m.remove());
  vi.unstubAllGlobals();
  auth.clear();
});

function configure(id: string) {
  const meta = document.createElement('meta');
  meta.name = 'google-signin-client-id';
  meta.content = id;
  document.head.appendChild(meta);
}

function stubGsi() {
  const calls: { init?: Parameters<GsiId['initialize']>[0]; rendered?: Parameters<GsiId['renderButton']>[1] } = {};
  const gsi: GsiId = {
    initialize: (c) => void (calls.init = c),
    renderButton: (el, o) => {
      calls.rendered = o;
      el.textContent = 'Google';
    },
  };
  return { calls, load: () => Promise.resolve(gsi) };
}

describe('Google sign-in', () => {
  it('is off without the configured client ID: no button on sign-in or sign-up, and Google is never loaded', () => {
    const fetchSpy = vi.fn();
    vi.stubGlobal('fetch', fetchSpy);
    expect(googleClientId()).toBe('');
    render(
      <I18nProvider value={makeI18n('en')}>
        <SignIn />
        <SignUp />
      </I18nProvider>,
    );
    expect(screen.queryByTestId('google-button')).toBeNull();
    expect(document.querySelector('script[src*="accounts.google.com"]')).toBeNull();
    expect(fetchSpy).not.toHaveBeenCalled();
  });

  it('renders on sign-in and sign-up when configured', async () => {
    configure('42-web.apps.googleusercontent.com');
    expect(googleClientId()).toBe('42-web.apps.googleusercontent.com');
    // The loader adds Google's <script>; happy-dom refuses to load it (JavaScript file loading is off).
    vi.stubGlobal('fetch', vi.fn(() => new Promise(() => undefined)));
    render(
      <I18nProvider value={makeI18n('fr')}>
        <SignIn />
      </I18nProvider>,
    );
    expect(screen.getByTestId('google-button')).toBeTruthy();
    expect(screen.getByText('ou')).toBeTruthy();
    expect(document.querySelector('script[src="https://accounts.google.com/gsi/client"]')).toBeTruthy();
    cleanup();
    render(
      <I18nProvider value={makeI18n('en')}>
        <SignUp />
      </I18nProvider>,
    );
    expect(screen.getByTestId('google-button')).toBeTruthy();
  });

  it('initialises Google with the client ID and the page language, and sends the ID token to google-login', async () => {
    const { calls, load } = stubGsi();
    const sent: { url: string; body: unknown; brand: string | null }[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (req: Request) => {
        sent.push({ url: req.url, body: await req.clone().json(), brand: req.headers.get('x-brand-slug') });
        return new Response(JSON.stringify({ access: 'a', refresh: 'r', is_doctor: false, is_backoffice_admin: false, is_marketer: false }), { status: 200, headers: { 'content-type': 'application/json' } });
      }),
    );
    const signedIn = vi.fn();
    render(
      <I18nProvider value={makeI18n('de')}>
        <GoogleSignIn mode="signup" clientId="42-web.apps.googleusercontent.com" load={load} onSignedIn={signedIn} />
      </I18nProvider>,
    );
    await waitFor(() => expect(calls.rendered).toBeTruthy());
    expect(calls.init?.client_id).toBe('42-web.apps.googleusercontent.com');
    expect(calls.rendered).toMatchObject({ text: 'signup_with', locale: 'de' });
    await act(async () => calls.init!.callback({ credential: 'header.payload.sig' }));
    expect(sent).toHaveLength(1);
    expect(sent[0].url).toMatch(/\/v1\/users\/google-login\/$/);
    expect(sent[0].body).toEqual({ credential: 'header.payload.sig', locale: 'de' });
    expect(sent[0].brand).toBeTruthy();
    expect(signedIn).toHaveBeenCalledOnce();
    expect(auth.get()?.access).toBe('a');
  });

  it('says so when the service refuses the credential', async () => {
    const { calls, load } = stubGsi();
    vi.stubGlobal('fetch', vi.fn(async () => new Response(JSON.stringify({ detail: 'x', code: 'invalid_google_credential' }), { status: 401, headers: { 'content-type': 'application/json' } })));
    const signedIn = vi.fn();
    render(
      <I18nProvider value={makeI18n('en')}>
        <GoogleSignIn mode="signin" clientId="42" load={load} onSignedIn={signedIn} />
      </I18nProvider>,
    );
    await waitFor(() => expect(calls.init).toBeTruthy());
    await act(async () => calls.init!.callback({ credential: 'bad' }));
    expect(screen.getByRole('alert').textContent).toContain('Google sign-in did not work');
    expect(signedIn).not.toHaveBeenCalled();
    expect(auth.get()).toBeNull();
  });

  it('hands a 403 mfa_required or mfa_enrolment_required to the page as the second step, signing nobody in', async () => {
    for (const [answer, expected] of [
      [{ error: 'x', code: 'mfa_required', mfa_token: 'tkt', methods: ['totp', 'webauthn'] }, { kind: 'mfa', token: 'tkt', methods: ['totp', 'webauthn'] }],
      [{ error: 'x', code: 'mfa_enrolment_required', enrolment_token: 'enr', methods: ['totp', 'webauthn'] }, { kind: 'enrol', token: 'enr', methods: ['totp', 'webauthn'] }],
    ] as const) {
      const { calls, load } = stubGsi();
      vi.stubGlobal('fetch', vi.fn(async () => new Response(JSON.stringify(answer), { status: 403, headers: { 'content-type': 'application/json' } })));
      const signedIn = vi.fn();
      const second = vi.fn();
      render(
        <I18nProvider value={makeI18n('en')}>
          <GoogleSignIn mode="signin" clientId="42" load={load} onSignedIn={signedIn} onSecondStep={second} />
        </I18nProvider>,
      );
      await waitFor(() => expect(calls.init).toBeTruthy());
      await act(async () => calls.init!.callback({ credential: 'header.payload.sig' }));
      expect(second).toHaveBeenCalledWith(expected);
      expect(signedIn).not.toHaveBeenCalled();
      expect(auth.get()).toBeNull();
      expect(screen.queryByRole('alert')).toBeNull();
      cleanup();
    }
  });
});
