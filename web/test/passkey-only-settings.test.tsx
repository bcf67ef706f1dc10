// Issue 43: a passkey-only account was told "signing in asks for a code from your authenticator app"
// and could not get new recovery codes from the account page. It is told about its passkey, and "New
// recovery codes" asks the API without a code (after a re-authentication when the API wants one).
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { auth } from '../src/auth';
import { I18nProvider, makeI18n } from '../src/i18n';
import { TwoStepSettings } from '../src/components/SecondFactor';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  auth.clear();
});

function network(...list: [number, unknown][]) {
  const sent: { method: string; path: string; body: string }[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (request: Request) => {
      sent.push({ method: request.method, path: new URL(request.url).pathname, body: await request.clone().text() });
      const [status, body] = list.shift() ?? [500, {}];
      return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
    }),
  );
  return sent;
}

const codes = Array.from({ length: 10 }, (_, i) => `abcde-0000${i}`);

describe('two-step settings of a passkey-only account', () => {
  it('names the passkey, not an authenticator app, and replaces the recovery codes without a code', async () => {
    auth.set({ access: 'tok', refresh: 'r', is_doctor: false, is_backoffice_admin: false, is_marketer: false });
    const sent = network([200, { methods: ['webauthn'], required: false, recovery_codes_left: 3 }], [200, { recovery_codes: codes }]);
    render(
      <I18nProvider value={makeI18n('en')}>
        <TwoStepSettings />
      </I18nProvider>,
    );
    expect(await screen.findByText('On: signing in asks for your passkey. Recovery codes left: 3.')).toBeTruthy();
    expect(screen.queryByText(/code from your authenticator app/)).toBeNull();
    // No "turn off" form asking for an authenticator code.
    expect(screen.queryByText('Turn off two-step sign-in')).toBeNull();
    fireEvent.click(screen.getByText('New recovery codes'));
    await waitFor(() => expect(screen.getByText(codes[0]!)).toBeTruthy());
    expect(sent[1]).toMatchObject({ method: 'POST', path: '/v1/users/mfa/recovery-codes/' });
    expect(JSON.parse(sent[1]!.body)).toEqual({});
  });

  it('an authenticator-app account still reads as before', async () => {
    auth.set({ access: 'tok', is_doctor: false, is_backoffice_admin: false, is_marketer: false });
    network([200, { methods: ['totp'], required: false, recovery_codes_left: 10 }]);
    render(
      <I18nProvider value={makeI18n('en')}>
        <TwoStepSettings />
      </I18nProvider>,
    );
    expect(await screen.findByText('On: signing in asks for a code from your authenticator app. Recovery codes left: 10.')).toBeTruthy();
    expect(screen.getByText('Turn off two-step sign-in')).toBeTruthy();
  });
});
