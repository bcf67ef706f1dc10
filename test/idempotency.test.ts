// Idempotency-Key on the POSTs that create something (src/http/idempotency.ts): a retry with the same
// key and body replays the first answer without creating anything; another body with the key is 422;
// keys are per account, live 24 hours, and a key whose request is still being answered is 409.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestContext, firstRow, seedPatient, type Patient, type TestContext } from './support/harness.ts';
import { readyPatient } from './billing-fixtures.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => ctx?.close());

const threadOf = async (p: Patient) => (await call(ctx, 'GET', '/v1/users/conversations/', { token: p.access })).body.results[0].id as string;
const send = (p: Patient, id: string, content: string, key?: string) =>
  call(ctx, 'POST', `/v1/users/conversations/${id}/messages/`, { token: p.access, json: { content }, headers: key ? { 'idempotency-key': key } : {} });
const messageCount = async (p: Patient) => Number(firstRow(await ctx.db.query('select count(*) as n from messages where sender_id = $1', [p.id])).n);

describe('Idempotency-Key', () => {
  it('replays the first answer (status and body) to the same key and body, creating nothing more', async () => {
    const p = await seedPatient(ctx);
    const id = await threadOf(p);
    const key = randomUUID();
    const first = await send(p, id, 'Is my dose right?', key);
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await send(p, id, 'Is my dose right?', key);
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers['content-type']).toBe(first.headers['content-type']);
    expect(await messageCount(p)).toBe(1);
    // Without a key (or with another) every call is a new message.
    expect((await send(p, id, 'Is my dose right?')).status).toBe(201);
    expect((await send(p, id, 'Is my dose right?', randomUUID())).status).toBe(201);
    expect(await messageCount(p)).toBe(3);
  });

  it('covers a message with a file too: the retried upload replays the first answer and stores one message and one file', async () => {
    const p = await seedPatient(ctx);
    const id = await threadOf(p);
    const key = randomUUID();
    const boundary = `----pts${randomUUID()}`;
    const pdf = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');
    const payload = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="content"\r\n\r\nMy lab results\r\n`),
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="labs.pdf"\r\nContent-Type: application/pdf\r\n\r\n`),
      pdf,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const post = () => call(ctx, 'POST', `/v1/users/conversations/${id}/messages/`, { token: p.access, payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'idempotency-key': key } });
    const first = await post();
    expect(first.status, first.text).toBe(201);
    const again = await post();
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.text).toBe(first.text);
    expect(await messageCount(p)).toBe(1);
    expect(Number(firstRow(await ctx.db.query('select count(*) as n from message_files where user_id = $1', [p.id])).n)).toBe(1);
  });

  it('refuses the same key with another body, or on another route: 422 idempotency_key_reused', async () => {
    const p = await seedPatient(ctx);
    const id = await threadOf(p);
    const key = randomUUID();
    expect((await send(p, id, 'First text.', key)).status).toBe(201);
    const other = await send(p, id, 'Second text.', key);
    expect([other.status, other.body]).toEqual([422, { error: expect.any(String), code: 'idempotency_key_reused' }]);
    const note = await call(ctx, 'POST', '/v1/users/journal/notes/', { token: p.access, json: { content: 'First text.' }, headers: { 'idempotency-key': key } });
    expect([note.status, note.body.code]).toEqual([422, 'idempotency_key_reused']);
    expect(await messageCount(p)).toBe(1);
  });

  it('keeps keys per account: another account’s identical key and body is its own request', async () => {
    const a = await seedPatient(ctx);
    const b = await seedPatient(ctx);
    const key = randomUUID();
    const fromA = await send(a, await threadOf(a), 'Hello.', key);
    const fromB = await send(b, await threadOf(b), 'Hello.', key);
    expect([fromA.status, fromB.status]).toEqual([201, 201]);
    expect(fromB.headers['idempotent-replayed']).toBeUndefined();
    expect(fromB.body.id).not.toBe(fromA.body.id);
    expect([await messageCount(a), await messageCount(b)]).toEqual([1, 1]);
  });

  it('answers 409 idempotency_key_in_use while the first request is being answered, and lets the same request take over a claim abandoned for a minute', async () => {
    const p = await seedPatient(ctx);
    const id = await threadOf(p);
    const key = randomUUID();
    expect((await send(p, id, 'Hello.', key)).status).toBe(201);
    // As if the first request had claimed the key and were still running.
    await ctx.db.query('update idempotency_keys set status_code = null, response_body = null where user_id = $1 and key = $2', [p.id, key]);
    const busy = await send(p, id, 'Hello.', key);
    expect([busy.status, busy.body]).toEqual([409, { error: expect.any(String), code: 'idempotency_key_in_use' }]);
    // Its process died: after a minute the same request runs.
    await ctx.db.query("update idempotency_keys set created_at = created_at - interval '2 minutes' where user_id = $1 and key = $2", [p.id, key]);
    const retried = await send(p, id, 'Hello.', key);
    expect([retried.status, retried.headers['idempotent-replayed']]).toEqual([201, undefined]);
    expect((await send(p, id, 'Hello.', key)).headers['idempotent-replayed']).toBe('true');
  });

  it('forgets a key after 24 hours (the request runs again), and the sweep deletes old answers', async () => {
    const p = await seedPatient(ctx);
    const id = await threadOf(p);
    const key = randomUUID();
    expect((await send(p, id, 'Hello.', key)).status).toBe(201);
    await ctx.db.query("update idempotency_keys set created_at = created_at - interval '25 hours' where user_id = $1 and key = $2", [p.id, key]);
    const later = await send(p, id, 'Another day.', key);
    expect([later.status, later.headers['idempotent-replayed']]).toEqual([201, undefined]);
    expect(await messageCount(p)).toBe(2);
    await ctx.db.query("update idempotency_keys set created_at = created_at - interval '25 hours' where user_id = $1 and key = $2", [p.id, key]);
    await ctx.deps.scheduler.runDue();
    expect(await ctx.db.query('select 1 from idempotency_keys where user_id = $1', [p.id])).toHaveLength(0);
  });

  it('refuses a malformed key as a field error', async () => {
    const p = await seedPatient(ctx);
    const id = await threadOf(p);
    for (const bad of ['x'.repeat(256), 'has space']) {
      const res = await send(p, id, 'Hello.', bad);
      expect([res.status, Object.keys(res.body)]).toEqual([400, ['idempotency-key']]);
    }
    expect(await messageCount(p)).toBe(0);
  });

  it('replays refusals too (a journal write without a treatment plan), and works on checkout: one session for a retried checkout', async () => {
    const p = await seedPatient(ctx);
    const key = randomUUID();
    const report = { symptom: 'nausea', severity: 'mild' };
    const refused = await call(ctx, 'POST', '/v1/users/journal/side-effects/', { token: p.access, json: report, headers: { 'idempotency-key': key } });
    const replayed = await call(ctx, 'POST', '/v1/users/journal/side-effects/', { token: p.access, json: report, headers: { 'idempotency-key': key } });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect([replayed.status, replayed.text, replayed.headers['idempotent-replayed']]).toEqual([refused.status, refused.text, 'true']);

    const buyer = await readyPatient(ctx);
    const checkoutKey = randomUUID();
    const body = { category: 'weight_loss', plan: 'subscription' };
    const first = await call(ctx, 'POST', '/v1/users/checkout/', { token: buyer.access, json: body, headers: { 'idempotency-key': checkoutKey } });
    expect(first.status).toBe(200);
    const again = await call(ctx, 'POST', '/v1/users/checkout/', { token: buyer.access, json: body, headers: { 'idempotency-key': checkoutKey } });
    expect([again.status, again.body.session_id, again.headers['idempotent-replayed']]).toEqual([200, first.body.session_id, 'true']);
    expect(Number(firstRow(await ctx.db.query('select count(*) as n from checkout_sessions where user_id = $1', [buyer.id])).n)).toBe(1);
  });

  it('is documented on the routes that take it: the header and the 422 and 409 answers', async () => {
    const doc = (await call(ctx, 'GET', '/v1/schema/')).body;
    for (const [path, method] of [
      ['/v1/users/conversations/{id}/messages/', 'post'],
      ['/v1/users/journal/notes/', 'post'],
      ['/v1/users/journal/weight-entries/', 'post'],
      ['/v1/users/journal/injections/', 'post'],
      ['/v1/users/journal/side-effects/', 'post'],
      ['/v1/users/checkout/', 'post'],
    ] as const) {
      const op = doc.paths[path][method];
      expect(op.parameters.some((p: any) => p.in === 'header' && p.name === 'idempotency-key'), path).toBe(true);
      expect(JSON.stringify(op.responses[422]), path).toContain('idempotency_key_reused');
      expect(JSON.stringify(op.responses[409]), path).toContain('idempotency_key_in_use');
    }
    expect(JSON.stringify(doc.paths['/v1/users/profile/me/'])).not.toContain('idempotency');
  });
});
