// Consent in the web app (docs/privacy.md): the questionnaire asks for the health-data consent
// before its first answer, and sign-up records the accepted terms and privacy notice. No network:
// fetch is replaced by a recorder that answers per route.
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { auth } from '../src/auth';
import { I18nProvider, makeI18n } from '../src/i18n';
import { SignUp } from '../src/pages/auth';
import { CONSENT_VERSION } from '../src/pages/privacy';
import { HealthConsentGate } from '../src/questionnaire/HealthConsent';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  auth.clear();
});

type Call = { method: string; path: string; body: unknown; authorization: string | null };
type Route = (body: unknown) => { status: number; body: unknown };

function serve(routes: Record<string, Route>) {
  const calls: Call[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (request: Request) => {
      const path = new URL(request.url).pathname;
      const text = await request.text();
      const body = text ? JSON.parse(text) : undefined;
      calls.push({ method: request.method, path, body, authorization: request.headers.get('authorization') });
      const route = routes[`${request.method} ${path}`];
      const out = route ? route(body) : { status: 404, body: { detail: 'Not found.' } };
      return new Response(JSON.stringify(out.body), { status: out.status, headers: { 'content-type': 'application/json' } });
    }),
  );
  return calls;
}

const consent = (kind: string, granted: boolean) => ({ id: `c-${kind}-${granted}`, kind, version: '2024-01', granted, at: '2026-01-01T00:00:00Z' });
const consents = (current: unknown[]) => () => ({ status: 200, body: { current, history: current, connectors: [] } });
const recorded = (body: unknown) => ({ status: 201, body: { id: 'new', ...(body as object), at: '2026-01-02T00:00:00Z' } });

function gate(locale: 'en' | 'de' = 'en') {
  render(
    <I18nProvider value={makeI18n(locale)}>
      <HealthConsentGate>
        <p>First question</p>
      </HealthConsentGate>
    </I18nProvider>,
  );
}

describe('the health-data consent before the questionnaire', () => {
  it('asks when not yet given, refuses to go on without the tick, records the grant, then shows the questionnaire', async () => {
    auth.set({ access: 'tok', refresh: 'r', is_doctor: false, is_backoffice_admin: false, is_marketer: false });
    const calls = serve({ 'GET /v1/users/me/consents/': consents([consent('terms', true)]), 'POST /v1/users/me/consents/': recorded });
    gate();
    await screen.findByRole('heading', { name: 'Your consent to the processing of your health data' });
    expect(screen.queryByText('First question')).toBeNull();

    fireEvent.click(screen.getByRole('button', { name: 'Consent and continue' }));
    await screen.findByText('Without this consent we cannot take your answers.');
    expect(calls.filter((c) => c.method === 'POST')).toEqual([]);
    expect(screen.queryByText('First question')).toBeNull();

    fireEvent.click(screen.getByLabelText('I consent to the processing of my health data for my treatment.'));
    fireEvent.click(screen.getByRole('button', { name: 'Consent and continue' }));
    await screen.findByText('First question');
    const posts = calls.filter((c) => c.method === 'POST');
    expect(posts).toEqual([
      { method: 'POST', path: '/v1/users/me/consents/', body: { kind: 'health_data_processing', version: CONSENT_VERSION, granted: true }, authorization: 'Bearer tok' },
    ]);
  });

  it('asks again after a withdrawal (the current decision is not a grant), in the page language', async () => {
    serve({ 'GET /v1/users/me/consents/': consents([consent('health_data_processing', false)]) });
    gate('de');
    await screen.findByRole('heading', { name: 'Ihre Einwilligung in die Verarbeitung Ihrer Gesundheitsdaten' });
    expect(screen.queryByText('First question')).toBeNull();
  });

  it('goes straight to the questionnaire when the consent is already given, without recording anything', async () => {
    const calls = serve({ 'GET /v1/users/me/consents/': consents([consent('health_data_processing', true)]) });
    gate();
    await screen.findByText('First question');
    expect(screen.queryByRole('button', { name: 'Consent and continue' })).toBeNull();
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual(['GET /v1/users/me/consents/']);
  });

  it('does not show the questionnaire when the consents cannot be read', async () => {
    serve({ 'GET /v1/users/me/consents/': () => ({ status: 500, body: { detail: 'Server error.' } }) });
    gate();
    await waitFor(() => expect(screen.getByRole('alert')).toBeTruthy());
    expect(screen.queryByText('First question')).toBeNull();
  });
});

describe('sign-up', () => {
  const session = { access: 'new-tok', refresh: 'r', is_doctor: false, is_backoffice_admin: false, is_marketer: false, is_pharmacist: false, message: 'ok' };

  it('needs the terms and privacy box ticked, then records both versions once the address is verified', async () => {
    const calls = serve({
      'POST /v1/users/register/': () => ({ status: 200, body: { message: 'Check your inbox.' } }),
      'POST /v1/users/verify-email/': () => ({ status: 200, body: session }),
      'POST /v1/users/me/consents/': recorded,
    });
    render(
      <I18nProvider value={makeI18n('en')}>
        <SignUp />
      </I18nProvider>,
    );
    fireEvent.change(screen.getByLabelText('Email'), { target: { value: 'ada@example.org' } });
    fireEvent.change(screen.getByLabelText('Password'), { target: { value: 'a long passphrase here' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create account' }));
    const box = screen.getByLabelText('I accept the terms of service and have read the privacy notice.');
    await waitFor(() => expect(box.getAttribute('aria-invalid')).toBe('true'));
    expect(document.getElementById(box.getAttribute('aria-describedby')!)!.textContent).toBe('Please accept the terms of service and the privacy notice to create an account.');
    expect(calls).toEqual([]);

    fireEvent.click(box);
    fireEvent.click(screen.getByRole('button', { name: 'Create account' }));
    await screen.findByRole('heading', { name: 'Enter the code we emailed you' });
    expect(calls.map((c) => c.path)).toEqual(['/v1/users/register/']);

    fireEvent.change(screen.getByLabelText('Code'), { target: { value: '123456' } });
    fireEvent.click(screen.getByRole('button', { name: 'Verify and continue' }));
    await waitFor(() => expect(calls.filter((c) => c.path === '/v1/users/me/consents/')).toHaveLength(2));
    const recordedConsents = calls.filter((c) => c.path === '/v1/users/me/consents/');
    expect(recordedConsents.map((c) => c.body).sort((a, b) => String((a as { kind?: string }).kind).localeCompare(String((b as { kind?: string }).kind)))).toEqual([
      { kind: 'privacy', version: CONSENT_VERSION, granted: true },
      { kind: 'terms', version: CONSENT_VERSION, granted: true },
    ]);
    for (const c of recordedConsents) expect(c.authorization).toBe('Bearer new-tok');
  });
});
