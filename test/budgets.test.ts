// Request budgets on Google sign-in, password reset, token refresh, messages, uploads, checkout and
// the data export (src/http/budgets.ts, docs/rate-limits.md). The limits are lowered with
// ROUTE_BUDGETS so each is reached in a few requests; the production values are far higher.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTE_BUDGETS, budgetKey } from '../src/http/budgets.ts';
import { call, createTestContext, newPatient, type Patient, type Res, type TestContext } from './support/harness.ts';

let ctx: TestContext;

const LOW = [
  'google-signin-ip=2/60',
  'reset-password-ip=2/60',
  'token-refresh-ip=2/60',
  'messages-account=3/60',
  'messages-ip=5/60',
  'uploads-account=1/60',
  'uploads-ip=50/60',
  'checkout-account=2/60',
  'checkout-ip=3/60',
  'data-export=2/60',
  'data-export-ip=3/60',
].join(',');

beforeAll(async () => {
  ctx = await createTestContext({ ROUTE_BUDGETS: LOW });
});
afterAll(async () => ctx?.close());

let ipSeq = 0;
/** A fresh client address per test, so the tests do not share address budgets. */
const freshIp = () => `198.51.100.${++ipSeq}`;

function expectThrottled(res: Res) {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({ detail: expect.stringMatching(/^Request was throttled\. Expected available in \d+ seconds\.$/), code: 'throttled' });
  expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(60);
}

function pngUpload(content = 'scan') {
  const boundary = `----pts${randomUUID().slice(0, 8)}`;
  // The smallest valid PNG header is enough for the budget: the upload is counted before it is read.
  const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
  const payload = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="content"\r\n\r\n${content}\r\n`),
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="scan.png"\r\nContent-Type: image/png\r\n\r\n`),
    png,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { headers: { 'content-type': `multipart/form-data; boundary=${boundary}` }, payload };
}

describe('per-address budgets of the public account routes', () => {
  const cases: Array<[string, string, () => Record<string, unknown>]> = [
    ['POST', '/v1/users/google-login/', () => ({ credential: 'not-a-google-token' })],
    ['POST', '/v1/users/reset-password/', () => ({ token: randomUUID(), password: 'Quiet-Harbour-Lantern-42' })],
    ['POST', '/v1/users/token/refresh/', () => ({ refresh: 'not.a.token' })],
  ];
  for (const [method, url, body] of cases) {
    it(`${method} ${url}: 429 with Retry-After after the budget, other addresses unaffected`, async () => {
      const ip = freshIp();
      for (let i = 0; i < 2; i++) {
        const res = await call(ctx, method, url, { brand: true, json: body(), ip });
        expect(res.status).not.toBe(429);
      }
      expectThrottled(await call(ctx, method, url, { brand: true, json: body(), ip }));
      // Another address of the same /64 shares it; an IPv4 neighbour does not.
      expect((await call(ctx, method, url, { brand: true, json: body(), ip: freshIp() })).status).not.toBe(429);
    });
  }

  it('an IPv6 client is one /64: rotating within it gives no fresh budget', async () => {
    const url = '/v1/users/token/refresh/';
    for (let i = 0; i < 2; i++) expect((await call(ctx, 'POST', url, { json: { refresh: 'x' }, ip: `2001:db8:77:1::${i + 1}` })).status).not.toBe(429);
    expectThrottled(await call(ctx, 'POST', url, { json: { refresh: 'x' }, ip: '2001:db8:77:1:ffff::9' }));
    expect((await call(ctx, 'POST', url, { json: { refresh: 'x' }, ip: '2001:db8:77:2::1' })).status).not.toBe(429);
  });

  it('a throttled refresh does not use up the refresh token: it works from another address', async () => {
    const p = await newPatient(ctx, 'refresh');
    const ip = freshIp();
    for (let i = 0; i < 2; i++) await call(ctx, 'POST', '/v1/users/token/refresh/', { json: { refresh: 'junk' }, ip });
    expectThrottled(await call(ctx, 'POST', '/v1/users/token/refresh/', { brand: true, json: { refresh: p.refresh }, ip }));
    const ok = await call(ctx, 'POST', '/v1/users/token/refresh/', { brand: true, json: { refresh: p.refresh }, ip: freshIp() });
    expect(ok.status, ok.text).toBe(200);
  });
});

describe('messages and uploads', () => {
  const threads = new Map<string, string>();
  const thread = async (p: Patient) => {
    if (!threads.has(p.id)) threads.set(p.id, (await call(ctx, 'GET', '/v1/users/conversations/', { token: p.access })).body.results[0].id as string);
    return threads.get(p.id)!;
  };
  const url = (p: Patient) => `/v1/users/conversations/${threads.get(p.id)}/messages/`;

  it('per account: the 4th message in the window is 429; another account on another address is not', async () => {
    const a = await newPatient(ctx, 'msga');
    const b = await newPatient(ctx, 'msgb');
    await thread(a);
    await thread(b);
    const ip = freshIp();
    for (let i = 0; i < 3; i++) expect((await call(ctx, 'POST', url(a), { token: a.access, json: { content: `hello ${i}` }, ip })).status).toBe(201);
    expectThrottled(await call(ctx, 'POST', url(a), { token: a.access, json: { content: 'one more' }, ip }));
    expect((await call(ctx, 'POST', url(b), { token: b.access, json: { content: 'hello' }, ip: freshIp() })).status).toBe(201);
    // The throttled message was not stored.
    const stored = await ctx.db.query('select count(*)::int as n from messages m join conversations c on c.id = m.conversation_id where c.user_id = $1', [a.id]);
    expect(stored[0]!.n).toBe(3);
  });

  it('per address: accounts sharing one address share its budget', async () => {
    const ip = freshIp();
    const people = [await newPatient(ctx, 'msgc'), await newPatient(ctx, 'msgd'), await newPatient(ctx, 'msge')];
    for (const p of people) await thread(p);
    const answers: number[] = [];
    for (const p of people) for (let i = 0; i < 2; i++) answers.push((await call(ctx, 'POST', url(p), { token: p.access, json: { content: 'hi' }, ip })).status);
    expect(answers.slice(0, 5)).toEqual([201, 201, 201, 201, 201]);
    expect(answers[5]).toBe(429);
  });

  it('uploads have their own, smaller budget; text messages go on', async () => {
    const p = await newPatient(ctx, 'upl');
    await thread(p);
    const ip = freshIp();
    const first = pngUpload();
    expect((await call(ctx, 'POST', url(p), { token: p.access, headers: first.headers, payload: first.payload, ip })).status).not.toBe(429);
    const second = pngUpload();
    expectThrottled(await call(ctx, 'POST', url(p), { token: p.access, headers: second.headers, payload: second.payload, ip }));
    expect((await call(ctx, 'POST', url(p), { token: p.access, json: { content: 'text still goes' }, ip })).status).toBe(201);
  });
});

describe('checkout', () => {
  it('per account, before the body is validated; a throttled request stores no Idempotency-Key answer', async () => {
    const p = await newPatient(ctx, 'chk');
    const ip = freshIp();
    for (let i = 0; i < 2; i++) expect((await call(ctx, 'POST', '/v1/users/checkout/', { token: p.access, json: {}, ip })).status).toBe(400);
    const key = randomUUID();
    expectThrottled(await call(ctx, 'POST', '/v1/users/checkout/', { token: p.access, json: {}, ip, headers: { 'idempotency-key': key } }));
    const stored = await ctx.db.query('select count(*)::int as n from idempotency_keys where user_id = $1', [p.id]);
    expect(stored[0]!.n).toBe(0);
    const other = await newPatient(ctx, 'chk2');
    expect((await call(ctx, 'POST', '/v1/users/checkout/', { token: other.access, json: {}, ip: freshIp() })).status).toBe(400);
  });

  it('per address across accounts', async () => {
    const ip = freshIp();
    const [a, b] = [await newPatient(ctx, 'chka'), await newPatient(ctx, 'chkb')];
    const answers = [];
    for (const p of [a, b, a, b]) answers.push((await call(ctx, 'POST', '/v1/users/checkout/', { token: p.access, json: {}, ip })).status);
    expect(answers).toEqual([400, 400, 400, 429]);
  });
});

describe('data export', () => {
  it('per account (either format) and per address', async () => {
    const a = await newPatient(ctx, 'exa');
    const ip = freshIp();
    expect((await call(ctx, 'GET', '/v1/users/me/export/', { token: a.access, ip })).status).toBe(200);
    expect((await call(ctx, 'GET', '/v1/users/me/export/?format=zip', { token: a.access, ip })).status).toBe(200);
    expectThrottled(await call(ctx, 'GET', '/v1/users/me/export/', { token: a.access, ip: freshIp() }));
    const b = await newPatient(ctx, 'exb');
    // The address has seen 2 exports of A; B's first is its 3rd (allowed), B's second the 4th (over).
    expect((await call(ctx, 'GET', '/v1/users/me/export/', { token: b.access, ip })).status).toBe(200);
    expectThrottled(await call(ctx, 'GET', '/v1/users/me/export/', { token: b.access, ip }));
  });
});

describe('the document declares exactly these budgets', () => {
  it('every budgeted operation declares 429 `Throttled` with Retry-After', async () => {
    const doc = (await call(ctx, 'GET', '/v1/schema/')).body;
    const declared = new Set<string>();
    for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        if (op?.responses?.[429]) declared.add(budgetKey(method, path));
      }
    }
    for (const key of Object.keys(ROUTE_BUDGETS)) {
      expect(declared, key).toContain(key);
      const [method, path] = key.split(' ') as [string, string];
      const res = doc.paths[path.replace(/:([a-z_]+)/g, '{$1}')][method.toLowerCase()].responses[429];
      expect(JSON.stringify(res.content)).toContain('Throttled');
      expect(res.headers['Retry-After']).toBeDefined();
    }
    // The other 429s come from budgets that count outcomes (wrong passwords, codes) inside their
    // services, or from the connector's own budgets; each is listed here so a new one is a decision.
    const serviceBudgets = [
      'POST /v1/users/register/',
      'POST /v1/users/verify-email/',
      'POST /v1/users/token/',
      'POST /v1/users/token/mfa/',
      'POST /v1/users/token/mfa/enrol/',
      'POST /v1/users/token/mfa/enrol/confirm/',
      'POST /v1/users/token/mfa/webauthn/options/',
      'POST /v1/users/token/mfa/enrol/passkey/options/',
      'POST /v1/users/token/mfa/enrol/passkey/',
      'POST /v1/users/forgot-password/',
      'POST /v1/users/change-password/',
      // The sign-in failure budget (a password) or the code budget (a code), as change-password.
      'POST /v1/users/me/reauthenticate/',
      'POST /v1/users/referrals/attribution-events/',
      'DELETE /v1/users/me/',
      // The phone's verification code: one SMS a minute per account (src/modules/notifications).
      'PUT /v1/users/notifications/phone/',
    ];
    const unexplained = [...declared].filter((k) => !ROUTE_BUDGETS[k] && !serviceBudgets.includes(k) && !k.startsWith('POST /v1/users/mfa/'));
    expect(unexplained).toEqual([]);
  });
});
