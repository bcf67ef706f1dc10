// Reads do not write: every GET a patient, a doctor or a back-office admin can make runs
// no INSERT, UPDATE or DELETE, so GETs can be served from a read replica (DATABASE_REPLICA_URL).
// The database is wrapped to record each statement with the request that was running it.
import { AsyncLocalStorage } from 'node:async_hooks';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { Db, Queryable } from '../src/db/index.ts';
import { call, completeProfile, createTestContext, newPatient, newStaff, type TestContext } from './support/harness.ts';

const current = new AsyncLocalStorage<string>();
const writes: { request: string; sql: string }[] = [];
const WRITE = /^\s*(with\b[\s\S]*?\)\s*)?(insert|update|delete)\b/i;

// The one write a GET may make, documented in docs/messages.md: opening a thread is the read receipt,
// an idempotent `is_read` flag set on the primary while the messages themselves may come from the
// replica. It is not a row created on read.
const READ_RECEIPT = /^\s*update "?messages"? set "?is_read"?\s*=/i;
// And the other, documented in docs/privacy.md: a staff read of a patient's record is itself recorded
// (GDPR "who read my record"), an append-only access_log row written on the primary.
const ACCESS_LOG = /^\s*insert into access_log\b/i;

function record(sql: string) {
  const request = current.getStore();
  if (request && WRITE.test(sql) && !(/\/messages\/$/.test(request) && READ_RECEIPT.test(sql)) && !(/^GET \/v1\/(clinician|backoffice)\//.test(request) && ACCESS_LOG.test(sql))) writes.push({ request, sql: sql.replace(/\s+/g, ' ').slice(0, 100) });
}

function recording(q: Queryable): Queryable {
  return {
    query(sql, params) {
      record(sql);
      return q.query(sql, params);
    },
    execute(sql, params) {
      record(sql);
      return q.execute(sql, params);
    },
  };
}

let ctx: TestContext;

beforeAll(async () => {
  ctx = await createTestContext({}, {
    wrapDb: (db: Db): Db => ({ ...db, ...recording(db), tx: (fn) => db.tx((t) => fn(recording(t))) }),
  });
});
afterAll(() => ctx?.close());

async function get(token: string, url: string) {
  // Statements run on behalf of this request carry its name (the store follows the async calls).
  const res = await current.run(`GET ${url}`, () => call(ctx, 'GET', url, { token }));
  expect(res.status, `${url}: ${res.text.slice(0, 200)}`).toBeLessThan(500);
  return res;
}

test('no GET writes: a new patient, before and after a first write', async () => {
  const p = await newPatient(ctx, 'ro');
  await completeProfile(ctx, p);
  const doctor = await newStaff(ctx, 'doctor');
  const admin = await newStaff(ctx, 'backoffice_admin');
  const slug = (await get(p.access, '/v1/users/questionnaires/categories/')).body?.categories?.[0]?.slug ?? 'weight_loss';
  const patientGets = [
    '/v1/users/profile/',
    '/v1/users/profile/me/',
    '/v1/users/questionnaires/categories/',
    `/v1/users/questionnaires/${slug}/schema/`,
    `/v1/users/questionnaires/${slug}/progress/`,
    '/v1/users/payments/',
    '/v1/users/orders/',
    '/v1/users/prescriptions/',
    '/v1/users/consultations/',
    '/v1/users/subscriptions/',
    '/v1/users/subscriptions/renewal-options/',
    '/v1/users/conversations/',
    '/v1/users/journal/weight-entries/',
    '/v1/users/journal/injections/',
    '/v1/users/journal/notes/',
    '/v1/users/journal/side-effects/',
    '/v1/users/journal/injection-plan/',
    '/v1/users/connected-apps/',
    '/v1/users/referrals/me/',
    '/v1/users/referrals/me/referred/',
    '/v1/users/referrals/me/transactions/',
    '/v1/users/me/consents/',
    '/v1/users/me/access-log/',
    '/v1/users/me/export/',
  ];
  // Twice: the first GET of a new account is where "create on read" used to hide.
  for (let round = 0; round < 2; round++) for (const url of patientGets) await get(p.access, url);
  const conversations = await get(p.access, '/v1/users/conversations/');
  const first = Array.isArray(conversations.body) ? conversations.body[0] : conversations.body?.results?.[0];
  if (first?.id) await get(p.access, `/v1/users/conversations/${first.id}/messages/`);
  for (const url of ['/v1/clinician/consultations/', '/v1/clinician/conversations/']) await get(doctor.access, url);
  for (const url of ['/v1/backoffice/users/', '/v1/backoffice/test-clock/']) await get(admin.access, url);
  expect(writes).toEqual([]);
});
