// The sign-in page's second step (docs/accounts.md, "Second factor"): the 403 mfa_required answer
// leads to the code step, whose code is sent with the mfa_token; a wrong code is said in the page's
// language; the enrolment answer leads to the QR code and the secret. No network.
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { auth } from '../src/auth';
import { I18nProvider, makeI18n } from '../src/i18n';
import { SignIn } from '../src/pages/auth';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  auth.clear();
});

/** Answers each request with the next of `answers`, recording what was sent. */
function answers(...list: [number, unknown][]) {
  const calls: { url: string; body: unknown }[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (request: Request) => {
      calls.push({ url: request.url, body: JSON.parse(await request.text()) });
      const [status, body] = list.shift() ?? [500, {}];
      return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
    }),
  );
  return calls;
}

function signIn(locale: 'en' | 'de' = 'en') {
  render(
    <I18nProvider value={makeI18n(locale)}>
      <SignIn />
    </I18nProvider>,
  );
  fireEvent.change(screen.getByLabelText(locale === 'en' ? 'Email' : 'E-Mail'), { target: { value: 'doctor@example.org' } });
  fireEvent.change(screen.getByLabelText(locale === 'en' ? 'Password' : 'Passwort'), { target: { value: 'Ward-Lantern-Harbour-2026' } });
  fireEvent.submit(screen.getByLabelText(locale === 'en' ? 'Password' : 'Passwort').closest('form')!);
}

const pair = { access: 'a', refresh: 'r', is_doctor: true, is_backoffice_admin: false, is_marketer: false };

describe('sign-in with a second factor', () => {
  it('asks for the code after mfa_required and signs in with the mfa_token and the code', async () => {
    const calls = answers([403, { error: 'Enter the code.', code: 'mfa_required', mfa_token: 'ticket-1', methods: ['totp'] }], [401, { error: 'x', code: 'invalid_mfa_code' }], [200, pair]);
    signIn();
    await waitFor(() => expect(screen.getByRole('heading', { name: 'Enter your authenticator code' })).toBeTruthy());
    expect(auth.get()).toBeNull();
    // The step's form is its own chunk (loaded when a second step is asked for).
    fireEvent.change(await screen.findByLabelText('Authenticator code'), { target: { value: ' 123456 ' } });
    fireEvent.click(screen.getByRole('button', { name: 'Verify and sign in' }));
    await waitFor(() => expect(screen.getByText(/This code is not correct or was already used/)).toBeTruthy());
    fireEvent.change(screen.getByLabelText('Authenticator code'), { target: { value: '654321' } });
    fireEvent.click(screen.getByRole('button', { name: 'Verify and sign in' }));
    await waitFor(() => expect(auth.get()?.access).toBe('a'));
    expect(calls.map((c) => new URL(c.url).pathname)).toEqual(['/v1/users/token/', '/v1/users/token/mfa/', '/v1/users/token/mfa/']);
    expect(calls[1]!.body).toEqual({ mfa_token: 'ticket-1', code: '123456' });
    expect(calls[2]!.body).toEqual({ mfa_token: 'ticket-1', code: '654321' });
  });

  it('walks a staff member without a factor through enrolment: QR code, secret, recovery codes, then signed in', async () => {
    const secret = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
    const codes = Array.from({ length: 10 }, (_, i) => `abcd${i + 2}-efghj`);
    const calls = answers(
      [403, { error: 'Set up.', code: 'mfa_enrolment_required', enrolment_token: 'enrol-1', methods: ['totp'] }],
      [200, { secret, otpauth_uri: `otpauth://totp/demo:doctor%40example.org?issuer=demo&secret=${secret}` }],
      [200, { ...pair, recovery_codes: codes }],
    );
    signIn('de');
    await waitFor(() => expect(screen.getByRole('img', { name: 'QR-Code für Ihre Authenticator-App' })).toBeTruthy());
    expect(screen.getByText('JBSW Y3DP EHPK 3PXP JBSW Y3DP EHPK 3PXP')).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Authenticator-Code'), { target: { value: '492039' } });
    fireEvent.click(screen.getByRole('button', { name: 'Code bestätigen' }));
    await waitFor(() => expect(screen.getByRole('heading', { name: 'Ihre Wiederherstellungscodes' })).toBeTruthy());
    expect(screen.getAllByRole('listitem').map((li) => li.textContent)).toEqual(codes);
    expect(auth.get()).toBeNull(); // not before the codes are acknowledged
    fireEvent.click(screen.getByRole('button', { name: 'Ich habe meine Wiederherstellungscodes gespeichert' }));
    await waitFor(() => expect(auth.get()?.is_doctor).toBe(true));
    expect(calls[1]!.body).toEqual({ enrolment_token: 'enrol-1' });
    expect(calls[2]!.body).toEqual({ enrolment_token: 'enrol-1', code: '492039' });
  });
});
