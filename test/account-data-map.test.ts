// Every table that holds an account's data has a written rule for erasure (docs/privacy.md, the
// table under "Erasure"), and the rule holds: a table whose rule is "deleted" keeps no row of an erased
// account. The tables are found from the database's own foreign keys (a table that refers to `users`,
// or to such a table), so a new table cannot be forgotten: it fails here until docs/privacy.md says
// what erasure does with it, and the account below must hold rows of every "deleted" table.
import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paySandbox, readyPatient, staff } from './billing-fixtures.ts';
import { call, createTestContext, type Patient, type TestContext } from './support/harness.ts';
import { multipart } from './support/multipart.ts';
import { withPhotos } from './support/photo-answers.ts';
import { FIXTURES, m, withAnswers } from './questionnaires.fixtures.ts';

let ctx: TestContext;
let doctor: Patient;
beforeAll(async () => {
  ctx = await createTestContext();
  doctor = await staff(ctx, 'doctor');
});
afterAll(async () => ctx?.close());

interface Link {
  child: string;
  column: string;
  parent: string;
  parentColumn: string;
}

/** Single-column foreign keys of the schema. */
async function foreignKeys(): Promise<Link[]> {
  return ctx.db.query<Link>(`
    select c.conrelid::regclass::text as child, a.attname as column, c.confrelid::regclass::text as parent, pa.attname as "parentColumn"
      from pg_constraint c
      join pg_attribute a on a.attrelid = c.conrelid and a.attnum = c.conkey[1]
      join pg_attribute pa on pa.attrelid = c.confrelid and pa.attnum = c.confkey[1]
     where c.contype = 'f' and array_length(c.conkey, 1) = 1`);
}

/**
 * How to count an account's rows in each table: a direct reference to users(id), or (one step
 * further) a reference to a row of such a table.
 */
async function accountTables(): Promise<Map<string, string[]>> {
  const fks = await foreignKeys();
  const counts = new Map<string, string[]>();
  const add = (table: string, statement: string) => counts.set(table, [...(counts.get(table) ?? []), statement]);
  const direct = fks.filter((f) => f.parent === 'users' && f.child !== 'users');
  for (const f of direct) add(f.child, `select count(*)::int as n from ${f.child} where ${f.column} = $1`);
  const directTables = new Set(direct.map((f) => f.child));
  for (const f of fks) {
    if (directTables.has(f.child) || f.child === 'users' || !directTables.has(f.parent)) continue;
    for (const owner of direct.filter((d) => d.child === f.parent)) {
      add(f.child, `select count(*)::int as n from ${f.child} c join ${f.parent} p on c.${f.column} = p.${f.parentColumn} where p.${owner.column} = $1`);
    }
  }
  return counts;
}

/** docs/privacy.md's erasure table: each table named in a row's first cell, with that row's rule. */
function documentedRules(): Map<string, string> {
  const doc = readFileSync(new URL('../docs/privacy.md', import.meta.url), 'utf8');
  const start = doc.indexOf('| table | rule on erasure | why |');
  expect(start, 'docs/privacy.md has the erasure table').toBeGreaterThan(0);
  const rules = new Map<string, string>();
  for (const line of doc.slice(start).split('\n').slice(2)) {
    if (!line.startsWith('|')) break;
    const [, tables = '', rule = ''] = line.split('|');
    for (const [, name] of tables.matchAll(/`([a-z_]+)`/g)) rules.set(name!, rule.trim());
  }
  return rules;
}

const isDeleted = (rule: string) => /^(\*\*)?deleted\b/i.test(rule);

async function rowsOf(statements: string[], userId: string): Promise<number> {
  let n = 0;
  for (const s of statements) n += (await ctx.db.query<{ n: number }>(s, [userId]))[0]!.n;
  return n;
}

describe('the account data map', () => {
  it('names every table that holds an account’s data in docs/privacy.md, and no table that does not exist', async () => {
    const tables = [...(await accountTables()).keys()].sort();
    const rules = documentedRules();
    expect(tables.filter((t) => !rules.has(t)), 'tables without an erasure rule in docs/privacy.md').toEqual([]);
    const existing = new Set((await ctx.db.query<{ t: string }>("select table_name as t from information_schema.tables where table_schema = 'public'")).map((r) => r.t));
    expect([...rules.keys()].filter((t) => !existing.has(t)), 'tables docs/privacy.md names that do not exist').toEqual([]);
  });

  it('erasure leaves no row in a table whose rule is "deleted"; the account held rows in each of them', async () => {
    const tables = await accountTables();
    const rules = documentedRules();
    const p = await richAccount();
    const before = new Map<string, number>();
    for (const [table, statements] of tables) before.set(table, await rowsOf(statements, p.id));

    const erase = await call(ctx, 'DELETE', '/v1/users/me/', { token: p.access, json: { confirm: 'DELETE' } });
    expect(erase.status, erase.text).toBe(204);

    const deleted = [...tables.keys()].filter((t) => isDeleted(rules.get(t) ?? '')).sort();
    const left: Record<string, number> = {};
    for (const table of deleted) {
      const n = await rowsOf(tables.get(table)!, p.id);
      if (n > 0) left[table] = n;
    }
    expect(left, 'rows left after erasure in tables documented as deleted').toEqual({});
    // The check above proves nothing for a table the account never wrote to.
    expect(deleted.filter((t) => !before.get(t)), '"deleted" tables the account below held no row of (extend richAccount)').toEqual(NOT_REACHED_HERE);
  });
});

/**
 * "Deleted" tables this account does not reach through its own requests here, each with why and
 * where its erasure is tested instead.
 */
const NOT_REACHED_HERE: string[] = [
  // The sandbox identity check is a page flow of its own: test/verification.test.ts "export (JSON and
  // zip) holds the verification records and images; erasure removes them".
  'identity_verifications',
];

/**
 * An account that has used the service broadly: a paid and approved weight-loss plan (consultation,
 * payment, prescription, order, plan), a message with a file, a journal (weight, injection, note,
 * injection plan, goal), a draft with a red flag, clinical photos, a scale photo for verification,
 * notification settings, consents, a password reset and a second factor.
 */
async function richAccount(): Promise<Patient> {
  const p = await readyPatient(ctx);
  const { session } = await paySandbox(ctx, p, { category: 'weight_loss', plan: 'subscription' });
  const approve = await call(ctx, 'POST', `/v1/clinician/consultations/${session.consultation_id}/approve/`, { token: doctor.access, json: {} });
  expect(approve.status, approve.text).toBe(200);

  const conv = (await call(ctx, 'GET', '/v1/users/conversations/', { token: p.access })).body.results[0];
  const file = multipart({ content: 'A photo of the rash' }, { name: 'rash.pdf', type: 'application/pdf', data: Buffer.from('%PDF-1.4\n%%EOF\n') });
  const sent = await call(ctx, 'POST', `/v1/users/conversations/${conv.id}/messages/`, { token: p.access, ...file });
  expect(sent.status, sent.text).toBe(201);

  const J = '/v1/users/journal';
  const steps: [string, string, unknown][] = [
    ['POST', `${J}/weight-entries/`, { weight_kg: 98.2, logged_on: '2026-11-01', note: 'morning' }],
    ['POST', `${J}/injections/`, { dose: '0.25 mg', injected_at: '2026-11-20T08:00:00Z', injection_site: 'abdomen' }],
    ['POST', `${J}/notes/`, { content: 'Felt fine' }],
    ['POST', `${J}/side-effects/`, { symptom: 'nausea', severity: 'mild' }],
    ['PATCH', `${J}/injection-plan/`, { anchor_weekday: 1, preferred_time: '08:00', active: true }],
    ['PUT', `${J}/goal/`, { goal_weight_kg: 85 }],
    ['POST', '/v1/users/me/consents/', { kind: 'terms', version: 't1', granted: true }],
    ['PATCH', '/v1/users/notifications/preferences/', { events: { care_team_message: { sms: true } }, quiet_hours: { start: '22:00', end: '07:00' } }],
    ['PUT', '/v1/users/notifications/phone/', { phone: '+49 151 23456789' }],
  ];
  for (const [method, url, json] of steps) {
    const res = await call(ctx, method, url, { token: p.access, json });
    expect(res.status, `${method} ${url}: ${res.text}`).toBeLessThan(300);
  }
  // A draft with a red flag ticked (kept as a draft red flag), and a message that raises one.
  const draft = await call(ctx, 'PATCH', '/v1/users/questionnaires/sexual_health/progress/', {
    token: p.access,
    json: { data: withAnswers(FIXTURES.sexual_health.eligible, m(1, 'urgent_symptoms', ['chest_pain_during_sex'])) },
  });
  expect(draft.status, draft.text).toBe(200);
  // Sent with an Idempotency-Key: the stored answer is the account's too.
  const urgent = await call(ctx, 'POST', `/v1/users/conversations/${conv.id}/messages/`, {
    token: p.access,
    headers: { 'idempotency-key': `map-${p.id}` },
    json: { content: 'I have crushing chest pain right now and cannot breathe' },
  });
  expect(urgent.status, urgent.text).toBe(201);
  // Clinical photos on a hair-loss draft.
  const photos = await call(ctx, 'PATCH', '/v1/users/questionnaires/hair_growth/progress/', { token: p.access, json: { data: await withPhotos(ctx, p.access, 'hair_growth', FIXTURES.hair_growth.eligible) } });
  expect(photos.status, photos.text).toBe(200);
  // A photo on the scales for the weight verification.
  const scales = await call(ctx, 'POST', '/v1/users/verification/weight/', {
    token: p.access,
    ...multipart({ weight_kg: '98.0' }, { name: 'scales.jpg', type: 'image/jpeg', data: await sharp({ create: { width: 32, height: 32, channels: 3, background: '#888' } }).jpeg().toBuffer() }),
  });
  expect(scales.status, scales.text).toBe(201);
  // What the connector and the sign-up leave behind, written as their modules write them: an
  // authorisation request the patient started, a tool call, and an unused e-mail code.
  await ctx.db.query("insert into mcp_clients (id, redirect_uris) values ('map-client', '[]'::jsonb) on conflict do nothing");
  await ctx.db.query(
    `insert into mcp_auth_requests (client_id, redirect_uri, code_challenge, scopes, resource, csrf_hash, user_id, expires_at)
     values ('map-client', 'https://assistant.example/cb', 'challenge', 'patient:read', 'http://x/mcp', 'hash', $1, now() + interval '10 minutes')`,
    [p.id],
  );
  await ctx.db.query(`insert into mcp_tool_calls (user_id, client_id, grant_id, tool, outcome) values ($1, 'map-client', gen_random_uuid(), 'get_profile_summary', 'ok')`, [p.id]);
  // Second factors and a connector confirmation, as the accounts and connector modules store them
  // (their enrolment flows are tested in test/mfa*.test.ts and test/mcp-confirm.test.ts).
  await ctx.db.query(
    `insert into mcp_grants (id, user_id, client_id, scopes, resource) values ('00000000-0000-4000-8000-000000000a9a', $1, 'map-client', 'patient:read', 'http://x/mcp')`,
    [p.id],
  );
  await ctx.db.query(
    `insert into mcp_confirmations (token_hash, user_id, grant_id, tool, input_hash, expires_at) values ('map-confirm', $1, '00000000-0000-4000-8000-000000000a9a', 'confirm_renewal', 'h', now() + interval '5 minutes')`,
    [p.id],
  );
  await ctx.db.query(`insert into mfa_totp (user_id, secret_enc) values ($1, 'sealed')`, [p.id]);
  await ctx.db.query(`insert into mfa_passkeys (user_id, credential_id, public_key, name) values ($1, 'cred', 'key', 'Phone')`, [p.id]);
  await ctx.db.query(`insert into mfa_recovery_codes (user_id, code_hash) values ($1, 'code')`, [p.id]);
  await ctx.db.query(`insert into mfa_tickets (token_hash, user_id, purpose, expires_at) values ('map-ticket', $1, 'enrol', now() + interval '5 minutes')`, [p.id]);
  await ctx.db.query(`insert into webauthn_challenges (challenge_hash, user_id, purpose, expires_at) values ('map-challenge', $1, 'register', now() + interval '5 minutes')`, [p.id]);
  await ctx.db.query(`insert into push_subscriptions (user_id, endpoint, p256dh, auth) values ($1, 'https://push.example/endpoint', $2, 'abcdefghijklmnopqrstuv')`, [p.id, 'B'.repeat(87)]);
  await ctx.db.query(`insert into email_verifications (user_id, code_hash, expires_at, last_sent_at) values ($1, 'hash', now() + interval '1 day', now())`, [p.id]);
  // A share link, opened once by a recipient.
  const link = await call(ctx, 'POST', '/v1/users/me/share-links/', { token: p.access, json: { expires_in_days: 7, label: 'For my GP' } });
  expect(link.status, link.text).toBe(201);
  const manifest = new URL((JSON.parse(Buffer.from(String(link.body.shlink).replace(/^shlink:\//, ''), 'base64url').toString('utf8')) as { url: string }).url).pathname;
  const opened = await call(ctx, 'POST', manifest, { json: { recipient: 'Dr. Weber' } });
  expect(opened.status, opened.text).toBe(200);
  // A call on the consultation with its pass and signalling, as the appointments module writes them
  // (joining needs the service clock inside the call's window: test/appointments.test.ts).
  const [appointment] = await ctx.db.query<{ id: string }>(
    `insert into appointments (user_id, consultation_id, doctor_id, starts_at, ends_at)
     select $1, $2, $3, t, t + interval '15 minutes' from (select to_timestamp(floor(extract(epoch from now()) / 900) * 900 + 86400) as t) s returning id`,
    [p.id, session.consultation_id, doctor.id],
  );
  await ctx.db.query(`insert into call_passes (token_hash, appointment_id, participant_id, role, expires_at) values ('map-pass', $1, $2, 'patient', now() + interval '1 day')`, [appointment!.id, p.id]);
  await ctx.db.query(`insert into call_signals (appointment_id, sender_id, recipient_id, kind, payload) values ($1, $2, $3, 'offer', '{}'::jsonb), ($1, $3, $2, 'answer', '{}'::jsonb)`, [appointment!.id, p.id, doctor.id]);
  const forgot = await call(ctx, 'POST', '/v1/users/forgot-password/', { brand: true, json: { email: p.email } });
  expect(forgot.status, forgot.text).toBe(200);
  return p;
}
