// Issue 27, the patient's pages, against stand-in API answers (no network): home lists every plan
// and consultation with its next step; the history keeps a "not suitable" outcome with its reasons;
// the consultation page has a timeline with the API's dates, the doctor and catalogue labels (in
// the page's language, never raw ids); the not-suitable result offers a correction with the hold
// explained; the journal shows the goal, the percentage lost and the next injection, and logs the
// plan's medication and dose; attachments show their name and an image preview; text typed while a
// message sends is kept.
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { auth } from '../src/auth';
import { resetCatalogueCache } from '../src/components/catalogue';
import { percentLost } from '../src/components/WeightChart';
import { I18nProvider, makeI18n, type Locale } from '../src/i18n';
import Journal, { nextInjectionOn } from '../src/pages/journal';
import { Messages } from '../src/pages/messages';
import { consultationStep, ConsultationDetail, Consultations, Home, planStep, timeline, unpaidOutcomes } from '../src/pages/patient';
import { Questionnaire } from '../src/pages/questionnaire';

beforeEach(() => {
  resetCatalogueCache();
  localStorage.clear();
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  auth.clear();
  window.history.replaceState(null, '', '/');
});

type Route = (body: unknown, url: URL, req: Request) => [number, unknown, Record<string, string>?] | Promise<[number, unknown, Record<string, string>?]>;

/** Answers by method and exact path; records what was sent. */
function serve(routes: Record<string, Route>) {
  const sent: { key: string; body: unknown; url: URL }[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: Request | string, init?: RequestInit) => {
      // The typed client passes a Request; authFetch (files) a URL and options.
      const req = typeof input === 'string' ? new Request(new URL(input, 'http://localhost'), init) : input;
      const url = new URL(req.url);
      const key = `${req.method} ${url.pathname}`;
      const text = req.method === 'GET' || req.method === 'HEAD' ? '' : await req.clone().text();
      const body = text && text.startsWith('{') ? JSON.parse(text) : text || undefined;
      sent.push({ key, body, url });
      const route = routes[key];
      const [status, out, headers] = route ? await route(body, url, req) : [404, { detail: 'Not found.' }];
      if (out instanceof Blob) return new Response(req.method === 'HEAD' ? null : out, { status, headers });
      return new Response(JSON.stringify(out), { status, headers: { 'content-type': 'application/json', ...headers } });
    }),
  );
  return sent;
}

const wrap = (node: React.ReactNode, locale: Locale = 'en') => <I18nProvider value={makeI18n(locale)}>{node}</I18nProvider>;
const page = (results: unknown[]) => ({ count: results.length, next: null, previous: null, results });
const signIn = () => auth.set({ access: 'tok', refresh: 'r', is_doctor: false, is_backoffice_admin: false, is_marketer: false });

// The catalogue as the service serves it, per locale.
const TITLES: Record<string, Record<string, string>> = {
  en: { weight_loss: 'Weight loss', hair_growth: 'Hair loss' },
  de: { weight_loss: 'Gewichtsabnahme', hair_growth: 'Haarausfall' },
};
const TREATMENTS: Record<string, Record<string, string>> = {
  en: { semaglutide: 'Semaglutide (Wegovy) pen', finasteride: 'Finasteride tablets' },
  de: { semaglutide: 'Semaglutid (Wegovy) Pen', finasteride: 'Finasterid Tabletten' },
};
const catalogue: Record<string, Route> = {
  'GET /v1/users/questionnaires/categories/': (_b, url) => {
    const l = url.searchParams.get('locale') ?? 'en';
    return [200, { locale: l, categories: Object.entries(TITLES[l]!).map(([slug, title]) => ({ slug, title, id: slug, description: '', default_plan: 'subscription', version: 'v', version_number: 1, price_from: { currency: 'EUR', one_off_cents: 1000, plan_cents: null } })) }];
  },
  'GET /v1/users/questionnaires/weight_loss/schema/': (_b, url) => [200, schemaOf('weight_loss', url.searchParams.get('locale') ?? 'en', ['semaglutide'])],
  'GET /v1/users/questionnaires/hair_growth/schema/': (_b, url) => [200, schemaOf('hair_growth', url.searchParams.get('locale') ?? 'en', ['finasteride'])],
};

function treatment(id: string, locale: string) {
  return { treatment_id: id, name: TREATMENTS[locale]![id]!, strengths: [], dosage_ladder: null, min_weeks_per_step: null, supply_days: 28, plan_cycle_days: 28, one_off_price_cents: 19900, plan_price_cents: 17900, currency: 'EUR' };
}
function schemaOf(slug: string, locale: string, treatments: string[]) {
  return {
    id: `cat-${slug}`,
    slug,
    title: TITLES[locale]![slug]!,
    description: '',
    default_plan: 'one_off',
    version: 'v1',
    version_number: 1,
    price_from: { currency: 'EUR', one_off_cents: 19900, plan_cents: 17900 },
    locale,
    published_at: '2026-01-01',
    treatments: treatments.map((t) => treatment(t, locale)),
    steps: [{ step_id: 1, title: 'About you', questions: [{ question_key: 'weight_kg', type: 'number', required: true, text: 'Your weight', unit: 'kg', min: 30, max: 300 }] }],
  };
}

const ID = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
function plan(over: Record<string, unknown> = {}) {
  return {
    id: ID(1), status: 'active', price_cents: 17900, currency: 'EUR', started_at: '2026-10-01T00:00:00Z', current_period_start: '2026-11-01T00:00:00Z', current_period_end: '2026-11-29T00:00:00Z',
    cancel_at_period_end: false, canceled_at: null, treatment_id: 'semaglutide', dosage: '0.25 mg', category: 'weight_loss', interval: 'day', interval_count: 28, cycle_days: 28,
    payment_method_brand: null, payment_method_last4: null, early_order_locked_until: null, early_order_locked: false, ...over,
  };
}
function payment(over: Record<string, unknown> = {}) {
  return { id: ID(50), consultation_id: ID(10), status: 'succeeded', amount_cents: 19900, refunded_amount_cents: 0, net_amount_cents: 19900, currency: 'EUR', captured_at: '2026-11-02T09:00:00Z', created_at: '2026-11-02T09:00:00Z', ...over };
}
function consultation(over: Record<string, unknown> = {}) {
  return {
    id: ID(10), user: {}, doctor: null, store_order_id: null, status: 'pending_review', origin: 'checkout', category: 'weight_loss', plan: 'subscription', supply_days: 28, decision_reason: '',
    treatment_id: 'semaglutide', dosage: '0.25 mg', images: [], form_snapshot: [], questionnaire_submission: { id: ID(90), category: 'weight_loss', version: ID(91), outcome: 'eligible', eligibility: {}, submitted_at: '2026-11-02T08:55:00Z' },
    subscription_id: null, prescriptions: [], payments: [payment()], created_at: '2026-11-02T09:00:05Z', updated_at: '2026-11-02T09:00:05Z', decided_at: null, ...over,
  };
}
function order(over: Record<string, unknown> = {}) {
  return {
    id: ID(70), status: 'shipped', consultation_id: ID(10), prescription_id: null, items: [], shipping_address: null, carrier: 'DHL', tracking_number: 'JJD0001', tracking_url: 'https://track.example/JJD0001',
    shipped_at: '2026-11-04T10:00:00Z', delivered_at: null, fulfilment: { method: 'delivery', pharmacy: null }, attempt: 1, created_at: '2026-11-03T10:00:00Z', updated_at: '2026-11-04T10:00:00Z', ...over,
  };
}
function outcome(over: Record<string, unknown> = {}) {
  return { id: ID(80), category: 'hair_growth', outcome: 'ineligible', reasons: [{ code: 'hg_female', message: 'This treatment is for men only.' }], alternative: { code: 'general_practitioner', message: 'Please see your family doctor.' }, treatments: [], created_at: '2026-11-05T10:00:00Z', ...over };
}

describe('next steps (pure)', () => {
  it('a plan: pay when past due, resume when paused, renew when active, none when ended', () => {
    expect(planStep({ status: 'past_due', cancel_at_period_end: false })?.key).toBe('payPlan');
    expect(planStep({ status: 'paused', cancel_at_period_end: false })?.key).toBe('resume');
    expect(planStep({ status: 'active', cancel_at_period_end: false })?.key).toBe('renew');
    expect(planStep({ status: 'active', cancel_at_period_end: true })?.key).toBe('restart');
    expect(planStep({ status: 'canceled', cancel_at_period_end: false })).toBeNull();
  });
  it('a consultation: answer the doctor, track the parcel (only an http link), see the order, nothing once delivered', () => {
    expect(consultationStep({ id: 'c', status: 'needs_information' }, undefined)?.key).toBe('answer');
    expect(consultationStep({ id: 'c', status: 'approved' }, order() as never)).toEqual({ key: 'track', to: 'https://track.example/JJD0001', external: true });
    expect(consultationStep({ id: 'c', status: 'approved' }, order({ tracking_url: 'javascript:alert(1)' }) as never)?.key).toBe('order');
    expect(consultationStep({ id: 'c', status: 'approved' }, order({ status: 'delivered' }) as never)).toBeNull();
    expect(consultationStep({ id: 'c', status: 'rejected' }, undefined)?.key).toBe('why');
  });
  it('an eligible outcome waits for payment until a consultation of its category starts after it', () => {
    const eligible = outcome({ id: 'e', category: 'weight_loss', outcome: 'eligible', treatments: ['semaglutide'], created_at: '2026-11-05T10:00:00Z' });
    expect(unpaidOutcomes([eligible] as never, [])).toHaveLength(1);
    expect(unpaidOutcomes([eligible] as never, [{ category: 'weight_loss', created_at: '2026-11-05T10:05:00Z' }])).toHaveLength(0);
    expect(unpaidOutcomes([eligible] as never, [{ category: 'weight_loss', created_at: '2026-11-01T10:00:00Z' }])).toHaveLength(1);
    // Only the newest outcome of a category counts: an ineligible one after it closes the payment.
    expect(unpaidOutcomes([outcome({ category: 'weight_loss', created_at: '2026-11-06T10:00:00Z' }), eligible] as never, [])).toHaveLength(0);
  });
});

describe('home', () => {
  it('lists every plan and consultation with catalogue labels and the next step of each', async () => {
    signIn();
    serve({
      ...catalogue,
      'GET /v1/users/profile/': () => [200, { first_name: 'Ada', date_of_birth: '1985-01-01', country_of_residence: 'DEU' }],
      'GET /v1/users/subscriptions/': () => [200, page([plan(), plan({ id: ID(2), status: 'past_due', category: 'hair_growth', treatment_id: 'finasteride', dosage: '1 mg' })])],
      'GET /v1/users/consultations/': () => [200, page([consultation({ id: ID(11), status: 'needs_information' }), consultation({ status: 'approved', decided_at: '2026-11-03T08:00:00Z' })])],
      'GET /v1/users/questionnaires/submissions/': () => [200, page([outcome({ id: ID(81), category: 'hair_growth', outcome: 'eligible', treatments: ['finasteride'], created_at: '2026-11-06T10:00:00Z' })])],
      'GET /v1/users/orders/': () => [200, [order()]],
      'GET /v1/users/conversations/': () => [200, page([])],
    });
    render(wrap(<Home />));
    const plans = await screen.findByTestId('home-plans');
    await within(plans).findByText('Semaglutide (Wegovy) pen 0.25 mg', { exact: false });
    expect(within(plans).getAllByRole('listitem')).toHaveLength(2);
    expect(within(plans).getByText('Finasteride tablets 1 mg', { exact: false })).toBeTruthy();
    expect(within(plans).getByRole('link', { name: 'Payment failed: update your payment method' }).getAttribute('href')).toBe('/plan');
    expect(within(plans).getByRole('link', { name: 'Renew or reorder' }).getAttribute('href')).toBe('/renewal');

    const cons = screen.getByTestId('home-consultations');
    expect(within(cons).getByRole('link', { name: 'Answer the doctor' }).getAttribute('href')).toBe('/messages');
    expect(within(cons).getByRole('link', { name: 'Track your parcel' }).getAttribute('href')).toBe('https://track.example/JJD0001');
    // The hair-loss outcome is eligible and unpaid: pay it without answering again.
    const pay = within(cons).getAllByRole('link', { name: 'Pay to send your answers to a doctor' });
    expect(pay.map((a) => a.getAttribute('href'))).toEqual([`/questionnaire/hair_growth?pay=${ID(81)}`]);
    // No raw ids anywhere.
    expect(document.body.textContent).not.toMatch(/weight_loss|hair_growth|semaglutide 0/);
  });

  it('a consultation waiting for a doctor says "nothing to do" only when nothing is left to verify for its category', async () => {
    signIn();
    let missing: string[] = ['identity', 'weight'];
    const routes = {
      ...catalogue,
      'GET /v1/users/profile/': () => [200, { first_name: 'Ada' }] as [number, unknown],
      'GET /v1/users/subscriptions/': () => [200, page([])] as [number, unknown],
      'GET /v1/users/consultations/': () => [200, page([consultation({ id: ID(12), status: 'pending_review' })])] as [number, unknown],
      'GET /v1/users/questionnaires/submissions/': () => [200, page([])] as [number, unknown],
      'GET /v1/users/orders/': () => [200, []] as [number, unknown],
      'GET /v1/users/conversations/': () => [200, page([])] as [number, unknown],
      'GET /v1/users/verification/': () => [200, { identity: { status: 'not_started', checked_at: null }, weight: { status: 'not_started', weight_kg: null, verified_at: null, due_at: null }, requirements: [{ category: 'weight_loss', required: ['identity', 'weight'], missing }] }] as [number, unknown],
    };
    serve(routes);
    render(wrap(<Home />));
    const cons = await screen.findByTestId('home-consultations');
    const link = await within(cons).findByRole('link', { name: 'Complete your verification so that a doctor can decide.' });
    expect(link.getAttribute('href')).toBe('/verification');
    expect(within(cons).queryByText('A doctor is reviewing your answers: nothing to do for now.')).toBeNull();
    expect(screen.getByTestId('verification-missing')).toBeTruthy();
    cleanup();
    missing = [];
    serve(routes);
    render(wrap(<Home />));
    const done = await screen.findByTestId('home-consultations');
    await within(done).findByText('A doctor is reviewing your answers: nothing to do for now.');
    expect(screen.queryByTestId('verification-missing')).toBeNull();
  });
});

describe('consultation history', () => {
  it('keeps the not-suitable outcome with its reasons, in the patient’s language, next to the consultations', async () => {
    signIn();
    const sent = serve({
      ...catalogue,
      'GET /v1/users/consultations/': () => [200, page([consultation()])],
      'GET /v1/users/questionnaires/submissions/': (_b, url) => [200, page([outcome({ reasons: [{ code: 'hg_female', message: url.searchParams.get('locale') === 'de' ? 'Diese Behandlung ist nur für Männer.' : 'This treatment is for men only.' }] })])],
    });
    render(wrap(<Consultations />, 'de'));
    const list = await screen.findByTestId('consultation-history');
    await within(list).findByText('Diese Behandlung ist nur für Männer.');
    await within(list).findByText('Haarausfall');
    expect(within(list).getByText(/Gewichtsabnahme/)).toBeTruthy();
    // Newest first: the outcome (5 Nov) before the consultation (2 Nov).
    const items = within(list).getAllByRole('listitem').filter((li) => li.parentElement === list);
    expect(items).toHaveLength(2);
    expect(items[0]!.textContent).toContain('Haarausfall');
    expect(sent.find((s) => s.key === 'GET /v1/users/questionnaires/submissions/')!.url.searchParams.get('locale')).toBe('de');
    expect(document.body.textContent).not.toMatch(/Hair loss|Weight loss|hair_growth/);
  });
});

describe('consultation page', () => {
  it('a timeline with the API’s dates, the doctor’s name and the treatment’s catalogue label', async () => {
    signIn();
    const x = consultation({ status: 'approved', doctor: { id: ID(3), first_name: 'Greta', last_name: 'Hahn', email: 'd@x', doctor_license_number: null }, decided_at: '2026-11-03T08:00:00Z' });
    serve({
      ...catalogue,
      [`GET /v1/users/consultations/${ID(10)}/`]: () => [200, x],
      'GET /v1/users/orders/': () => [200, [order(), order({ id: ID(71), consultation_id: ID(99), shipped_at: '2026-12-24T10:00:00Z' })]],
    });
    render(wrap(<ConsultationDetail id={ID(10)} />));
    expect((await screen.findByTestId('doctor')).textContent).toBe('Greta Hahn');
    await screen.findByText('Semaglutide (Wegovy) pen 0.25 mg');
    const steps = within(screen.getByTestId('timeline')).getAllByRole('listitem');
    expect(steps.map((li) => li.className)).toEqual(['done', 'done', 'done', 'done', 'done', 'todo']);
    expect(steps.map((li) => li.textContent)).toEqual([
      'Answers submitted 2 Nov 2026',
      'Paid 2 Nov 2026',
      'With a doctor 2 Nov 2026',
      'Approved by the doctor 3 Nov 2026',
      'Dispatched 4 Nov 2026', // this consultation's order, not the other one
      'Delivered not yet',
    ]);
    expect(screen.getByRole('link', { name: 'Track parcel JJD0001' }).getAttribute('href')).toBe('https://track.example/JJD0001');
  });

  it('a consultation covered by the plan says so instead of a payment date; no doctor yet', () => {
    const steps = timeline(consultation({ payments: [], origin: 'subscription_covered' }) as never, undefined);
    expect(steps[1]).toEqual({ key: 'paid', at: '2026-11-02T09:00:05Z', note: 'covered' });
    expect(steps.slice(3).map((s) => s.at)).toEqual([null, null, null]);
  });
});

describe('not suitable result', () => {
  it('shows each reason once, the alternative, and lets the patient correct an answer with the hold explained', async () => {
    signIn();
    window.history.replaceState(null, '', '/questionnaire/weight_loss');
    const sent = serve({
      ...catalogue,
      'GET /v1/users/profile/': () => [200, { first_name: 'Ada', last_name: 'Test', date_of_birth: '1985-01-01', gender: '1', country_of_residence: 'DEU' }],
      'GET /v1/users/me/consents/': () => [200, { current: [{ id: 'c', kind: 'health_data_processing', version: 'v', granted: true, at: '2026-01-01T00:00:00Z' }], history: [], connectors: [] }],
      'GET /v1/users/questionnaires/weight_loss/progress/': () => [200, { progress: { id: 'p', category: 'weight_loss', version: 'v1', data: [{ step_id: 1, question_key: 'weight_kg', value: 62 }], updated_at: '2026-11-01T00:00:00Z' }, emergency: null }],
      'PATCH /v1/users/questionnaires/weight_loss/progress/': (body) => [200, { progress: { id: 'p', category: 'weight_loss', version: 'v1', data: (body as { data: unknown[] }).data, updated_at: '2026-11-01T00:00:00Z' }, emergency: null }],
      'POST /v1/users/questionnaires/weight_loss/submit/': () => [
        200,
        {
          id: ID(95), category: 'weight_loss', category_id: 'cat', version: 'v1', outcome: 'ineligible', next_step: 'in_person_care',
          message: 'Your BMI is below the threshold. Please see your family doctor.',
          treatments: [], reasons: [{ code: 'wl_bmi_low', kind: 'ineligible', source: 'SmPC', treatments: [], message: 'Your BMI is below the threshold.' }], cautions: [],
          alternative: { code: 'general_practitioner', message: 'Please see your family doctor.' }, emergency: null, created_at: '2026-11-05T10:00:00Z',
        },
      ],
    });
    render(wrap(<Questionnaire slug="weight_loss" />));
    fireEvent.click(await screen.findByRole('button', { name: 'Submit for review' }));
    await screen.findByRole('heading', { name: 'This treatment is not suitable for you' });
    // Once each: no sentence repeated (the message is the reason plus the alternative).
    expect(screen.getAllByText(/below the threshold/)).toHaveLength(1);
    expect(screen.getAllByText(/family doctor/)).toHaveLength(1);
    expect(screen.getByText('This result is kept in your consultation history.')).toBeTruthy();
    expect(screen.getByText(/a doctor reviews your request and sees your earlier answers/)).toBeTruthy();

    fireEvent.click(screen.getByRole('button', { name: 'Correct my answers' }));
    // The wizard is back with the submitted answers as a new draft, and the hold explained on top.
    await screen.findByTestId('hold-notice');
    expect((screen.getByLabelText(/Your weight/) as HTMLInputElement).value).toBe('62');
    await waitFor(() => expect(sent.filter((s) => s.key === 'PATCH /v1/users/questionnaires/weight_loss/progress/').at(-1)?.body).toEqual({ data: [{ step_id: 1, question_key: 'weight_kg', value: 62 }] }));
  });
});

describe('paying for an earlier outcome (home\'s pay step)', () => {
  const routes = (latestId: string): Record<string, Route> => ({
    ...catalogue,
    'GET /v1/users/profile/': () => [200, { first_name: 'Ada', last_name: 'Test', date_of_birth: '1985-01-01', gender: '1', country_of_residence: 'DEU' }],
    'GET /v1/users/questionnaires/submissions/': () => [200, page([outcome({ id: latestId, category: 'weight_loss', outcome: 'held_for_review', reasons: [], alternative: null, treatments: ['semaglutide'] })])],
  });
  it('opens the result of the latest held outcome with the treatments it allows, without answering again', async () => {
    signIn();
    window.history.replaceState(null, '', `/questionnaire/weight_loss?pay=${ID(85)}`);
    const sent = serve(routes(ID(85)));
    render(wrap(<Questionnaire slug="weight_loss" />));
    await screen.findByRole('heading', { name: 'A doctor will look at your answers' });
    expect(screen.getByRole('radio', { name: 'Semaglutide (Wegovy) pen' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Continue to payment' })).toBeTruthy();
    expect(sent.some((x) => x.key.includes('/progress/'))).toBe(false);
  });
  it('a replaced outcome cannot be paid: the page says so', async () => {
    signIn();
    window.history.replaceState(null, '', `/questionnaire/weight_loss?pay=${ID(84)}`);
    serve(routes(ID(85)));
    render(wrap(<Questionnaire slug="weight_loss" />));
    await screen.findByText(/This result can no longer be paid/);
    expect(screen.queryByRole('button', { name: 'Continue to payment' })).toBeNull();
  });
});

describe('journal', () => {
  it('percentage lost and next injection day (pure)', () => {
    expect(percentLost([{ logged_on: '2026-11-01', weight_kg: 100 }, { logged_on: '2026-11-20', weight_kg: 92.5 }])).toBe(7.5);
    expect(percentLost([{ logged_on: '2026-11-20', weight_kg: 102 }, { logged_on: '2026-11-01', weight_kg: 100 }])).toBe(-2);
    expect(percentLost([{ logged_on: '2026-11-01', weight_kg: 100 }])).toBeNull();
    // Thursday 26 Nov 2026; plan on Mondays (0): next Monday 30 Nov; injected today: still Monday.
    const now = new Date('2026-11-26T12:00:00Z');
    expect(nextInjectionOn({ anchor_weekday: 0, starts_on: '2026-10-01', active: true }, null, now)).toBe('2026-11-30');
    expect(nextInjectionOn({ anchor_weekday: 3, starts_on: '2026-10-01', active: true }, null, now)).toBe('2026-11-26');
    expect(nextInjectionOn({ anchor_weekday: 3, starts_on: '2026-10-01', active: true }, '2026-11-26T08:00:00Z', now)).toBe('2026-12-03');
    expect(nextInjectionOn({ anchor_weekday: 3, starts_on: '2026-10-01', active: false }, null, now)).toBeNull();
  });

  it('shows the goal and the percentage lost, the next injection, and logs the plan’s medication and dose (in Spanish)', async () => {
    signIn();
    const sent = serve({
      ...catalogue,
      'GET /v1/users/journal/goal/': () => [200, { goal_weight_kg: 85, updated_at: '2026-11-20T08:00:00.000Z' }],
      'PUT /v1/users/journal/goal/': (body) => [200, { ...(body as object), updated_at: '2026-11-26T08:00:00.000Z' }],
      'GET /v1/users/journal/weight-entries/': () => [200, page([{ id: 'w2', weight_kg: 95, logged_on: '2026-11-20', note: '', verified_at: '2026-11-20T10:00:00Z' }, { id: 'w1', weight_kg: 100, logged_on: '2026-11-01', note: '', verified_at: null }])],
      'GET /v1/users/journal/injections/': () => [200, page([])],
      'GET /v1/users/subscriptions/': () => [200, page([plan()])],
      'GET /v1/users/journal/injection-plan/': () => [200, { id: 'ip', created_at: '', updated_at: 'u', medication: '', anchor_weekday: 0, preferred_time: '09:00', starts_on: '2026-01-01', active: true }],
      'GET /v1/users/journal/notes/': () => [200, page([])],
      'GET /v1/users/journal/side-effects/': () => [200, page([])],
      'POST /v1/users/journal/injections/': (body) => [201, { id: 'i1', created_at: '', updated_at: '', note: '', ...(body as object), emergency: null }],
    });
    TREATMENTS.es = { semaglutide: 'Semaglutida (Wegovy) pluma' };
    TITLES.es = { weight_loss: 'Pérdida de peso' };
    render(wrap(<Journal />, 'es'));
    expect((await screen.findByTestId('percent-lost')).textContent).toContain('5 % perdido');
    expect((await screen.findByTestId('goal-line')).textContent).toBe('Objetivo 85 kg');
    // A weight a doctor verified from a photo on the scales is marked; a typed one is not.
    expect(screen.getAllByText('verificado por un médico')).toHaveLength(1);
    // The goal is the service's (it follows the patient to another device): a new one is sent with PUT.
    const goalField = screen.getByRole('spinbutton', { name: /Peso objetivo/ }) as HTMLInputElement;
    expect(goalField.value).toBe('85');
    fireEvent.change(goalField, { target: { value: '82,5' } });
    fireEvent.submit(goalField.closest('form')!);
    await waitFor(() => expect(sent.find((s) => s.key === 'PUT /v1/users/journal/goal/')?.body).toEqual({ goal_weight_kg: 82.5 }));
    await waitFor(() => expect(screen.getByTestId('goal-line').textContent).toBe('Objetivo 82.5 kg'));
    expect((await screen.findByTestId('next-injection')).textContent).toMatch(/^Próxima inyección: /);
    const med = (await screen.findByRole('combobox', { name: 'Medicamento' })) as HTMLSelectElement;
    await waitFor(() => expect(med.selectedOptions[0]!.textContent).toBe('Semaglutida (Wegovy) pluma'));
    expect((screen.getByRole('textbox', { name: /Dosis/ }) as HTMLInputElement).value).toBe('0.25 mg');
    expect(screen.getByRole('option', { name: 'Vientre' })).toBeTruthy(); // not "Abdomen"
    fireEvent.change(screen.getByLabelText('Fecha y hora'), { target: { value: '2026-11-23T09:00' } });
    fireEvent.click(screen.getByRole('button', { name: 'Registrar una inyección' }));
    await waitFor(() => expect(sent.some((s) => s.key === 'POST /v1/users/journal/injections/')).toBe(true));
    const body = sent.find((s) => s.key === 'POST /v1/users/journal/injections/')!.body as Record<string, unknown>;
    expect(body).toMatchObject({ medication: 'Semaglutida (Wegovy) pluma', dose: '0.25 mg', injection_site: 'abdomen' });
    delete TREATMENTS.es;
    delete TITLES.es;
  });
});

describe('messages', () => {
  it('an attachment shows its name and an image preview; text typed while sending stays', async () => {
    signIn();
    const URL_ = `/v1/users/conversations/${ID(30)}/messages/`;
    const msgs = [{ id: ID(31), sender_type: 'DOCTOR', content: 'See the photo', file: `http://x${URL_}${ID(31)}/file/`, created_at: '2026-11-05T10:00:00Z' }];
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    vi.stubGlobal('URL', Object.assign(globalThis.URL, { createObjectURL: () => 'blob:preview', revokeObjectURL: () => undefined }));
    const sent = serve({
      'GET /v1/users/conversations/': () => [200, page([{ id: ID(30), unread_count: 0 }])],
      [`GET ${URL_}`]: () => [200, msgs],
      [`GET ${URL_}${ID(31)}/file/`]: () => [200, new Blob([new Uint8Array([137, 80, 78, 71])], { type: 'image/png' }), { 'content-type': 'image/png', 'content-disposition': 'attachment; filename="rash-photo.png"' }],
      [`POST ${URL_}`]: async () => {
        await gate;
        return [201, { id: ID(32), sender_type: 'USER', content: 'first', file: null, created_at: '2026-11-05T11:00:00Z', emergency: null }];
      },
    });
    render(wrap(<Messages />));
    await screen.findByRole('button', { name: 'Download attachment rash-photo.png' });
    expect((await screen.findByRole('img', { name: 'Preview of rash-photo.png' })).getAttribute('src')).toBe('blob:preview');

    const box = screen.getByLabelText('Your message') as HTMLTextAreaElement;
    fireEvent.change(box, { target: { value: 'first' } });
    fireEvent.click(screen.getByRole('button', { name: 'Send' }));
    await waitFor(() => expect(sent.some((s) => s.key === `POST ${URL_}`)).toBe(true));
    fireEvent.change(box, { target: { value: 'first and a second thought' } }); // typed while it sends
    release();
    await waitFor(() => expect(box.value).toBe('and a second thought'));
    expect(sent.find((s) => s.key === `POST ${URL_}`)!.body).toEqual({ content: 'first' });
  });
});
