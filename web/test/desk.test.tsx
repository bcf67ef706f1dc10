// The clinician desk against stand-in API answers (no network): the queue keeps the server's order,
// the consultation page shows a renewal's choice, the engine's check and the weight trend, and an
// approval outside the engine's verdict asks for a written reason and sends it.
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { I18nProvider, makeI18n } from '../src/i18n';
import { Desk, DeskConsultation } from '../src/pages/desk';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const user = (first: string) => ({ id: crypto.randomUUID(), email: `${first.toLowerCase()}@example.org`, first_name: first, last_name: 'Test', date_of_birth: '1985-04-12', country_of_residence: 'DEU' });

function consultation(over: Record<string, unknown> = {}) {
  return {
    id: '00000000-0000-4000-8000-000000000001',
    user: user('Ada'),
    doctor: null,
    store_order_id: null,
    status: 'pending_review',
    origin: 'renewal',
    category: 'weight_loss',
    plan: 'subscription',
    supply_days: 28,
    decision_reason: '',
    treatment_id: 'semaglutide',
    dosage: '0.5 mg',
    images: [],
    form_snapshot: [],
    questionnaire_submission: null,
    subscription_id: null,
    prescriptions: [],
    payments: [],
    created_at: '2026-11-20T10:00:00Z',
    updated_at: '2026-11-20T10:00:00Z',
    decided_at: null,
    treatment_options: [{ id: 'semaglutide', name: 'Semaglutide pen', dosages: ['0.25 mg', '0.5 mg', '1 mg'] }],
    prescribing_check: { evaluated_at: '2026-11-20T10:00:00Z', ok: false, reason_codes: ['DOSE_STEP_TOO_EARLY'], allowed_treatments: ['semaglutide'], allowed_dosages: ['0.25 mg'], explanation: ['0.25 mg supplied for 2 week(s): stay on 0.25 mg.'] },
    prescribing_override: null,
    earlier_submissions: [],
    renewal: {
      patient_choice_status: 'confirmed',
      choice: { treatment_id: 'semaglutide', dosage: '0.5 mg', changed: true, change_note: 'Started walking daily', answers: [], dose_change: { from: '0.25 mg', to: '0.5 mg', direction: 'up' }, treatment_change: null, confirmed_at: '2026-11-20T09:00:00Z' },
      verdict: { outcome: 'eligible', reasons: [], cautions: [], explanation: ['Step up allowed after 4 weeks on a dose.'] },
      red_flags: [],
      latest_weight: { weight_kg: 100.8, logged_on: '2026-11-19' },
      weight_trend: { from: { weight_kg: 105, logged_on: '2026-10-29' }, to: { weight_kg: 100.8, logged_on: '2026-11-19' }, entries: 4, days: 21, change_kg: -4.2, change_percent: -4, kg_per_week: -1.4 },
    },
    ...over,
  };
}

/** Answers by method and path; records what was sent. */
function serve(routes: Record<string, (body: unknown) => [number, unknown]>) {
  const sent: { key: string; body: unknown }[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (req: Request) => {
      const url = new URL(req.url);
      const key = `${req.method} ${url.pathname}`;
      const body = req.method === 'POST' ? await req.clone().json() : undefined;
      sent.push({ key, body });
      const route = Object.entries(routes).find(([k]) => key.startsWith(k));
      const [status, out] = route ? route[1](body) : [404, {}];
      return new Response(JSON.stringify(out), { status, headers: { 'content-type': 'application/json' } });
    }),
  );
  return sent;
}

const wrap = (node: React.ReactNode) => <I18nProvider value={makeI18n('en')}>{node}</I18nProvider>;

describe('desk', () => {
  it('lists the queue in the order the service gives (no client-side re-sort)', async () => {
    // Deliberately not oldest-first: the page must not reorder what the API sorted.
    const rows = [
      { ...consultation({ origin: 'checkout', category: 'hair_growth', created_at: '2026-11-21T10:00:00Z' }), id: 'b', user: user('Bea') },
      { ...consultation({ origin: 'checkout', category: 'emergency_contraception', created_at: '2026-11-22T10:00:00Z' }), id: 'c', user: user('Cleo') },
      { ...consultation({ created_at: '2026-11-19T10:00:00Z' }), id: 'a', user: user('Ada') },
    ];
    serve({ 'GET /v1/clinician/consultations/': () => [200, { count: 3, next: null, previous: null, results: rows }] });
    render(wrap(<Desk />));
    await waitFor(() => expect(screen.getAllByRole('link').length).toBe(3));
    expect(screen.getAllByRole('link').map((a) => a.textContent)).toEqual(['Bea Test', 'Cleo Test', 'Ada Test']);
    expect(screen.getByText('Renewal')).toBeTruthy(); // Ada's row is marked as a renewal
  });

  it('shows the renewal choice, the engine check and the weight trend, and asks for an override reason', async () => {
    const sent = serve({
      'GET /v1/clinician/consultations/': () => [200, consultation()],
      'GET /v1/users/questionnaires/': () => [200, { steps: [] }],
      'POST /v1/clinician/consultations/': () => [200, consultation({ status: 'approved' })],
    });
    render(wrap(<DeskConsultation id="00000000-0000-4000-8000-000000000001" />));
    await screen.findByRole('heading', { name: 'Patient’s renewal choice' });
    expect(screen.getByText('Confirmed by the patient')).toBeTruthy();
    expect(screen.getByText('Dose change: 0.25 mg → 0.5 mg')).toBeTruthy();
    expect(screen.getByText(/Health changed since the last review: Started walking daily/)).toBeTruthy();
    expect(screen.getByText('Step up allowed after 4 weeks on a dose.')).toBeTruthy();
    expect(screen.getByTestId('weight-trend').textContent).toContain('105 kg');
    expect(screen.getByTestId('weight-trend').textContent).toContain('-4.2 kg (-4 %) over 21 days, 4 entries');
    expect(screen.getByTestId('weight-trend').textContent).toContain('-1.4 kg per week');
    expect(screen.getByRole('heading', { name: 'Prescribing check' })).toBeTruthy();
    expect(screen.getByText('0.25 mg supplied for 2 week(s): stay on 0.25 mg.')).toBeTruthy();
    expect(screen.queryByRole('heading', { name: 'Eligibility result' })).toBeNull(); // a renewal has no questionnaire result

    // 0.5 mg is outside the check: the reason is asked for and approve waits for 20 characters.
    const reason = screen.getByLabelText(/Override reason/);
    const approve = screen.getByRole('button', { name: 'Approve and prescribe' }) as HTMLButtonElement;
    expect(approve.disabled).toBe(true);
    fireEvent.change(reason, { target: { value: 'Tolerating 0.25 mg well for 6 weeks per GP letter.' } });
    expect(approve.disabled).toBe(false);
    fireEvent.click(approve);
    await screen.findByText('Decision saved.');
    const post = sent.find((s) => s.key.endsWith('/approve/'));
    expect(post?.body).toMatchObject({ treatment_id: 'semaglutide', dosage: '0.5 mg', override_reason: 'Tolerating 0.25 mg well for 6 weeks per GP letter.' });
  });

  it('within the verdict no reason is asked; an override_required answer then asks for one', async () => {
    let approveCalls = 0;
    serve({
      'GET /v1/clinician/consultations/': () => [200, consultation({ dosage: '0.25 mg', prescribing_check: { evaluated_at: '2026-11-20T10:00:00Z', ok: true, reason_codes: [], allowed_treatments: ['semaglutide'], allowed_dosages: ['0.25 mg'], explanation: [] } })],
      'GET /v1/users/questionnaires/': () => [200, { steps: [] }],
      'POST /v1/clinician/consultations/': () => {
        approveCalls++;
        return [400, { detail: 'Outside the verdict.', code: 'override_required', reason_codes: ['X'], allowed_treatments: [], allowed_dosages: [] }];
      },
    });
    render(wrap(<DeskConsultation id="00000000-0000-4000-8000-000000000001" />));
    await screen.findByText('The treatment and dose are within what the engine allows.');
    expect(screen.queryByLabelText(/Override reason/)).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Approve and prescribe' }));
    await screen.findByLabelText(/Override reason/);
    expect(approveCalls).toBe(1);
    expect(screen.getByText(/Give a written clinical reason to approve anyway/)).toBeTruthy();
  });

  it('shows a recorded override', async () => {
    serve({
      'GET /v1/clinician/consultations/': () => [
        200,
        consultation({ status: 'approved', prescribing_override: { doctor_id: 'abcdef12-0000-4000-8000-000000000000', treatment_id: 'semaglutide', dosage: '0.5 mg', reason: 'Documented tolerance at 0.5 mg before a short break.', reason_codes: ['DOSE_STEP_TOO_EARLY'], created_at: '2026-11-20T11:00:00Z' } }),
      ],
      'GET /v1/users/questionnaires/': () => [200, { steps: [] }],
    });
    render(wrap(<DeskConsultation id="00000000-0000-4000-8000-000000000001" />));
    await screen.findByRole('heading', { name: 'Override recorded' });
    expect(screen.getByText('Documented tolerance at 0.5 mg before a short break.')).toBeTruthy();
    expect(screen.getByText(/by doctor abcdef12: semaglutide 0.5 mg/)).toBeTruthy();
  });
});
