// The clinician desk against stand-in API answers (no network): the queue keeps the server's order,
// the consultation page shows a renewal's choice, the engine's check and the weight trend, and an
// approval outside the engine's verdict asks for a written reason and sends it.
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { I18nProvider, makeI18n } from '../src/i18n';
import { Desk, DeskConsultation, InboxConversation } from '../src/pages/desk';

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
    treatment_options: [{ id: 'semaglutide', name: 'Semaglutide pen', dosages: ['0.25 mg', '0.5 mg', '1 mg'], max_repeats: 0 }],
    prescribing_check: { evaluated_at: '2026-11-20T10:00:00Z', ok: false, reason_codes: ['DOSE_STEP_TOO_EARLY'], allowed_treatments: ['semaglutide'], allowed_dosages: ['0.25 mg'], explanation: ['0.25 mg supplied for 2 week(s): stay on 0.25 mg.'] },
    prescribing_override: null,
    verification: {
      mode: 'optional',
      required: ['identity', 'weight'],
      missing: [],
      warning: null,
      identity: { status: 'verified', checked_at: '2026-11-01T10:00:00Z', id: null, mismatches: [] },
      weight: { status: 'verified', weight_kg: 104, verified_at: '2026-11-01T10:00:00Z', due_at: '2027-04-30T10:00:00Z' },
      duplicate_signals: [],
    },
    gp_sharing: { level: 'required', consent: true, gp_on_file: true, letter: null, override_reason: null },
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

  it('states repeats and the interval on approval (up to the medicine’s maximum); the API’s field error shows at the field', async () => {
    const answers: [number, unknown][] = [[400, { repeat_interval_days: ['The last repeat would fall after the prescription’s validity.'] }], [200, consultation({ status: 'approved' })]];
    const sent = serve({
      'GET /v1/clinician/consultations/': () => [
        200,
        consultation({
          dosage: '0.25 mg',
          treatment_options: [{ id: 'semaglutide', name: 'Semaglutide pen', dosages: ['0.25 mg', '0.5 mg', '1 mg'], max_repeats: 2 }],
          prescribing_check: { evaluated_at: '2026-11-20T10:00:00Z', ok: true, reason_codes: [], allowed_treatments: ['semaglutide'], allowed_dosages: ['0.25 mg'], explanation: [] },
        }),
      ],
      'GET /v1/users/questionnaires/': () => [200, { steps: [] }],
      'POST /v1/clinician/consultations/': () => answers.shift()!,
    });
    render(wrap(<DeskConsultation id="00000000-0000-4000-8000-000000000001" />));
    const repeats = (await screen.findByLabelText('Repeats')) as HTMLInputElement;
    expect(repeats.max).toBe('2');
    expect(screen.queryByLabelText('Minimum days between dispensings')).toBeNull();
    fireEvent.change(repeats, { target: { value: '2' } });
    fireEvent.change(screen.getByLabelText('Minimum days between dispensings'), { target: { value: '100' } });
    fireEvent.click(screen.getByRole('button', { name: 'Approve and prescribe' }));
    await screen.findByText('The last repeat would fall after the prescription’s validity.');
    fireEvent.change(screen.getByLabelText('Minimum days between dispensings'), { target: { value: '30' } });
    fireEvent.click(screen.getByRole('button', { name: 'Approve and prescribe' }));
    await screen.findByText('Decision saved.');
    const posts = sent.filter((x) => x.key.endsWith('/approve/'));
    expect(posts.map((p) => p.body)).toEqual([expect.objectContaining({ repeats: 2, repeat_interval_days: 100 }), expect.objectContaining({ repeats: 2, repeat_interval_days: 30 })]);
  });

  it('a medicine without repeats (or a plan’s consultation) sends none and says why', async () => {
    const sent = serve({
      'GET /v1/clinician/consultations/': () => [200, consultation({ dosage: '0.25 mg', prescribing_check: { evaluated_at: '2026-11-20T10:00:00Z', ok: true, reason_codes: [], allowed_treatments: ['semaglutide'], allowed_dosages: ['0.25 mg'], explanation: [] } })],
      'GET /v1/users/questionnaires/': () => [200, { steps: [] }],
      'POST /v1/clinician/consultations/': () => [200, consultation({ status: 'approved' })],
    });
    render(wrap(<DeskConsultation id="00000000-0000-4000-8000-000000000001" />));
    await screen.findByTestId('repeats-none');
    expect(screen.queryByLabelText('Repeats')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Approve and prescribe' }));
    await screen.findByText('Decision saved.');
    const post = sent.find((x) => x.key.endsWith('/approve/'))!.body as Record<string, unknown>;
    expect('repeats' in post || 'repeat_interval_days' in post).toBe(false);
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
    expect(screen.getByText(/by doctor abcdef12: Semaglutide pen 0.5 mg/)).toBeTruthy(); // the catalogue label, not the id
  });

  it('weight loss without the patient’s consent to write to their own doctor asks for a reason; a letter sent is shown', async () => {
    const sent = serve({
      'GET /v1/clinician/consultations/': () => [
        200,
        consultation({ dosage: '0.25 mg', gp_sharing: { level: 'required', consent: false, gp_on_file: false, letter: null, override_reason: null }, prescribing_check: { evaluated_at: '2026-11-20T10:00:00Z', ok: true, reason_codes: [], allowed_treatments: ['semaglutide'], allowed_dosages: ['0.25 mg'], explanation: [] } }),
      ],
      'GET /v1/users/questionnaires/': () => [200, { steps: [] }],
      'POST /v1/clinician/consultations/': () => [200, consultation({ status: 'approved' })],
    });
    render(wrap(<DeskConsultation id="00000000-0000-4000-8000-000000000001" />));
    await screen.findByText(/required for this category · no consent or no GP on file/);
    const approve = screen.getByRole('button', { name: 'Approve and prescribe' }) as HTMLButtonElement;
    expect(approve.disabled).toBe(true);
    fireEvent.change(screen.getByLabelText(/Why it is safe to prescribe without informing/), { target: { value: 'Patient has no GP since moving; monitored here monthly.' } });
    expect(approve.disabled).toBe(false);
    fireEvent.click(approve);
    await screen.findByText('Decision saved.');
    expect(sent.find((s) => s.key.endsWith('/approve/'))?.body).toMatchObject({ gp_sharing_override_reason: 'Patient has no GP since moving; monitored here monthly.' });
    cleanup();

    serve({
      'GET /v1/clinician/consultations/': () => [200, consultation({ status: 'approved', gp_sharing: { level: 'required', consent: true, gp_on_file: true, letter: { id: 'l1', status: 'sent', sent_at: '2026-11-20T11:00:00Z', withheld_reason: null }, override_reason: null } })],
      'GET /v1/users/questionnaires/': () => [200, { steps: [] }],
    });
    render(wrap(<DeskConsultation id="00000000-0000-4000-8000-000000000001" />));
    await screen.findByText(/consent given, GP on file · letter sent/);
  });
});

describe('desk: answers with the catalogue texts, earlier submissions side by side, conversations', () => {
  const schema = {
    version: 'v1',
    steps: [
      {
        step_id: 2,
        title: 'Health',
        questions: [
          { question_key: 'bph_5ari', type: 'boolean', text: 'Do you take a 5-alpha-reductase inhibitor for the prostate?', required: true },
          { question_key: 'hair_loss_pattern', type: 'single_choice', text: 'How did your hair loss start?', required: true, options: [{ value: 'gradual', label: 'Gradually' }, { value: 'sudden_or_patchy', label: 'Suddenly or in patches' }] },
        ],
      },
    ],
  };
  const held = () =>
    consultation({
      origin: 'checkout',
      category: 'hair_growth',
      renewal: null,
      prescribing_check: null,
      form_snapshot: [
        { step_id: 2, question_key: 'bph_5ari', value: false },
        { step_id: 2, question_key: 'hair_loss_pattern', value: 'gradual' },
      ],
      questionnaire_submission: { id: 's2', category: 'hair_growth', version: '00000000-0000-4000-8000-0000000000aa', outcome: 'held_for_review', eligibility: { reasons: [{ code: 'RESUBMITTED_AFTER_INELIGIBLE', message: 'Resubmitted at once' }], cautions: [] }, created_at: '2026-11-20T10:00:00Z' },
      earlier_submissions: [
        {
          id: 's1',
          outcome: 'ineligible',
          created_at: '2026-11-20T09:50:00Z',
          version_id: 'v1',
          reason_codes: ['SUDDEN_HAIR_LOSS'],
          changed_answers: [{ question_key: 'hair_loss_pattern', before: 'sudden_or_patchy', after: 'gradual', deciding: true }],
        },
      ],
    });

  it('shows no answer until the question texts have loaded, then the texts and option labels (no raw keys)', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((ok) => (release = ok));
    vi.stubGlobal(
      'fetch',
      vi.fn(async (req: Request) => {
        const path = new URL(req.url).pathname;
        if (path.includes('/schema/')) await gate;
        const body = path.startsWith('/v1/clinician/consultations/') ? held() : path.includes('/schema/') ? schema : { categories: [{ slug: 'hair_growth', title: 'Hair loss', description: '', price_from: { one_off_cents: 1, plan_cents: null, currency: 'EUR' } }] };
        return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
      }),
    );
    render(wrap(<DeskConsultation id="00000000-0000-4000-8000-000000000001" />));
    await waitFor(() => expect((fetch as unknown as { mock: { calls: unknown[] } }).mock.calls.length).toBeGreaterThanOrEqual(3));
    // The consultation is there, the texts are not yet: nothing of the answers is shown.
    expect(screen.queryByText('bph 5ari')).toBeNull();
    expect(screen.queryByRole('heading', { name: 'Answers' })).toBeNull();
    release();
    await screen.findByText('Do you take a 5-alpha-reductase inhibitor for the prostate?');
    expect(document.body.textContent).not.toMatch(/bph 5ari|bph_5ari|hair loss pattern/);
    expect(screen.getByRole('heading', { level: 1 }).textContent).toContain('Hair loss');
  });

  it('puts the earlier submission next to this one: one column each, the changed answer highlighted with its label', async () => {
    serve({
      'GET /v1/clinician/consultations/': () => [200, held()],
      'GET /v1/users/questionnaires/hair_growth/schema/': () => [200, schema],
      'GET /v1/users/questionnaires/categories/': () => [200, { categories: [] }],
    });
    render(wrap(<DeskConsultation id="00000000-0000-4000-8000-000000000001" />));
    const table = await screen.findByRole('table', { name: 'Answers that changed' });
    const heads = [...table.querySelectorAll('thead th')].map((th) => th.textContent ?? '');
    expect(heads).toHaveLength(3); // question, this submission, the earlier one
    expect(heads[2]).toContain('SUDDEN_HAIR_LOSS');
    const row = table.querySelector('tbody tr')!;
    expect([...row.children].map((c) => c.textContent)).toEqual(['How did your hair loss start?', 'Gradually', 'Suddenly or in patches']);
    expect(row.querySelector('mark')?.textContent).toBe('Suddenly or in patches');
    expect(row.className).toBe('urgent'); // the answer whose change held the consultation
    expect(screen.getByText('RESUBMITTED_AFTER_INELIGIBLE')).toBeTruthy();
  });

  it('names treatments in the desk’s language from the catalogue (the options’ own names are English)', async () => {
    serve({
      'GET /v1/clinician/consultations/': () => [200, held()],
      'GET /v1/users/questionnaires/hair_growth/schema/': () => [200, { ...schema, treatments: [{ treatment_id: 'semaglutide', name: 'Semaglutid-Pen' }] }],
      'GET /v1/users/questionnaires/categories/': () => [200, { categories: [] }],
    });
    render(<I18nProvider value={makeI18n('de')}>{<DeskConsultation id="00000000-0000-4000-8000-000000000001" />}</I18nProvider>);
    const option = await screen.findByRole('option', { name: 'Semaglutid-Pen' });
    expect(option.getAttribute('value')).toBe('semaglutide');
    expect(document.body.textContent).not.toContain('Semaglutide pen');
  });

  it('names the treatment with its dose once, and the plan and origin in words', async () => {
    serve({
      'GET /v1/clinician/consultations/': () => [200, held()],
      'GET /v1/users/questionnaires/hair_growth/schema/': () => [200, { ...schema, treatments: [{ treatment_id: 'semaglutide', name: 'Semaglutid-Pen 0.5 mg' }] }],
      'GET /v1/users/questionnaires/categories/': () => [200, { categories: [] }],
    });
    render(<I18nProvider value={makeI18n('de')}>{<DeskConsultation id="00000000-0000-4000-8000-000000000001" />}</I18nProvider>);
    const line = await screen.findByText(/^Semaglutid-Pen 0\.5 mg \(/);
    expect(line.textContent).toBe(`Semaglutid-Pen 0.5 mg (${makeI18n('de').t('desk.plan.subscription')}, ${makeI18n('de').t('desk.origin.checkout')})`);
  });

  it('a conversation names its patient', async () => {
    const conv = { id: '00000000-0000-4000-8000-0000000000c1', user: user('Ada'), flagged_at: null, last_message_sender_type: 'USER', last_message_created_at: '2026-11-20T10:00:00Z', unread_count: 0, created_at: '2026-11-19T10:00:00Z' };
    serve({
      'GET /v1/clinician/conversations/00000000-0000-4000-8000-0000000000c1/messages/': () => [200, [{ id: 'm1', sender: conv.user.id, sender_type: 'USER', content: 'Hello doctor', file: null, is_read: true, created_at: '2026-11-20T10:00:00Z' }]],
      'GET /v1/clinician/conversations/': () => [200, { count: 1, next: null, previous: null, results: [conv] }],
    });
    render(wrap(<InboxConversation id={conv.id} />));
    await screen.findByRole('heading', { level: 1, name: 'Conversations: Ada Test' });
    expect(screen.getByText('Hello doctor')).toBeTruthy();
  });

  it('attaches a file to a reply: sent as multipart (file + content) to the clinician route, then the thread reloads', async () => {
    const id = '00000000-0000-4000-8000-0000000000c2';
    const conv = { id, user: user('Ada'), flagged_at: null, last_message_sender_type: 'USER', last_message_created_at: '2026-11-20T10:00:00Z', unread_count: 0, created_at: '2026-11-19T10:00:00Z' };
    const posts: { contentType: string | null; form: FormData | null; json: unknown }[] = [];
    let reads = 0;
    // openapi-fetch calls fetch(Request); the multipart upload calls fetch(url, init).
    vi.stubGlobal(
      'fetch',
      vi.fn(async (input: Request | string, init?: RequestInit) => {
        const req = typeof input === 'string' ? new Request(input, init) : input;
        const path = new URL(req.url).pathname;
        const reply = (status: number, out: unknown) => new Response(JSON.stringify(out), { status, headers: { 'content-type': 'application/json' } });
        if (req.method === 'GET' && path === `/v1/clinician/conversations/${id}/messages/`) {
          reads += 1;
          return reply(200, [{ id: 'm1', sender: conv.user.id, sender_type: 'USER', content: 'Please send my report', file: null, is_read: true, created_at: '2026-11-20T10:00:00Z' }]);
        }
        if (req.method === 'GET' && path === '/v1/clinician/conversations/') return reply(200, { count: 1, next: null, previous: null, results: [conv] });
        if (req.method === 'POST' && path === `/v1/clinician/conversations/${id}/messages/`) {
          const contentType = req.headers.get('content-type');
          const multipart = contentType?.startsWith('multipart/form-data') ?? false;
          posts.push({ contentType, form: multipart ? await req.formData() : null, json: multipart ? null : await req.json() });
          return reply(201, conv);
        }
        return reply(404, {});
      }),
    );
    render(wrap(<InboxConversation id={id} />));
    await screen.findByText('Please send my report');
    const pdf = new File(['%PDF-1.4 report'], 'report.pdf', { type: 'application/pdf' });
    const input = screen.getByLabelText('Attach a file (PDF, JPEG, PNG, HEIC; max 10 MB)') as HTMLInputElement;
    fireEvent.change(input, { target: { files: [pdf] } });
    // With a file chosen the text is optional; here it is sent along.
    expect((screen.getByRole('textbox') as HTMLTextAreaElement).required).toBe(false);
    fireEvent.change(screen.getByRole('textbox'), { target: { value: 'Your report is attached.' } });
    fireEvent.click(screen.getByRole('button', { name: 'Send' }));
    await waitFor(() => expect(posts).toHaveLength(1));
    expect(posts[0]!.contentType).toMatch(/^multipart\/form-data; boundary=/);
    expect(posts[0]!.form!.get('content')).toBe('Your report is attached.');
    const sentFile = posts[0]!.form!.get('file') as File;
    expect(sentFile.name).toBe('report.pdf');
    expect(await sentFile.text()).toBe('%PDF-1.4 report');
    await waitFor(() => expect(reads).toBe(2));
    expect((screen.getByRole('textbox') as HTMLTextAreaElement).value).toBe('');

    // Without a file the reply is JSON, as before.
    fireEvent.change(screen.getByRole('textbox'), { target: { value: 'Anything else?' } });
    fireEvent.click(screen.getByRole('button', { name: 'Send' }));
    await waitFor(() => expect(posts).toHaveLength(2));
    expect(posts[1]!.contentType).toMatch(/^application\/json/);
    expect(posts[1]!.json).toEqual({ content: 'Anything else?' });
  });
});
