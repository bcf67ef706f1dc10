// Plan management on the plan page against stand-in API answers (no network): skip, pause for some
// deliveries or until resumed, resume, the delivery date inside the plan's window, the restart-dose
// notice the server returns, and the dose-change request with the doctor's answer; the desk's
// dose-change requests (approve / decline).
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DoseChangeDesk } from '../src/components/DoseChangeDesk';
import { PlanPage } from '../src/pages/plans';
import { page, serve, wrap } from './support/serve';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const ID = '00000000-0000-4000-8000-0000000000a1';

function plan(over: Record<string, unknown> = {}) {
  return {
    id: ID,
    status: 'active',
    price_cents: 21900,
    currency: 'EUR',
    started_at: '2026-09-01T10:00:00.000Z',
    current_period_start: '2026-11-10T10:00:00.000Z',
    current_period_end: '2026-12-08T10:00:00.000Z',
    cancel_at_period_end: false,
    canceled_at: null,
    treatment_id: 'semaglutide',
    dosage: '1 mg',
    category: 'weight_loss',
    interval: 'day',
    interval_count: 28,
    cycle_days: 28,
    payment_method_brand: 'visa',
    payment_method_last4: '4242',
    early_order_locked_until: '2026-11-28T10:00:00.000Z',
    early_order_locked: true,
    next_delivery_at: '2026-12-08T10:00:00.000Z',
    delivery_skipped: false,
    paused_by_patient: false,
    resumes_at: null,
    next_cycle_dosage: null,
    delivery_date_window: { earliest: '2026-11-28', latest: '2027-01-05' },
    ...over,
  };
}
const options = { ladder: { dosages: ['0.25 mg', '0.5 mg', '1 mg', '1.7 mg', '2.4 mg'], current: '1 mg', next: '1.7 mg', held_at_max: false } };
const restart = { at: '2027-01-05T10:00:00.000Z', current_dosage: '1 mg', resume_dosage: '0.5 mg', dose_lowered: true, supply_gap_days: 28, last_day_at_current_dose: '2026-12-22', codes: ['SUPPLY_BREAK_STEP_DOWN'], explanation: [] };

describe('plan management on the plan page', () => {
  it('skips the next delivery and shows the lower restart dose the server returns', async () => {
    let current = plan();
    const sent = serve({
      'GET /v1/users/subscriptions/': () => [200, page([current])],
      'GET /v1/users/subscriptions/renewal-options/': () => [200, options],
      [`GET /v1/users/subscriptions/${ID}/dose-change-requests/`]: () => [200, []],
      [`POST /v1/users/subscriptions/${ID}/skip/`]: () => {
        current = plan({ delivery_skipped: true, next_delivery_at: '2027-01-05T10:00:00.000Z' });
        return [200, { subscription: current, restart }];
      },
    });
    render(wrap(<PlanPage />));
    fireEvent.click(await screen.findByRole('button', { name: 'Skip next delivery' }));
    expect(await screen.findByText(/restarts at a lower dose \(0\.5 mg\)/)).toBeTruthy();
    await waitFor(() => expect(screen.getByText(/The next delivery is skipped\./)).toBeTruthy());
    expect(screen.queryByRole('button', { name: 'Skip next delivery' })).toBeNull();
    expect(sent.filter((s) => s.key === `POST /v1/users/subscriptions/${ID}/skip/`)).toHaveLength(1);
  });

  it('pauses for the chosen number of deliveries or until resumed, and resumes', async () => {
    let current = plan();
    const sent = serve({
      'GET /v1/users/subscriptions/': () => [200, page([current])],
      'GET /v1/users/subscriptions/renewal-options/': () => [200, options],
      [`GET /v1/users/subscriptions/${ID}/dose-change-requests/`]: () => [200, []],
      [`POST /v1/users/subscriptions/${ID}/pause/`]: (body) => {
        current = plan({ status: 'paused', paused_by_patient: true, resumes_at: null, next_delivery_at: null, delivery_date_window: null });
        return [200, { subscription: current, restart: { ...restart, at: null, resume_dosage: null, dose_lowered: false, supply_gap_days: null, codes: [], body } }];
      },
      [`POST /v1/users/subscriptions/${ID}/unpause/`]: () => {
        current = plan();
        return [200, { subscription: current, restart: null }];
      },
    });
    render(wrap(<PlanPage />));
    fireEvent.change(await screen.findByLabelText('Pause for'), { target: { value: 'open' } });
    fireEvent.click(screen.getByRole('button', { name: 'Pause' }));
    expect(await screen.findByText(/If you resume after/)).toBeTruthy();
    expect(await screen.findByText('Paused until you resume it.')).toBeTruthy();
    expect(sent.find((s) => s.key.endsWith('/pause/'))?.body).toEqual({});
    fireEvent.click(screen.getByRole('button', { name: 'Resume deliveries' }));
    await waitFor(() => expect(sent.some((s) => s.key.endsWith('/unpause/'))).toBe(true));
    expect(await screen.findByRole('button', { name: 'Skip next delivery' })).toBeTruthy();
  });

  it('moves the delivery date inside the window and shows the field error of a refused date', async () => {
    const sent = serve({
      'GET /v1/users/subscriptions/': () => [200, page([plan()])],
      'GET /v1/users/subscriptions/renewal-options/': () => [200, options],
      [`GET /v1/users/subscriptions/${ID}/dose-change-requests/`]: () => [200, []],
      [`POST /v1/users/subscriptions/${ID}/delivery-date/`]: () => [400, { date: ['Choose a date from 2026-11-28 to 2027-01-05.'] }],
    });
    render(wrap(<PlanPage />));
    const input = (await screen.findByLabelText('New delivery date')) as HTMLInputElement;
    expect([input.min, input.max]).toEqual(['2026-11-28', '2027-01-05']);
    fireEvent.change(input, { target: { value: '2026-12-20' } });
    fireEvent.click(screen.getByRole('button', { name: 'Change date' }));
    expect(await screen.findByText('Choose a date from 2026-11-28 to 2027-01-05.')).toBeTruthy();
    expect(sent.find((s) => s.key.endsWith('/delivery-date/'))?.body).toEqual({ date: '2026-12-20' });
  });

  it('asks the doctor for another dose and shows the answer (in German too)', async () => {
    let requests: unknown[] = [];
    const sent = serve({
      'GET /v1/users/subscriptions/': () => [200, page([plan()])],
      'GET /v1/users/subscriptions/renewal-options/': () => [200, options],
      [`GET /v1/users/subscriptions/${ID}/dose-change-requests/`]: () => [200, requests],
      [`POST /v1/users/subscriptions/${ID}/dose-change-requests/`]: (body) => {
        const b = body as { dosage: string; note: string };
        requests = [{ id: 'r1', subscription_id: ID, treatment_id: 'semaglutide', from_dosage: '1 mg', requested_dosage: b.dosage, note: b.note, status: 'pending', decided_dosage: null, decision_note: '', decided_at: null, created_at: '2026-11-26T10:00:00.000Z' }];
        return [201, requests[0]];
      },
    });
    const { unmount } = render(wrap(<PlanPage />));
    const select = (await screen.findByLabelText('Dose')) as HTMLSelectElement;
    expect([...select.options].map((o) => o.value)).toEqual(['0.25 mg', '0.5 mg', '1.7 mg', '2.4 mg']);
    fireEvent.change(select, { target: { value: '0.5 mg' } });
    fireEvent.change(screen.getByLabelText('Why (for the doctor)'), { target: { value: 'Nausea' } });
    fireEvent.click(screen.getByRole('button', { name: 'Send to the doctor' }));
    expect(await screen.findByText('Your request was sent to a doctor.')).toBeTruthy();
    expect(sent.find((s) => s.key.startsWith('POST') && s.key.endsWith('/dose-change-requests/'))?.body).toEqual({ dosage: '0.5 mg', note: 'Nausea' });
    expect(await screen.findByText(/Dose request 1 mg → 0\.5 mg: waiting for a doctor/)).toBeTruthy();
    unmount();
    requests = [{ ...(requests[0] as object), status: 'approved', decided_dosage: '0.5 mg', decision_note: 'Vier Wochen bei 0,5 mg.', decided_at: '2026-11-27T10:00:00.000Z' }];
    render(wrap(<PlanPage />, 'de'));
    expect(await screen.findByText(/Dosisanfrage 1 mg → 0\.5 mg: genehmigt/)).toBeTruthy();
    expect(screen.getByText(/Vier Wochen bei 0,5 mg\./)).toBeTruthy();
  });
});

describe('dose-change requests on the desk', () => {
  it('lists the waiting requests and sends the doctor’s decision with the note', async () => {
    let queue = [
      { id: 'd1', subscription_id: ID, treatment_id: 'semaglutide', from_dosage: '1 mg', requested_dosage: '0.5 mg', note: 'Nausea', status: 'pending', decided_dosage: null, decision_note: '', decided_at: null, created_at: '2026-11-26T10:00:00.000Z', user_id: '00000000-0000-4000-8000-0000000000b1', category: 'weight_loss', plan_status: 'active', next_delivery_at: null, prescribing_check: { ok: true, reason_codes: [], allowed_dosages: ['0.25 mg', '0.5 mg', '1 mg'], explanation: [] } },
    ];
    const sent = serve({
      'GET /v1/clinician/dose-change-requests/': () => [200, page(queue)],
      'POST /v1/clinician/dose-change-requests/d1/decide/': () => {
        const out = { ...queue[0], status: 'approved', decided_dosage: '0.5 mg' };
        queue = [];
        return [200, out];
      },
    });
    render(wrap(<DoseChangeDesk />));
    expect(await screen.findByText('Nausea')).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Note to the patient'), { target: { value: 'Four weeks at 0.5 mg.' } });
    fireEvent.click(screen.getByRole('button', { name: 'Approve dose' }));
    expect(await screen.findByText('No dose change requests.')).toBeTruthy();
    expect(sent.find((s) => s.key.startsWith('POST'))?.body).toEqual({ decision: 'approve', note: 'Four weeks at 0.5 mg.' });
  });
});

describe('switching treatment on the plan page', () => {
  it('offers the category’s other treatments, sends the choice and the reason, and points to the renewal screen', async () => {
    const sent = serve({
      'GET /v1/users/subscriptions/': () => [200, page([plan()])],
      'GET /v1/users/subscriptions/renewal-options/': () => [200, options],
      [`GET /v1/users/subscriptions/${ID}/dose-change-requests/`]: () => [200, []],
      'GET /v1/users/questionnaires/weight_loss/schema/': () => [200, { treatments: [{ treatment_id: 'semaglutide', name: 'Semaglutide' }, { treatment_id: 'tirzepatide', name: 'Tirzepatide' }] }],
      [`POST /v1/users/subscriptions/${ID}/treatment-switch/`]: () => [201, {}],
    });
    render(wrap(<PlanPage />));
    const select = (await screen.findByLabelText('Treatment you would prefer')) as HTMLSelectElement;
    // The plan's own treatment is not offered.
    expect([...select.options].map((o) => o.value)).toEqual(['tirzepatide']);
    fireEvent.change(screen.getByLabelText('Why'), { target: { value: 'shortage' } });
    fireEvent.click(screen.getByRole('button', { name: 'Ask to switch' }));
    expect(await screen.findByText(/Your request is open/)).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Go to renewal' }).getAttribute('href')).toBe('/renewal');
    expect(sent.find((s) => s.key.endsWith('/treatment-switch/'))?.body).toEqual({ treatment_id: 'tirzepatide', reason: 'shortage' });
  });

  it('shows the refusal when the renewal is already open, and nothing when the category has one treatment', async () => {
    serve({
      'GET /v1/users/subscriptions/': () => [200, page([plan()])],
      'GET /v1/users/subscriptions/renewal-options/': () => [200, options],
      [`GET /v1/users/subscriptions/${ID}/dose-change-requests/`]: () => [200, []],
      'GET /v1/users/questionnaires/weight_loss/schema/': () => [200, { treatments: [{ treatment_id: 'semaglutide', name: 'Semaglutide' }, { treatment_id: 'tirzepatide', name: 'Tirzepatide' }] }],
      [`POST /v1/users/subscriptions/${ID}/treatment-switch/`]: () => [409, { detail: 'This period’s renewal is open: choose the treatment there.', code: 'treatment_switch_renewal_open' }],
    });
    const { unmount } = render(wrap(<PlanPage />));
    fireEvent.click(await screen.findByRole('button', { name: 'Ask to switch' }));
    expect(await screen.findByText('This period’s renewal is open: choose the treatment there.')).toBeTruthy();
    unmount();
    const single = serve({
      'GET /v1/users/subscriptions/': () => [200, page([plan()])],
      'GET /v1/users/subscriptions/renewal-options/': () => [200, options],
      [`GET /v1/users/subscriptions/${ID}/dose-change-requests/`]: () => [200, []],
      'GET /v1/users/questionnaires/weight_loss/schema/': () => [200, { treatments: [{ treatment_id: 'semaglutide', name: 'Semaglutide' }] }],
    });
    render(wrap(<PlanPage />));
    expect(await screen.findByLabelText('New delivery date')).toBeTruthy();
    await waitFor(() => expect(single.some((s) => s.key.endsWith('/schema/'))).toBe(true));
    await new Promise((r) => setTimeout(r, 50));
    expect(screen.queryByRole('button', { name: 'Ask to switch' })).toBeNull();
  });
});
