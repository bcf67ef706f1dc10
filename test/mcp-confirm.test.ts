// The connector's steps behind a confirmation: confirm_renewal and submit_questionnaire
// submit nothing before the patient says yes — through MCP elicitation when the client declares it,
// else in two steps with a short-lived, single-use confirmation token bound to the patient, the grant
// and the exact input. Over HTTP with the SDK's own client; cross-account with real ids; red flags.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WEIGHT_LOSS_RENEWAL_SAFETY } from './billing-fixtures.ts';
import { MCP_URL, MemoryProvider, connectAs, listen, patientWithPassword, type Fetch } from './mcp-support.ts';
import { FIXTURES } from './questionnaires.fixtures.ts';
import { TEST_BASE_URL, createTestContext, firstRow, type Patient, type TestContext } from './support/harness.ts';

let ctx: TestContext;
let f: Fetch;
beforeAll(async () => {
  ctx = await createTestContext();
  f = await listen(ctx);
});
afterAll(async () => ctx?.close());

const DAY = 86_400_000;
type Structured = Record<string, any>;

/** A patient (with a password, for the sign-in page) whose weight-loss plan has an open renewal waiting for their choice. */
async function withPendingRenewal(): Promise<{ p: Patient; renewalId: string }> {
  const p = await patientWithPassword(ctx);
  const now = ctx.deps.clock.now().getTime();
  const s = firstRow(await ctx.db.query(
    `insert into subscriptions (user_id, category, treatment_id, dosage, status, provider, price_cents, interval, interval_count, cycle_days,
       started_at, current_period_start, current_period_end)
     values ($1, 'weight_loss', 'semaglutide', '0.25 mg', 'active', 'sandbox', 21900, 'day', 28, 28, $2, $3, $4) returning id`,
    [p.id, new Date(now - 60 * DAY), new Date(now - 22 * DAY), new Date(now + 6 * DAY)],
  ));
  await ctx.db.query(
    "insert into consultations (user_id, category, status, origin, plan, supply_days, treatment_id, dosage, subscription_id, decided_at) values ($1, 'weight_loss', 'approved', 'checkout', 'subscription', 28, 'semaglutide', '0.25 mg', $2, $3)",
    [p.id, s.id, new Date(now - 60 * DAY)],
  );
  await ctx.deps.scheduler.runDue();
  const c = firstRow(await ctx.db.query("select id from consultations where user_id = $1 and origin = 'renewal'", [p.id]));
  return { p, renewalId: c.id as string };
}

const choiceOf = async (id: string) => firstRow(await ctx.db.query('select patient_choice_status from consultations where id = $1', [id])).patient_choice_status as string;
const connectorFlags = async (userId: string) => ctx.db.query("select kind, categories, source_id from red_flags where user_id = $1 and source = 'connector'", [userId]);

async function call(client: Client, name: string, args: Record<string, unknown>) {
  const r = await client.callTool({ name, arguments: args });
  return { isError: r.isError === true, s: (r.structuredContent ?? {}) as Structured, text: (r.content as { type: string; text: string }[]).map((c) => c.text).join('\n') };
}

/** A second client of the same connection that declares form elicitation and answers every question with `answer`. */
async function elicitingClient(provider: MemoryProvider, answer: () => ElicitResult) {
  const client = new Client({ name: 'vitest-elicit', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
  const asked: string[] = [];
  client.setRequestHandler(ElicitRequestSchema, (req) => {
    asked.push(req.params.message);
    return answer();
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(MCP_URL), { authProvider: provider, fetch: f }));
  return { client, asked };
}

const renewalInput = (id: string, answers = WEIGHT_LOSS_RENEWAL_SAFETY) => ({ consultation_id: id, answers });
const CHEST_PAIN = WEIGHT_LOSS_RENEWAL_SAFETY.map((a) => (a.question_key === 'urgent_symptoms' ? { question_key: 'urgent_symptoms', values: { chest_pain: 1 } } : a));

describe('confirm_renewal in two steps (a client without elicitation)', () => {
  it('the first call submits nothing; the token confirms only that input, once, and only for its patient', async () => {
    const a = await withPendingRenewal();
    const b = await withPendingRenewal();
    const { client: ca } = await connectAs(f, a.p.email, new MemoryProvider('http://127.0.0.1:53682/callback', { name: 'A' }));
    const { client: cb } = await connectAs(f, b.p.email, new MemoryProvider('http://127.0.0.1:53683/callback', { name: 'B' }));

    const first = await call(ca, 'confirm_renewal', renewalInput(a.renewalId));
    expect(first.isError, first.text).toBe(false);
    expect(first.s).toMatchObject({ status: 'confirmation_required', emergency: null, renewal: null });
    expect(first.s.summary).toContain('weight_loss renewal');
    const token = first.s.confirmation_token as string;
    expect(token).toMatch(/^mcp_cf_/);
    expect(Date.parse(first.s.expires_at as string)).toBeGreaterThan(ctx.deps.clock.now().getTime());
    expect(await choiceOf(a.renewalId)).toBe('pending');
    // The token is stored hashed only.
    expect(await ctx.db.query('select 1 from mcp_confirmations where token_hash = $1', [token])).toHaveLength(0);

    // Other input with this token: refused, nothing confirmed (the token stays usable for its input).
    const other = await call(ca, 'confirm_renewal', { ...renewalInput(a.renewalId), dosage: '0.5 mg', confirm: token });
    expect(other.isError).toBe(true);
    expect(other.text).toMatch(/not valid for this input/);
    expect(await choiceOf(a.renewalId)).toBe('pending');

    // Patient B, on their own pending renewal with A's token: refused (another patient's token).
    const stolen = await call(cb, 'confirm_renewal', { ...renewalInput(b.renewalId), confirm: token });
    expect(stolen.isError).toBe(true);
    expect(stolen.text).toMatch(/not valid for this input/);
    expect(await choiceOf(b.renewalId)).toBe('pending');
    // Patient B with A's real renewal id (and A's token): not theirs, nothing confirmed, nothing told.
    const cross = await call(cb, 'confirm_renewal', { ...renewalInput(a.renewalId), confirm: token });
    expect(cross.isError).toBe(true);
    expect(cross.text).toMatch(/no pending renewal with this id/);
    expect(cross.text).not.toContain('semaglutide');
    const crossPreview = await call(cb, 'confirm_renewal', renewalInput(a.renewalId));
    expect(crossPreview.isError).toBe(true);
    expect(await choiceOf(a.renewalId)).toBe('pending');

    // The same input with the token: confirmed through the API's path (the engine's verdict).
    const done = await call(ca, 'confirm_renewal', { ...renewalInput(a.renewalId), confirm: token });
    expect(done.isError, done.text).toBe(false);
    expect(done.s).toMatchObject({ status: 'submitted', confirmation_token: null, renewal: { consultation_id: a.renewalId, patient_choice_status: 'confirmed', treatment_id: 'semaglutide' } });
    expect(await choiceOf(a.renewalId)).toBe('confirmed');
    // Single use.
    const again = await call(ca, 'confirm_renewal', { ...renewalInput(a.renewalId), confirm: token });
    expect(again.isError).toBe(true);
    const calls = await ctx.db.query("select outcome from mcp_tool_calls where user_id = $1 and tool = 'confirm_renewal'", [a.p.id]);
    expect(calls.map((c) => c.outcome as string).sort()).toEqual(['ok', 'ok', 'refused:400', 'refused:404']);
  });

  it('an expired token is refused', async () => {
    const a = await withPendingRenewal();
    const { client } = await connectAs(f, a.p.email, new MemoryProvider('http://127.0.0.1:53684/callback'));
    const first = await call(client, 'confirm_renewal', renewalInput(a.renewalId));
    await ctx.db.query("update mcp_confirmations set expires_at = now() - interval '1 second' where user_id = $1", [a.p.id]);
    const late = await call(client, 'confirm_renewal', { ...renewalInput(a.renewalId), confirm: first.s.confirmation_token });
    expect(late.isError).toBe(true);
    expect(await choiceOf(a.renewalId)).toBe('pending');
  });

  it('a red-flag answer: the emergency notice, the desk flag, no token and nothing confirmed', async () => {
    const a = await withPendingRenewal();
    const { client } = await connectAs(f, a.p.email, new MemoryProvider('http://127.0.0.1:53685/callback'));
    const r = await call(client, 'confirm_renewal', renewalInput(a.renewalId, CHEST_PAIN));
    expect(r.isError).toBe(false);
    expect(r.s).toMatchObject({ status: 'emergency', confirmation_token: null, renewal: null });
    expect(r.s.emergency).toMatchObject({ number: '112' });
    expect(r.s.emergency.message).toMatch(/passed to the medical team/);
    expect(r.text.startsWith('EMERGENCY: ')).toBe(true);
    expect(await connectorFlags(a.p.id)).toEqual([{ kind: 'emergency', categories: expect.arrayContaining([expect.any(String)]), source_id: a.renewalId }]);
    expect(await ctx.db.query('select 1 from mcp_confirmations where user_id = $1', [a.p.id])).toHaveLength(0);
    expect(await choiceOf(a.renewalId)).toBe('pending');
    // Free text with a red flag (the change note) stops it too.
    const words = await call(client, 'confirm_renewal', { ...renewalInput(a.renewalId), changed: true, change_note: 'I have crushing chest pain since this morning' });
    expect(words.s.status).toBe('emergency');
    expect(words.s.emergency).not.toBeNull();
    expect(await connectorFlags(a.p.id)).toHaveLength(2);
    expect(await choiceOf(a.renewalId)).toBe('pending');
  });
});

describe('confirm_renewal through elicitation (a client that declares it)', () => {
  it('the patient is asked in the call: accept submits, decline submits nothing', async () => {
    const yes = await withPendingRenewal();
    const py = new MemoryProvider('http://127.0.0.1:53686/callback');
    await connectAs(f, yes.p.email, py);
    const { client, asked } = await elicitingClient(py, () => ({ action: 'accept', content: { confirm: true } }));
    const r = await call(client, 'confirm_renewal', renewalInput(yes.renewalId));
    expect(r.isError, r.text).toBe(false);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('weight_loss renewal');
    expect(r.s).toMatchObject({ status: 'submitted', confirmation_token: null, renewal: { patient_choice_status: 'confirmed' } });
    expect(await choiceOf(yes.renewalId)).toBe('confirmed');

    const no = await withPendingRenewal();
    const pn = new MemoryProvider('http://127.0.0.1:53687/callback');
    await connectAs(f, no.p.email, pn);
    const declining = await elicitingClient(pn, () => ({ action: 'accept', content: { confirm: false } }));
    const d = await call(declining.client, 'confirm_renewal', renewalInput(no.renewalId));
    expect(declining.asked).toHaveLength(1);
    expect(d.s).toMatchObject({ status: 'not_submitted', confirmation_token: null, renewal: null });
    const cancel = await elicitingClient(pn, () => ({ action: 'cancel' }));
    expect((await call(cancel.client, 'confirm_renewal', renewalInput(no.renewalId))).s.status).toBe('not_submitted');
    expect(await choiceOf(no.renewalId)).toBe('pending');
    // Nothing was issued for a two-step confirmation.
    expect(await ctx.db.query('select 1 from mcp_confirmations where user_id = $1', [no.p.id])).toHaveLength(0);
  });

  it('an answer to no waiting call (or another connection’s) is 404', async () => {
    const a = await withPendingRenewal();
    const provider = new MemoryProvider('http://127.0.0.1:53688/callback');
    await connectAs(f, a.p.email, provider);
    const res = await f(`${TEST_BASE_URL}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', authorization: `Bearer ${provider.saved!.access_token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'srv_unknown', result: { action: 'accept', content: { confirm: true } } }),
    });
    expect(res.status).toBe(404);
    expect(await choiceOf(a.renewalId)).toBe('pending');
  });
});

describe('questionnaires: answer, save a draft, submit behind a confirmation', () => {
  it('two steps: the token confirms the draft as summarised; a draft saved again needs a new one; B cannot use it', async () => {
    const a = await patientWithPassword(ctx);
    const b = await patientWithPassword(ctx);
    const { client: ca } = await connectAs(f, a.email, new MemoryProvider('http://127.0.0.1:53689/callback'));
    const { client: cb } = await connectAs(f, b.email, new MemoryProvider('http://127.0.0.1:53690/callback'));

    const q = await call(ca, 'get_questionnaire', { category: 'weight_loss' });
    expect(q.isError, q.text).toBe(false);
    expect(q.s.steps.flatMap((st: Structured) => st.questions.map((x: Structured) => x.question_key))).toContain('height_cm');
    expect(q.s.draft.answers).toEqual([]);

    const partial = FIXTURES.weight_loss.eligible.slice(0, 3);
    const saved = await call(ca, 'save_questionnaire_draft', { category: 'weight_loss', data: partial });
    expect(saved.isError, saved.text).toBe(false);
    expect(saved.s).toMatchObject({ emergency: null });
    expect(saved.s.draft.answers).toHaveLength(3);
    expect((await call(ca, 'get_questionnaire', { category: 'weight_loss' })).s.draft.answers).toHaveLength(3);
    // B's draft is B's own: empty.
    expect((await call(cb, 'get_questionnaire', { category: 'weight_loss' })).s.draft.answers).toEqual([]);

    const first = await call(ca, 'submit_questionnaire', { category: 'weight_loss' });
    expect(first.s).toMatchObject({ status: 'confirmation_required', submission: null });
    const stale = first.s.confirmation_token as string;
    // The draft changes after the summary: the old token no longer confirms it.
    await call(ca, 'save_questionnaire_draft', { category: 'weight_loss', data: FIXTURES.weight_loss.eligible });
    const refused = await call(ca, 'submit_questionnaire', { category: 'weight_loss', confirm: stale });
    expect(refused.isError).toBe(true);
    expect(await ctx.db.query('select 1 from questionnaire_submissions where user_id = $1', [a.id])).toHaveLength(0);

    const second = await call(ca, 'submit_questionnaire', { category: 'weight_loss' });
    const token = second.s.confirmation_token as string;
    expect(second.s.summary).toContain(`${FIXTURES.weight_loss.eligible.length} answer(s)`);
    // B, with a draft of the same category, cannot use A's token.
    await call(cb, 'save_questionnaire_draft', { category: 'weight_loss', data: FIXTURES.weight_loss.eligible });
    expect((await call(cb, 'submit_questionnaire', { category: 'weight_loss', confirm: token })).isError).toBe(true);
    expect(await ctx.db.query('select 1 from questionnaire_submissions where user_id = $1', [b.id])).toHaveLength(0);

    const done = await call(ca, 'submit_questionnaire', { category: 'weight_loss', confirm: token });
    expect(done.isError, done.text).toBe(false);
    expect(done.s).toMatchObject({ status: 'submitted', emergency: null, submission: { outcome: 'eligible' } });
    const row = firstRow(await ctx.db.query('select id, outcome from questionnaire_submissions where user_id = $1', [a.id]));
    expect(row).toEqual({ id: done.s.submission.id, outcome: 'eligible' });
    expect((await call(ca, 'submit_questionnaire', { category: 'weight_loss', confirm: token })).isError).toBe(true);
  });

  it('a red-flag answer in a draft: the emergency notice and a desk flag; submitted behind elicitation, the emergency outcome flags it too', async () => {
    const p = await patientWithPassword(ctx);
    const provider = new MemoryProvider('http://127.0.0.1:53691/callback');
    await connectAs(f, p.email, provider);
    const { client, asked } = await elicitingClient(provider, () => ({ action: 'accept', content: { confirm: true } }));
    const saved = await call(client, 'save_questionnaire_draft', { category: 'weight_loss', data: FIXTURES.weight_loss.emergency });
    expect(saved.isError, saved.text).toBe(false);
    expect(saved.s.emergency).toMatchObject({ number: '112' });
    expect(saved.s.emergency.message).toMatch(/passed to the medical team/);
    expect(saved.text.startsWith('EMERGENCY: ')).toBe(true);
    expect(await connectorFlags(p.id)).toHaveLength(1);
    expect(asked).toHaveLength(0);

    const sub = await call(client, 'submit_questionnaire', { category: 'weight_loss' });
    expect(asked).toHaveLength(1);
    expect(sub.s).toMatchObject({ status: 'emergency', submission: { outcome: 'emergency' } });
    expect(sub.s.emergency).toMatchObject({ number: '112' });
    expect(await connectorFlags(p.id)).toHaveLength(2);
  });
});
