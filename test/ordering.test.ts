// `?ordering=` on every list that publishes it: both directions of `created_at` change the
// page, each list's own fields are honoured, and an unknown value is a field-keyed 400.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestContext, newStaff, seedPatient, type Patient, type TestContext } from './support/harness.ts';

let ctx: TestContext;
let doctor: Patient;
let admin: Patient;
let pharmacist: Patient;
beforeAll(async () => {
  ctx = await createTestContext();
  [doctor, admin, pharmacist] = [await newStaff(ctx, 'doctor'), await newStaff(ctx, 'backoffice_admin'), await newStaff(ctx, 'pharmacist')];
});
afterAll(async () => ctx?.close());

const DAY = 86_400_000;
const T0 = Date.parse('2026-01-10T09:00:00Z');
const at = (days: number) => new Date(T0 + days * DAY);

/** The id of an inserted row. */
async function insert(sql: string, params: unknown[]): Promise<string> {
  const [row] = await ctx.db.query<{ id: string }>(`${sql} returning id`, params);
  if (!row) throw new Error('no row');
  return String(row.id);
}

/** A patient on an active plan (the journal's gate) with a consultation and a prescription. */
async function patientWithPlan(): Promise<{ p: Patient; consultationId: string }> {
  const p = await seedPatient(ctx);
  const consultationId = await insert(
    "insert into consultations (user_id, category, status, plan, supply_days, decided_at, created_at, updated_at) values ($1, 'weight_loss', 'approved', 'one_off', 28, $2, $3, $3)",
    [p.id, ctx.deps.clock.now(), at(0)],
  );
  return { p, consultationId };
}

async function prescription(userId: string, consultationId: string, issued: Date): Promise<string> {
  return insert(
    `insert into prescriptions (user_id, consultation_id, doctor_id, category, treatment_id, treatment_name, dosage, issued_at, valid_until, created_at)
     values ($1, $2, $3, 'weight_loss', 'semaglutide', 'Semaglutide', '0.25 mg', $4, $5, $4)`,
    [userId, consultationId, doctor.id, issued, new Date(issued.getTime() + 90 * DAY)],
  );
}

interface Case {
  name: string;
  path: string;
  token: () => string;
  /** Two rows of the list: the first created earlier; `other` orders them the other way round by the list's own field. */
  seed: () => Promise<{ older: string; newer: string; other?: { field: string; first: string; second: string } }>;
  /** The id of a result (lists name it differently). */
  idOf?: (r: Record<string, unknown>) => string;
}

const cases: Case[] = [];
let patient: { p: Patient; consultationId: string };

const patientCase = (name: string, path: string, seed: Case['seed'], idOf?: Case['idOf']) => cases.push({ name, path, token: () => patient.p.access, seed, idOf });

patientCase('consultations', '/v1/users/consultations/', async () => {
  const older = patient.consultationId;
  const newer = await insert(
    "insert into consultations (user_id, category, status, plan, created_at, updated_at) values ($1, 'hair_growth', 'pending_review', 'one_off', $2, $3)",
    [patient.p.id, at(1), at(-5)],
  );
  return { older, newer, other: { field: 'updated_at', first: newer, second: older } };
});
patientCase('weight entries', '/v1/users/journal/weight-entries/', async () => {
  const q = 'insert into weight_entries (user_id, weight_kg, logged_on, created_at) values ($1, $2, $3, $4)';
  const older = await insert(q, [patient.p.id, 80, '2026-01-20', at(0)]);
  const newer = await insert(q, [patient.p.id, 90, '2026-01-05', at(1)]);
  return { older, newer, other: { field: 'logged_on', first: newer, second: older } };
});
patientCase('injections', '/v1/users/journal/injections/', async () => {
  const q = "insert into injections (user_id, dose, injected_at, created_at) values ($1, '1 mg', $2, $3)";
  const older = await insert(q, [patient.p.id, at(5), at(0)]);
  const newer = await insert(q, [patient.p.id, at(2), at(1)]);
  return { older, newer, other: { field: 'injected_at', first: newer, second: older } };
});
patientCase('notes', '/v1/users/journal/notes/', async () => {
  const q = "insert into journal_notes (user_id, content, created_at) values ($1, 'a note', $2)";
  return { older: await insert(q, [patient.p.id, at(0)]), newer: await insert(q, [patient.p.id, at(1)]) };
});
patientCase('side effects', '/v1/users/journal/side-effects/', async () => {
  const q = "insert into side_effect_reports (user_id, symptom, severity, created_at) values ($1, 'nausea', 'mild', $2)";
  return { older: await insert(q, [patient.p.id, at(0)]), newer: await insert(q, [patient.p.id, at(1)]) };
});
patientCase('payments', '/v1/users/payments/', async () => {
  const q = "insert into payments (user_id, provider, provider_payment_id, amount_cents, status, created_at) values ($1, 'sandbox', $2, $3, 'succeeded', $4)";
  const older = await insert(q, [patient.p.id, randomUUID(), 9000, at(0)]);
  const newer = await insert(q, [patient.p.id, randomUUID(), 1000, at(1)]);
  return { older, newer, other: { field: 'amount_cents', first: newer, second: older } };
});
patientCase('prescriptions', '/v1/users/prescriptions/', async () => {
  const older = await prescription(patient.p.id, patient.consultationId, at(0));
  const newer = await prescription(patient.p.id, patient.consultationId, at(1));
  return { older, newer, other: { field: 'issued_at', first: older, second: newer } };
});
patientCase('reissue requests', '/v1/users/prescriptions/reissue-requests/', async () => {
  // One pending request per prescription: two prescriptions.
  const q = "insert into prescription_reissue_requests (user_id, prescription_id, reason, created_at) values ($1, $2, 'lost it', $3)";
  const older = await insert(q, [patient.p.id, await prescription(patient.p.id, patient.consultationId, at(0)), at(0)]);
  const newer = await insert(q, [patient.p.id, await prescription(patient.p.id, patient.consultationId, at(0)), at(1)]);
  return { older, newer };
});
patientCase('subscriptions', '/v1/users/subscriptions/', async () => {
  const q = `insert into subscriptions (user_id, category, treatment_id, status, provider, price_cents, cycle_days, started_at, current_period_start, current_period_end, created_at)
             values ($1, 'weight_loss', 'semaglutide', 'canceled', 'sandbox', 19900, 28, $2, $2, $3, $2)`;
  const older = await insert(q, [patient.p.id, at(0), at(60)]);
  const newer = await insert(q, [patient.p.id, at(1), at(30)]);
  return { older, newer, other: { field: 'current_period_end', first: newer, second: older } };
});
patientCase(
  'referred people',
  '/v1/users/referrals/me/referred/',
  async () => {
    const a = await seedPatient(ctx, { referred_by: patient.p.id, created_at: at(0), email_verified_at: at(9) });
    const b = await seedPatient(ctx, { referred_by: patient.p.id, created_at: at(1), email_verified_at: at(3) });
    return { older: a.id, newer: b.id, other: { field: 'joined_at', first: b.id, second: a.id } };
  },
  (r) => String(r.referred_user_id),
);
patientCase(
  'referral transactions',
  '/v1/users/referrals/me/transactions/',
  async () => {
    const friend = await seedPatient(ctx, { referred_by: patient.p.id });
    const q = "insert into payments (user_id, provider, provider_payment_id, amount_cents, status, created_at) values ($1, 'sandbox', $2, $3, 'succeeded', $4)";
    const older = await insert(q, [friend.id, randomUUID(), 9000, at(0)]);
    const newer = await insert(q, [friend.id, randomUUID(), 1000, at(1)]);
    return { older, newer, other: { field: 'amount_cents', first: newer, second: older } };
  },
  (r) => String(r.payment_id),
);
patientCase('access log', '/v1/users/me/access-log/', async () => {
  const q = "insert into access_log (patient_id, actor_role, actor_name, action, resource_type, resource_id, at) values ($1::uuid, 'doctor', 'Dr Who', $2, 'profile', $1::text, $3)";
  const older = await insert(q, [patient.p.id, 'write', at(0)]);
  const newer = await insert(q, [patient.p.id, 'read', at(1)]);
  return { older, newer, other: { field: 'action', first: newer, second: older } };
});
patientCase('connected apps', '/v1/users/connected-apps/', async () => {
  const client = `client-${randomUUID()}`;
  await ctx.db.query("insert into mcp_clients (id, client_name, redirect_uris) values ($1, 'An assistant', '[\"https://a.example/cb\"]')", [client]);
  const q = "insert into mcp_grants (user_id, client_id, scopes, resource, created_at, last_used_at) values ($1, $2, 'journal:read', 'https://api.test.local/mcp', $3, $4)";
  const older = await insert(q, [patient.p.id, client, at(0), at(5)]);
  const newer = await insert(q, [patient.p.id, client, at(1), at(2)]);
  return { older, newer, other: { field: 'last_used_at', first: newer, second: older } };
});

// Staff desks (across accounts): the seeded rows are picked out of the page.
cases.push({
  name: 'review queue',
  path: '/v1/clinician/consultations/?status=pending_review&limit=100',
  token: () => doctor.access,
  seed: async () => {
    const p = await seedPatient(ctx);
    const q = "insert into consultations (user_id, category, status, plan, created_at, updated_at) values ($1, 'weight_loss', 'pending_review', 'one_off', $2, $3)";
    const older = await insert(q, [p.id, at(-400), at(-300)]);
    const newer = await insert(q, [p.id, at(-399), at(-350)]);
    return { older, newer, other: { field: 'updated_at', first: newer, second: older } };
  },
});
cases.push({
  name: 'conversation desk',
  path: '/v1/clinician/conversations/?limit=100',
  token: () => doctor.access,
  seed: async () => {
    const q = 'insert into conversations (user_id, created_at, updated_at) values ($1, $2, $3)';
    const older = await insert(q, [(await seedPatient(ctx)).id, at(-400), at(-300)]);
    const newer = await insert(q, [(await seedPatient(ctx)).id, at(-399), at(-350)]);
    return { older, newer, other: { field: 'updated_at', first: newer, second: older } };
  },
});
cases.push({
  name: 'red-flag desk',
  path: '/v1/clinician/red-flags/?status=all&limit=100',
  token: () => doctor.access,
  seed: async () => {
    const p = await seedPatient(ctx);
    const q = "insert into red_flags (user_id, source, source_id, kind, categories, excerpt, created_at) values ($1, 'journal_note', $2, 'review', '{weight_loss}', 'x', $3)";
    return { older: await insert(q, [p.id, randomUUID(), at(-400)]), newer: await insert(q, [p.id, randomUUID(), at(-399)]) };
  },
});
cases.push({
  name: 'reissue desk',
  path: '/v1/clinician/reissue-requests/?limit=100',
  token: () => doctor.access,
  seed: async () => {
    const { p, consultationId } = await patientWithPlan();
    const q = "insert into prescription_reissue_requests (user_id, prescription_id, reason, created_at) values ($1, $2, 'lost it', $3)";
    const older = await insert(q, [p.id, await prescription(p.id, consultationId, at(0)), at(-400)]);
    const newer = await insert(q, [p.id, await prescription(p.id, consultationId, at(0)), at(-399)]);
    return { older, newer };
  },
});
cases.push({
  name: 'account search',
  path: '/v1/backoffice/users/?email=ordering-case&limit=100',
  token: () => admin.access,
  seed: async () => {
    const tag = randomUUID().slice(0, 8).replace(/\d/g, 'x');
    const a = await seedPatient(ctx, { email: `zz-ordering-case-${tag}@example.org`, created_at: at(-400) });
    const b = await seedPatient(ctx, { email: `aa-ordering-case-${tag}@example.org`, created_at: at(-399) });
    return { older: a.id, newer: b.id, other: { field: 'email', first: b.id, second: a.id } };
  },
});
cases.push({
  name: 'fulfilment queue',
  path: '/v1/pharmacy/orders/?limit=100',
  token: () => pharmacist.access,
  seed: async () => {
    const { p, consultationId } = await patientWithPlan();
    const q = "insert into orders (user_id, consultation_id, status, created_at, updated_at) values ($1, $2, 'awaiting_fulfilment', $3, $4)";
    const older = await insert(q, [p.id, consultationId, at(-400), at(-300)]);
    const newer = await insert(q, [p.id, consultationId, at(-399), at(-350)]);
    return { older, newer, other: { field: 'updated_at', first: newer, second: older } };
  },
});

/** The seeded ids in the order the list answers them. */
async function seen(c: Case, ordering: string, ids: string[]): Promise<string[]> {
  const sep = c.path.includes('?') ? '&' : '?';
  const res = await call(ctx, 'GET', `${c.path}${sep}ordering=${encodeURIComponent(ordering)}`, { token: c.token() });
  expect(res.status, `${c.name} ordering=${ordering}: ${res.text}`).toBe(200);
  const idOf = c.idOf ?? ((r: Record<string, unknown>) => String(r.id));
  return (res.body.results as Record<string, unknown>[]).map(idOf).filter((id) => ids.includes(id));
}

describe('ordering', () => {
  beforeAll(async () => {
    patient = await patientWithPlan();
  });

  for (const c of cases) {
    it(`${c.name}: created_at both ways, its own field, unknown values refused`, async () => {
      const { older, newer, other } = await c.seed();
      const ids = [older, newer];
      expect(await seen(c, 'created_at', ids)).toEqual([older, newer]);
      expect(await seen(c, '-created_at', ids)).toEqual([newer, older]);
      if (other) {
        expect(await seen(c, other.field, ids), other.field).toEqual([other.first, other.second]);
        expect(await seen(c, `-${other.field}`, ids), `-${other.field}`).toEqual([other.second, other.first]);
      }
      const sep = c.path.includes('?') ? '&' : '?';
      for (const bad of ['nonsense', '-', 'constructor', '__proto__', 'id;drop table users', 'created_at,id']) {
        const res = await call(ctx, 'GET', `${c.path}${sep}ordering=${encodeURIComponent(bad)}`, { token: c.token() });
        expect(res.status, `${c.name} ordering=${bad}`).toBe(400);
        expect(Object.keys(res.body)).toEqual(['ordering']);
        expect(res.body.ordering[0]).toContain('created_at, -created_at');
      }
    });
  }

  it('the patient conversation list (one conversation) takes created_at and refuses the rest', async () => {
    for (const ordering of ['created_at', '-created_at']) {
      expect((await call(ctx, 'GET', `/v1/users/conversations/?ordering=${ordering}`, { token: patient.p.access })).status).toBe(200);
    }
    const bad = await call(ctx, 'GET', '/v1/users/conversations/?ordering=updated_at', { token: patient.p.access });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body)).toEqual(['ordering']);
  });

  it('an ordered list shows only the account’s own rows, and next links keep the ordering', async () => {
    const other = await patientWithPlan();
    await ctx.db.query("insert into journal_notes (user_id, content, created_at) values ($1, 'theirs', $2)", [other.p.id, at(3)]);
    const mine = await call(ctx, 'GET', '/v1/users/journal/notes/?ordering=created_at&limit=1', { token: patient.p.access });
    expect(mine.status).toBe(200);
    expect(mine.body.next).toContain('ordering=created_at');
    const theirs = await call(ctx, 'GET', '/v1/users/journal/notes/?ordering=-created_at', { token: other.p.access });
    expect(theirs.body.results.map((r: { content: string }) => r.content)).toEqual(['theirs']);
    // Another account's real id in a filter-like parameter is not a way in either.
    expect((await call(ctx, 'GET', `/v1/users/journal/notes/?ordering=-created_at&user_id=${patient.p.id}`, { token: other.p.access })).body.count).toBe(1);
  });

  it('publishes the allowed values per list in the document', async () => {
    const doc = await call(ctx, 'GET', '/v1/schema/');
    const param = (path: string) =>
      (doc.body.paths[path].get.parameters as { name: string; schema: { enum?: string[] } }[]).find((p) => p.name === 'ordering')?.schema.enum;
    expect(param('/v1/users/payments/')).toEqual(['created_at', '-created_at', 'amount_cents', '-amount_cents']);
    expect(param('/v1/users/journal/weight-entries/')).toEqual(['created_at', '-created_at', 'logged_on', '-logged_on', 'weight_kg', '-weight_kg']);
    expect(param('/v1/users/consultations/')).toContain('-updated_at');
  });
});
