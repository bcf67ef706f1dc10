// The assistant connector end to end: the MCP SDK's own client with its OAuth client provider against
// the listening service (401 discovery -> metadata -> registration -> sign-in and consent pages ->
// token -> tools/list -> tools/call for every tool), the emergency notice, scopes, isolation between
// patients, the call record and the connected-apps API.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOLS } from '../src/modules/mcp/tools.ts';
import { decrypt } from '../src/lib/crypto.ts';
import { addSubmission, paySandbox, staff } from './billing-fixtures.ts';
import { MCP_URL, MemoryProvider, authorize, connect, connectAs, listen, patientWithPassword, type Fetch } from './mcp-support.ts';
import { call, createTestContext, type Patient, type TestContext, firstRow } from './support/harness.ts';

let ctx: TestContext;
let f: Fetch;
let a: Patient;
let b: Patient;
let clientA: Client;
let clientB: Client;
let providerA: MemoryProvider;
let consultationId: string;

beforeAll(async () => {
  ctx = await createTestContext();
  f = await listen(ctx);
  // Patient A: paid, approved by a doctor (consultation, payment, subscription, prescription, order, active plan).
  a = await patientWithPassword(ctx, { country_of_residence: 'GBR', locale: 'en' });
  await addSubmission(ctx, a.id, 'weight_loss');
  const paid = await paySandbox(ctx, a);
  consultationId = paid.session.consultation_id ?? (await ctx.db.query('select id from consultations where user_id = $1', [a.id]))[0]?.id;
  const doctor = await staff(ctx, 'doctor');
  const detail = await call(ctx, 'GET', `/v1/clinician/consultations/${consultationId}/`, { token: doctor.access });
  const t = detail.body.treatment_options[0];
  const approved = await call(ctx, 'POST', `/v1/clinician/consultations/${consultationId}/approve/`, { token: doctor.access, json: { treatment_id: t.id, dosage: t.dosages[0], note: 'Start low.', gp_sharing_override_reason: 'No regular doctor named; monitored by this service at each renewal.' } });
  if (approved.status !== 200) throw new Error(`approve ${approved.status} ${approved.text}`);
  await call(ctx, 'POST', '/v1/users/journal/weight-entries/', { token: a.access, json: { weight_kg: 101.5, logged_on: '2026-01-05', note: 'A-private-weight' } });
  const conv = await call(ctx, 'GET', '/v1/users/conversations/', { token: a.access });
  await call(ctx, 'POST', `/v1/users/conversations/${conv.body.results[0].id}/messages/`, { token: a.access, json: { content: 'A-private-message' } });
  // Patient B: no records of its own.
  b = await patientWithPassword(ctx);
  ({ client: clientA, provider: providerA } = await connectAs(f, a.email));
  ({ client: clientB } = await connectAs(f, b.email));
}, 240_000);

afterAll(async () => {
  await clientA?.close();
  await clientB?.close();
  await ctx?.close();
});

const structured = (r: any) => r.structuredContent as any;

describe('the whole flow through the SDK client', () => {
  it('registered the client dynamically, got a bound token pair, and lists every tool with input and output schemas', async () => {
    expect(providerA.info?.client_id).toMatch(/^mcp_/);
    expect(providerA.saved).toMatchObject({ token_type: 'Bearer', scope: 'patient:read journal:write messages:write treatment:write' });
    expect(providerA.saved!.access_token).toMatch(/^mcp_at_/);
    expect(providerA.saved!.refresh_token).toMatch(/^mcp_rt_/);
    const { tools } = await clientA.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(TOOLS.map((t) => t.name).sort());
    for (const t of tools) {
      expect(t.inputSchema.type, t.name).toBe('object');
      expect(t.outputSchema?.type, t.name).toBe('object');
      expect(t.description, t.name).toMatch(/scope: /);
    }
    expect(clientA.getServerVersion()?.name).toBe('patient-treatment-service');
  });

  it('reads the profile summary, consultations, prescriptions and orders, payments and subscriptions', async () => {
    const profile = structured(await clientA.callTool({ name: 'get_profile_summary', arguments: {} }));
    expect(profile).toMatchObject({ id: a.id, email: a.email, country_of_residence: 'GBR' });
    expect(profile).not.toHaveProperty('document_number');
    // Verification: statuses only, never an image or what a document said (docs/verification.md).
    expect(profile.verification).toEqual({ identity_status: 'not_started', weight_status: 'not_started', weight_due_at: null, missing_by_category: expect.objectContaining({ weight_loss: ['identity', 'weight'], hair_growth: ['identity'] }) });

    const cons = await clientA.callTool({ name: 'list_consultations', arguments: {} });
    expect(structured(cons).count).toBe(1);
    expect(structured(cons).results[0]).toMatchObject({ id: consultationId, status: 'approved', category: 'weight_loss', decision_reason: 'Start low.' });
    expect((cons.content as any)[0].text).toMatch(/1 consultation/);

    const rx = structured(await clientA.callTool({ name: 'list_prescriptions_and_orders', arguments: {} }));
    expect(rx.prescriptions.count).toBe(1);
    expect(rx.prescriptions.results[0].consultation_id).toBe(consultationId);
    expect(rx.orders).toHaveLength(1);
    expect(rx.orders[0].prescription_id).toBe(rx.prescriptions.results[0].id);

    const pay = structured(await clientA.callTool({ name: 'list_payments', arguments: {} }));
    expect(pay.count).toBe(1);
    expect(pay.results[0]).toMatchObject({ status: 'succeeded', currency: 'EUR' });
    expect(pay.results[0].amount_cents).toBeGreaterThan(0);
    expect(JSON.stringify(pay)).not.toMatch(/invoice/);

    const subs = structured(await clientA.callTool({ name: 'get_subscriptions', arguments: {} }));
    expect(subs.count).toBe(1);
    expect(subs.results[0]).toMatchObject({ category: 'weight_loss', status: 'active', dosage: expect.any(String) });
    expect(subs.renewal_options[0].category).toBe('weight_loss');
    expect(['pending_choice', 'early_order', 'express_reorder', 'blocked']).toContain(subs.renewal_options[0].mode);
  });

  it('reads messages, the journal and the questionnaire catalogue', async () => {
    const msgs = structured(await clientA.callTool({ name: 'get_messages', arguments: {} }));
    expect(msgs.messages.map((m: any) => m.content)).toContain('A-private-message');
    const j = structured(await clientA.callTool({ name: 'get_journal', arguments: {} }));
    expect(j.weights.results[0]).toMatchObject({ weight_kg: 101.5, logged_on: '2026-01-05', note: 'A-private-weight' });
    expect(j.plan).toHaveProperty('anchor_weekday');
    const cat = structured(await clientA.callTool({ name: 'list_questionnaires', arguments: {} }));
    expect(cat.categories.map((c: any) => c.slug)).toContain('weight_loss');
    expect(cat.categories.find((c: any) => c.slug === 'weight_loss').treatments.length).toBeGreaterThan(0);
  });

  it('writes a weight, an injection, a note and a message, each visible through the /v1/ API', async () => {
    const w = await clientA.callTool({ name: 'log_weight', arguments: { weight_kg: 99.2, logged_on: '2026-01-12' } });
    expect(structured(w)).toMatchObject({ emergency: null, created: true, entry: { weight_kg: 99.2, logged_on: '2026-01-12' } });
    const inj = await clientA.callTool({ name: 'log_injection', arguments: { dose: '0.25 mg', injected_at: '2026-01-12T08:00:00+01:00', injection_site: 'thigh' } });
    expect(structured(inj).entry).toMatchObject({ dose: '0.25 mg', injection_site: 'thigh' });
    const note = await clientA.callTool({ name: 'add_journal_note', arguments: { content: 'Felt fine today.' } });
    expect(structured(note)).toMatchObject({ emergency: null, note: { content: 'Felt fine today.' } });
    const msg = await clientA.callTool({ name: 'send_message', arguments: { content: 'Question about my next dose.' } });
    expect(structured(msg)).toMatchObject({ emergency: null, message: { content: 'Question about my next dose.', sender_type: 'USER' } });

    const weights = await call(ctx, 'GET', '/v1/users/journal/weight-entries/', { token: a.access });
    expect(weights.body.results.map((r: any) => r.logged_on)).toContain('2026-01-12');
    const injections = await call(ctx, 'GET', '/v1/users/journal/injections/', { token: a.access });
    expect(injections.body.results[0].dose).toBe('0.25 mg');
    const notes = await call(ctx, 'GET', '/v1/users/journal/notes/', { token: a.access });
    expect(notes.body.results[0].content).toBe('Felt fine today.');
    const conv = await call(ctx, 'GET', '/v1/users/conversations/', { token: a.access });
    expect(conv.body.results[0].last_message.content).toBe('Question about my next dose.');
  });

  it('puts the emergency notice with the country’s number first when a message or journal text is flagged', async () => {
    const msg = await clientA.callTool({ name: 'send_message', arguments: { content: 'I have chest pain since this morning' } });
    expect(Object.keys(structured(msg))[0]).toBe('emergency');
    expect(structured(msg).emergency.number).toBe('999');
    expect((msg.content as any)[0].text).toMatch(/^EMERGENCY: .*999/);
    // Bodies are sealed at rest (docs/privacy.md): the row is found by its opened content.
    const rows = await ctx.db.query('select flagged_emergency, content_enc from messages where content_enc is not null');
    const row = firstRow(rows.filter((r) => decrypt(ctx.deps.secrets.documentKeys, r.content_enc) === 'I have chest pain since this morning'));
    expect(row.flagged_emergency).toBe(true);

    const note = await clientA.callTool({ name: 'add_journal_note', arguments: { content: 'I feel suicidal tonight' } });
    expect(structured(note).emergency).toMatchObject({ number: '999' });
    expect((note.content as any)[0].text).toMatch(/^EMERGENCY: .*999/);
    const weight = await clientA.callTool({ name: 'log_weight', arguments: { weight_kg: 98, note: 'difficulty breathing after the injection' } });
    expect(structured(weight).emergency.number).toBe('999');
  });

  it('get_privacy_record: who read the record (a doctor opening the consultation), the connected assistants, the account page; nothing of another patient', async () => {
    const doctor = await staff(ctx, 'doctor');
    expect((await call(ctx, 'GET', `/v1/clinician/consultations/${consultationId}/`, { token: doctor.access })).status).toBe(200);
    const mine = structured(await clientA.callTool({ name: 'get_privacy_record', arguments: {} }));
    expect(mine.access_log.count).toBeGreaterThan(0);
    expect(mine.access_log.results).toContainEqual(expect.objectContaining({ actor_role: 'doctor', action: 'read', resource_type: 'consultation', resource_id: consultationId }));
    expect(mine.connected_assistants.some((g: { revoked_at: string | null }) => g.revoked_at === null)).toBe(true);
    expect(mine.page_url).toMatch(/\/profile$/);
    const theirs = structured(await clientB.callTool({ name: 'get_privacy_record', arguments: {} }));
    expect(theirs.access_log.results.map((r: { resource_id: string }) => r.resource_id)).not.toContain(consultationId);
  });

  it('answers a service refusal as a tool error, and invalid arguments without running the tool', async () => {
    const noPlan = await clientB.callTool({ name: 'get_journal', arguments: {} });
    expect(noPlan.isError).toBe(true);
    expect((noPlan.content as any)[0].text).toMatch(/active treatment plan/);
    const bad = await clientA.callTool({ name: 'log_weight', arguments: { weight_kg: 5 } });
    expect(bad.isError).toBe(true);
    const badTime = await clientA.callTool({ name: 'log_injection', arguments: { dose: '1 mg', injected_at: '2026-01-12 08:00' } });
    expect(badTime.isError).toBe(true);
    expect((badTime.content as any)[0].text).toMatch(/UTC offset/);
  });

  it('tools: past weights without a plan, document links, side-effect reports, the next injection day', async () => {
    const mine = structured(await clientA.callTool({ name: 'get_weights', arguments: {} }));
    expect(mine.results.map((w: any) => w.logged_on)).toContain('2026-01-05');
    // B has no active plan: get_journal refuses, get_weights answers (B has none of A's weights).
    const theirs = await clientB.callTool({ name: 'get_weights', arguments: {} });
    expect(theirs.isError).toBeFalsy();
    expect(structured(theirs)).toEqual({ count: 0, results: [] });

    const links = structured(await clientA.callTool({ name: 'get_document_links', arguments: {} }));
    expect(links.invoices).toHaveLength(1);
    expect(links.invoices[0].api_url).toMatch(/\/v1\/users\/payments\/[0-9a-f-]+\/invoice\/$/);
    expect(links.invoices[0].page_url).toMatch(/\/payments$/);
    expect(links.prescriptions).toHaveLength(1);
    expect(links.prescriptions[0].api_url).toMatch(/\/pdf\/$/);
    expect(structured(await clientB.callTool({ name: 'get_document_links', arguments: {} }))).toMatchObject({ invoices: [], prescriptions: [] });

    const mild = await clientA.callTool({ name: 'report_side_effect', arguments: { symptom: 'Mild nausea', severity: 'mild' } });
    expect(structured(mild)).toMatchObject({ emergency: null, report: { symptom: 'Mild nausea', severity: 'mild', flagged: false } });
    const severe = await clientA.callTool({ name: 'report_side_effect', arguments: { symptom: 'chest pain', severity: 'severe' } });
    expect(structured(severe).emergency.number).toBe('999');
    expect(structured(severe).report.flagged).toBe(true);
    // B was never prescribed anything: refused by the journal's rule.
    expect((await clientB.callTool({ name: 'report_side_effect', arguments: { symptom: 'x', severity: 'mild' } })).isError).toBe(true);

    const j = structured(await clientA.callTool({ name: 'get_journal', arguments: {} }));
    expect(j.next_injection_on).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const weekday = (new Date(`${j.next_injection_on}T00:00:00Z`).getUTCDay() + 6) % 7;
    expect(weekday).toBe(j.plan.anchor_weekday);
  });

  it('a red flag in any tool input answers with the notice and raises the desk flag', async () => {
    const before = (await ctx.db.query("select count(*)::int as n from red_flags where user_id = $1 and source = 'connector'", [a.id]))[0]!.n;
    const r = await clientA.callTool({ name: 'get_subscriptions', arguments: { category: 'I want to kill myself' } });
    expect((r.content as any)[0].text).toMatch(/^EMERGENCY: .*999/);
    const after = (await ctx.db.query("select count(*)::int as n from red_flags where user_id = $1 and source = 'connector'", [a.id]))[0]!.n;
    expect(after).toBe(before + 1);
    // No red flag: no notice, nothing on the desk.
    const calm = await clientA.callTool({ name: 'get_subscriptions', arguments: { category: 'weight_loss' } });
    expect(JSON.stringify(calm.content)).not.toMatch(/EMERGENCY/);
    expect((await ctx.db.query("select count(*)::int as n from red_flags where user_id = $1 and source = 'connector'", [a.id]))[0]!.n).toBe(after);
  });

  it('annotates the tools truthfully: get_messages marks read, log_weight overwrites, send_message reaches people', async () => {
    const { tools } = await clientA.listTools();
    const by = new Map(tools.map((t) => [t.name, t.annotations]));
    expect(by.get('get_messages')).toMatchObject({ readOnlyHint: false, idempotentHint: true });
    expect(by.get('log_weight')).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(by.get('send_message')).toMatchObject({ readOnlyHint: false, openWorldHint: true });
    expect(by.get('list_payments')).toMatchObject({ readOnlyHint: true, destructiveHint: false, openWorldHint: false });
  });

  it('the questionnaire and renewal tools (their confirmation steps: test/mcp-confirm.test.ts)', async () => {
    expect(structured(await clientA.callTool({ name: 'get_questionnaire', arguments: { category: 'hair_growth' } })).category).toBe('hair_growth');
    const saved = structured(await clientA.callTool({ name: 'save_questionnaire_draft', arguments: { category: 'hair_growth', data: [{ step_id: 2, question_key: 'hair_loss_pattern', value: 'gradual' }] } }));
    expect(saved.draft.answers).toHaveLength(1);
    expect(structured(await clientA.callTool({ name: 'submit_questionnaire', arguments: { category: 'hair_growth' } })).status).toBe('confirmation_required');
    // A has no pending renewal: refused, nothing offered.
    const r = await clientA.callTool({ name: 'confirm_renewal', arguments: { consultation_id: consultationId, answers: [] } });
    expect(r.isError).toBe(true);
  });

  it('get_health_summary: the FHIR patient summary as text (the prescription, the weights), nothing of another patient', async () => {
    const r = await clientA.callTool({ name: 'get_health_summary', arguments: {} });
    const mine = structured(r);
    expect(mine.sections.map((s: { loinc: string }) => s.loinc)).toEqual(expect.arrayContaining(['10160-0', '48765-2', '11450-4', '8716-3', '46240-8']));
    const meds = mine.sections.find((s: { loinc: string }) => s.loinc === '10160-0');
    expect(meds.items).toHaveLength(1);
    expect(meds.items[0]).toMatch(/semaglutide|tirzepatide/i);
    expect(mine.sections.find((s: { loinc: string }) => s.loinc === '8716-3').items).toContain('Body weight: 101.5 kg (2026-01-05)');
    expect((r.content as any)[0].text).toBe(mine.text);
    expect(mine.text).toContain('Medication summary:');
    const theirs = structured(await clientB.callTool({ name: 'get_health_summary', arguments: {} }));
    expect(theirs.sections.find((s: { loinc: string }) => s.loinc === '10160-0').items).toEqual([]);
    expect(JSON.stringify(theirs)).not.toMatch(/101\.5|semaglutide|tirzepatide/i);
  });

  it('records every call (patient, client, tool, time, outcome) without content', async () => {
    const rows = await ctx.db.query('select * from mcp_tool_calls where user_id = $1 order by called_at', [a.id]);
    const tools = new Set(rows.map((r) => r.tool));
    for (const t of TOOLS) expect(tools.has(t.name), t.name).toBe(true);
    expect(rows.every((r) => r.client_id === providerA.info!.client_id)).toBe(true);
    expect(rows.some((r) => r.outcome === 'refused:400')).toBe(true);
    expect(Object.keys(rows[0] ?? {}).sort()).toEqual(['called_at', 'client_id', 'grant_id', 'id', 'outcome', 'tool', 'user_id']);
    expect(JSON.stringify(rows)).not.toMatch(/chest pain|Felt fine/);
  });
});

describe('isolation between patients', () => {
  it('patient B’s connector never sees A’s records', async () => {
    const outputs = [];
    for (const name of ['get_profile_summary', 'list_consultations', 'list_prescriptions_and_orders', 'list_payments', 'get_subscriptions', 'get_messages']) {
      const r = await clientB.callTool({ name, arguments: {} });
      expect(r.isError, name).toBeFalsy();
      outputs.push(JSON.stringify(r));
    }
    const all = outputs.join('\n');
    expect(all).not.toContain(a.id);
    expect(all).not.toContain(a.email);
    expect(all).not.toContain(consultationId);
    expect(all).not.toContain('A-private');
    expect(structured(await clientB.callTool({ name: 'list_consultations', arguments: {} })).count).toBe(0);
    expect(structured(await clientB.callTool({ name: 'get_profile_summary', arguments: {} })).id).toBe(b.id);
  });
});

describe('scopes', () => {
  it('a read-only token lists the tools, reads, and gets the step-up 403 naming the scope for a write', async () => {
    const p = await patientWithPassword(ctx);
    // The SDK asks for every scope the resource metadata lists: a read-only client is driven by hand.
    const reg = await f(`${MCP_URL.replace('/mcp', '')}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:9/cb'], token_endpoint_auth_method: 'none', client_name: 'Reader' }),
    }).then((r) => r.json());
    const verifier = 'v'.repeat(64);
    const { createHash } = await import('node:crypto');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const url = new URL(`${MCP_URL.replace('/mcp', '')}/oauth/authorize`);
    url.search = new URLSearchParams({ response_type: 'code', client_id: reg.client_id, redirect_uri: 'http://127.0.0.1:9/cb', code_challenge: challenge, code_challenge_method: 'S256', scope: 'patient:read', resource: MCP_URL, state: 's1' }).toString();
    const flow = await authorize(f, url, p.email);
    expect(flow.signIn!.html).toContain('patient:read');
    expect(flow.signIn!.html).not.toContain('journal:write');
    const tok = await f(`${MCP_URL.replace('/mcp', '')}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: flow.code!, code_verifier: verifier, redirect_uri: 'http://127.0.0.1:9/cb', client_id: reg.client_id, resource: MCP_URL }),
    }).then((r) => r.json());
    expect(tok.scope).toBe('patient:read');
    const rpc = (body: unknown) =>
      f(MCP_URL, { method: 'POST', headers: { authorization: `Bearer ${tok.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' }, body: JSON.stringify(body) });
    const read = await rpc({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_profile_summary', arguments: {} } });
    expect(read.status).toBe(200);
    expect((await read.json()).result.structuredContent.id).toBe(p.id);
    // The health summary is a read: patient:read is enough.
    const summary = await rpc({ jsonrpc: '2.0', id: 11, method: 'tools/call', params: { name: 'get_health_summary', arguments: {} } });
    expect(summary.status).toBe(200);
    expect((await summary.json()).result.structuredContent.title).toMatch(/^Patient summary of /);
    const write = await rpc({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'add_journal_note', arguments: { content: 'x' } } });
    expect(write.status).toBe(403);
    const www = write.headers.get('www-authenticate')!;
    expect(www).toMatch(/^Bearer error="insufficient_scope"/);
    expect(www).toContain('scope="patient:read journal:write"');
    expect(www).toContain('resource_metadata="http://api.test.local/.well-known/oauth-protected-resource/mcp"');
    const msg = await rpc({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'send_message', arguments: { content: 'x' } } });
    expect(msg.status).toBe(403);
    expect(msg.headers.get('www-authenticate')).toContain('scope="patient:read messages:write"');
    // The submitting tools (behind a confirmation) need treatment:write.
    for (const [id, name] of [[4, 'confirm_renewal'], [5, 'submit_questionnaire'], [6, 'save_questionnaire_draft']] as const) {
      const step = await rpc({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } });
      expect(step.status).toBe(403);
      expect(step.headers.get('www-authenticate')).toContain('scope="patient:read treatment:write"');
    }
  });
});

describe('connected apps', () => {
  it('lists the patient’s connected assistants only, and a revocation ends their tokens at once', async () => {
    const p = await patientWithPassword(ctx);
    const other = await patientWithPassword(ctx);
    const { client, provider } = await connectAs(f, p.email, new MemoryProvider('http://localhost:7777/cb', { name: 'Revocable' }));
    const list = await call(ctx, 'GET', '/v1/users/connected-apps/', { token: p.access });
    expect(list.status).toBe(200);
    expect(list.headers['cache-control']).toBe('no-store');
    expect(list.body.count).toBe(1);
    const app = list.body.results[0];
    expect(app).toMatchObject({ client_id: provider.info!.client_id, client_name: 'Revocable', redirect_hosts: ['localhost:7777'], scopes: ['patient:read', 'journal:write', 'messages:write', 'treatment:write'] });
    expect(app.last_used_at).not.toBeNull();

    const theirs = await call(ctx, 'GET', '/v1/users/connected-apps/', { token: other.access });
    expect(theirs.body).toMatchObject({ count: 0, results: [] });
    const crossDelete = await call(ctx, 'DELETE', `/v1/users/connected-apps/${app.id}/`, { token: other.access });
    expect(crossDelete.status).toBe(404);
    expect(crossDelete.body).toEqual({ detail: 'Not found.' });
    expect((await client.callTool({ name: 'get_profile_summary', arguments: {} })).isError).toBeFalsy();

    const del = await call(ctx, 'DELETE', `/v1/users/connected-apps/${app.id}/`, { token: p.access });
    expect(del.status).toBe(204);
    expect((await call(ctx, 'DELETE', `/v1/users/connected-apps/${app.id}/`, { token: p.access })).status).toBe(404);
    expect((await call(ctx, 'GET', '/v1/users/connected-apps/', { token: p.access })).body.count).toBe(0);
    const refused = await f(MCP_URL, {
      method: 'POST',
      headers: { authorization: `Bearer ${provider.saved!.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    const refresh = await f(`${MCP_URL.replace('/mcp', '')}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: provider.saved!.refresh_token!, client_id: provider.info!.client_id }),
    });
    expect(refresh.status).toBe(400);
    expect((await refresh.json()).error).toBe('invalid_grant');
    await client.close();
  });

  it('needs a /v1/ token', async () => {
    expect((await call(ctx, 'GET', '/v1/users/connected-apps/')).status).toBe(401);
    expect((await call(ctx, 'GET', '/v1/users/connected-apps/', { token: providerA.saved!.access_token })).status).toBe(401);
  });

  it('reconnecting the same assistant reuses its connection', async () => {
    const p = await patientWithPassword(ctx);
    const provider = new MemoryProvider();
    const first = await connectAs(f, p.email, provider);
    await first.client.close();
    provider.saved = undefined;
    const second = await connectAs(f, p.email, provider);
    await second.client.close();
    expect((await call(ctx, 'GET', '/v1/users/connected-apps/', { token: p.access })).body.count).toBe(1);
  });
});

describe('reconnects with the stored token', () => {
  it('a second client with the same provider connects without signing in again', async () => {
    const again = await connect(f, providerA);
    expect((await again.listTools()).tools.length).toBe(TOOLS.length);
    await again.close();
  });
});

describe('the outcome as the patient should read it', () => {
  // Runs last: it gives patient B records of its own.
  it('a rejected paid consultation reads "rejected, refunded in full", and its plan is not active', async () => {
    await ctx.db.query("update users set date_of_birth = '1985-04-12', country_of_residence = 'DEU', gender = '0' where id = $1", [b.id]);
    await addSubmission(ctx, b.id, 'hair_growth');
    const paid = await paySandbox(ctx, b, { category: 'hair_growth', plan: 'subscription' });
    const doctor = await staff(ctx, 'doctor');
    const rejected = await call(ctx, 'POST', `/v1/clinician/consultations/${paid.session.consultation_id}/reject/`, { token: doctor.access, json: { decision_reason: 'Needs an in-person assessment.' } });
    expect(rejected.status).toBe(200);
    const cons = await clientB.callTool({ name: 'list_consultations', arguments: {} });
    expect(structured(cons).results[0]).toMatchObject({ status: 'rejected', refund: { full: true, currency: 'EUR' } });
    expect((cons.content as any)[0].text).toMatch(/hair_growth: rejected, refunded in full \(\d+\.\d{2} EUR\)/);
    const subs = await clientB.callTool({ name: 'get_subscriptions', arguments: {} });
    expect(structured(subs).results[0]).toMatchObject({ category: 'hair_growth', status: 'canceled' });
    expect((subs.content as any)[0].text).toMatch(/\(canceled\)/);
    expect((subs.content as any)[0].text).not.toMatch(/\(active\)/);
  });
});
