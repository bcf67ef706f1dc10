// Progress journal over HTTP: the active-plan gate, every collection, validation and account scoping.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATETIME_FORMAT_MESSAGE } from '../src/http/fields.ts';
import { call, createTestContext, seedPatient, type Patient, type TestContext } from './support/harness.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => ctx?.close());

const J = '/v1/users/journal';

/** A patient with an approved weight-loss consultation decided now (28 days of supply). */
async function onPlan(columns: Record<string, unknown> = {}): Promise<Patient> {
  const p = await seedPatient(ctx, columns);
  await ctx.db.query(
    "insert into consultations (user_id, category, status, plan, supply_days, decided_at) values ($1, 'weight_loss', 'approved', 'one_off', 28, $2)",
    [p.id, ctx.deps.clock.now()],
  );
  return p;
}

describe('the active treatment plan gate', () => {
  it('answers every journal route with 403 active_treatment_plan_required without a plan', async () => {
    const p = await seedPatient(ctx);
    const id = randomUUID();
    const routes: [string, string, unknown?][] = [
      ['GET', `${J}/weight-entries/`], ['POST', `${J}/weight-entries/`, { weight_kg: 80 }], ['PATCH', `${J}/weight-entries/${id}/`, { weight_kg: 80 }],
      ['DELETE', `${J}/weight-entries/${id}/`], ['GET', `${J}/injections/`], ['POST', `${J}/injections/`, { dose: '1 mg', injected_at: '2026-11-20T08:00:00+01:00' }],
      ['PATCH', `${J}/injections/${id}/`, {}], ['DELETE', `${J}/injections/${id}/`], ['GET', `${J}/injection-plan/`], ['PATCH', `${J}/injection-plan/`, {}],
      ['GET', `${J}/notes/`], ['POST', `${J}/notes/`, { content: 'x' }], ['PATCH', `${J}/notes/${id}/`, {}], ['DELETE', `${J}/notes/${id}/`],
    ];
    for (const [method, path, json] of routes) {
      const r = await call(ctx, method, path, { token: p.access, json });
      expect(r.status, `${method} ${path}`).toBe(403);
      expect(r.body.code).toBe('active_treatment_plan_required');
    }
    // Side effects: for any treatment ever prescribed; never prescribed one is its own refusal.
    for (const [method, path, json] of [['GET', `${J}/side-effects/`], ['POST', `${J}/side-effects/`, { symptom: 'nausea', severity: 'mild' }]] as const) {
      const r = await call(ctx, method, path, { token: p.access, json });
      expect(r.status, `${method} ${path}`).toBe(403);
      expect(r.body).toEqual({ detail: 'Side effects can be reported for a treatment you were prescribed.', code: 'prescription_required' });
    }
  });

  it('opens with an active or past-due subscription and closes when an approved supply has run out', async () => {
    const sub = await seedPatient(ctx);
    const now = ctx.deps.clock.now();
    await ctx.db.query(
      `insert into subscriptions (user_id, category, treatment_id, status, provider, price_cents, cycle_days, started_at, current_period_start, current_period_end)
       values ($1, 'weight_loss', 'semaglutide', 'past_due', 'sandbox', 19900, 28, $2, $2, $2)`,
      [sub.id, now],
    );
    expect((await call(ctx, 'GET', `${J}/notes/`, { token: sub.access })).status).toBe(200);
    const old = await seedPatient(ctx);
    await ctx.db.query(
      "insert into consultations (user_id, category, status, plan, supply_days, decided_at) values ($1, 'hair_growth', 'approved', 'one_off', 30, $2)",
      [old.id, new Date(now.getTime() - 31 * 86_400_000)],
    );
    expect((await call(ctx, 'GET', `${J}/notes/`, { token: old.access })).status).toBe(403);
  });
});

describe('weight entries', () => {
  it('keeps one entry per day: a second create for the day updates it', async () => {
    const p = await onPlan();
    const first = await call(ctx, 'POST', `${J}/weight-entries/`, { token: p.access, json: { weight_kg: 92.4, logged_on: '2026-11-01', note: 'morning' } });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ weight_kg: 92.4, logged_on: '2026-11-01', note: 'morning' });
    const again = await call(ctx, 'POST', `${J}/weight-entries/`, { token: p.access, json: { weight_kg: '91.9', logged_on: '2026-11-01' } });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id: first.body.id, weight_kg: 91.9, note: 'morning' });
    await call(ctx, 'POST', `${J}/weight-entries/`, { token: p.access, json: { weight_kg: 91, logged_on: '2026-11-08' } });
    const list = await call(ctx, 'GET', `${J}/weight-entries/?limit=1`, { token: p.access });
    expect(list.body.count).toBe(2);
    expect(list.body.results[0].logged_on).toBe('2026-11-08');
    expect(list.body.next).toBe('http://api.test.local/v1/users/journal/weight-entries/?limit=1&offset=1');
  });

  it('patches partially, validates the number and range, and deletes with 204', async () => {
    const p = await onPlan();
    const e = (await call(ctx, 'POST', `${J}/weight-entries/`, { token: p.access, json: { weight_kg: 80, logged_on: '2026-10-01', note: 'keep me' } })).body;
    const patched = await call(ctx, 'PATCH', `${J}/weight-entries/${e.id}/`, { token: p.access, json: { weight_kg: 79.5 } });
    expect(patched.body).toMatchObject({ weight_kg: 79.5, note: 'keep me', logged_on: '2026-10-01' });
    for (const weight_kg of ['heavy', null, true, 5, 900]) {
      const r = await call(ctx, 'PATCH', `${J}/weight-entries/${e.id}/`, { token: p.access, json: { weight_kg } });
      expect(r.status, String(weight_kg)).toBe(400);
      expect(r.body.weight_kg).toEqual([expect.any(String)]);
    }
    expect((await call(ctx, 'PATCH', `${J}/weight-entries/${e.id}/`, { token: p.access, json: { weight_kg: 'heavy' } })).body.weight_kg[0]).toBe('A valid number is required.');
    expect((await call(ctx, 'DELETE', `${J}/weight-entries/${e.id}/`, { token: p.access })).status).toBe(204);
    expect((await call(ctx, 'DELETE', `${J}/weight-entries/${e.id}/`, { token: p.access })).status).toBe(404);
  });

  it('refuses a weight logged on a future day with a field-keyed 400 (create and patch); today is accepted', async () => {
    const p = await onPlan();
    const now = ctx.deps.clock.now();
    const today = now.toISOString().slice(0, 10);
    const tomorrow = new Date(now.getTime() + 86_400_000).toISOString().slice(0, 10);
    const future = { logged_on: ['The date cannot be in the future.'] };
    for (const logged_on of [tomorrow, '2999-01-01']) {
      const r = await call(ctx, 'POST', `${J}/weight-entries/`, { token: p.access, json: { weight_kg: 80, logged_on } });
      expect(r.status, logged_on).toBe(400);
      expect(r.body, logged_on).toEqual(future);
    }
    expect((await call(ctx, 'GET', `${J}/weight-entries/`, { token: p.access })).body.count).toBe(0);
    const e = await call(ctx, 'POST', `${J}/weight-entries/`, { token: p.access, json: { weight_kg: 80, logged_on: today } });
    expect(e.status).toBe(201);
    expect(e.body.logged_on).toBe(today);
    const moved = await call(ctx, 'PATCH', `${J}/weight-entries/${e.body.id}/`, { token: p.access, json: { logged_on: tomorrow } });
    expect(moved.status).toBe(400);
    expect(moved.body).toEqual(future);
    expect((await call(ctx, 'GET', `${J}/weight-entries/`, { token: p.access })).body.results.map((w: { logged_on: string }) => w.logged_on)).toEqual([today]);
  });
});

describe('injections and the plan', () => {
  it('requires dose and injected_at with an offset, creates a new entry on every call', async () => {
    const p = await onPlan();
    const missing = await call(ctx, 'POST', `${J}/injections/`, { token: p.access, json: {} });
    expect(missing.status).toBe(400);
    expect(Object.keys(missing.body).sort()).toEqual(['dose', 'injected_at']);
    const naive = await call(ctx, 'POST', `${J}/injections/`, { token: p.access, json: { dose: '0.25 mg', injected_at: '2026-11-20T08:00:00' } });
    expect(naive.status).toBe(400);
    expect(naive.body).toEqual({ injected_at: [DATETIME_FORMAT_MESSAGE] });
    const site = await call(ctx, 'POST', `${J}/injections/`, { token: p.access, json: { dose: '0.25 mg', injected_at: '2026-11-20T08:00:00Z', injection_site: 'arm' } });
    expect(site.status).toBe(400);
    expect(site.body).toEqual({ injection_site: ['Must be one of abdomen, thigh, upper_arm.'] });
    const long = await call(ctx, 'POST', `${J}/injections/`, { token: p.access, json: { dose: 'x'.repeat(81), injected_at: '2026-11-20T08:00:00Z', medication: 'y'.repeat(65) } });
    expect(long.status).toBe(400);
    expect(long.body).toEqual({ dose: ['Ensure this field has no more than 80 characters.'], medication: ['Ensure this field has no more than 64 characters.'] });
    expect((await call(ctx, 'GET', `${J}/injections/`, { token: p.access })).body.count).toBe(0);
    const body = { dose: '0.25 mg', injected_at: '2026-11-20T08:00:00+01:00', injection_site: 'thigh', medication: 'Wegovy' };
    const a = await call(ctx, 'POST', `${J}/injections/`, { token: p.access, json: body });
    const b = await call(ctx, 'POST', `${J}/injections/`, { token: p.access, json: body });
    expect(a.status).toBe(201);
    expect(a.body.injected_at).toBe('2026-11-20T07:00:00.000Z');
    expect(b.body.id).not.toBe(a.body.id);
    const upd = await call(ctx, 'PATCH', `${J}/injections/${a.body.id}/`, { token: p.access, json: { injection_site: 'abdomen' } });
    expect(upd.body).toMatchObject({ injection_site: 'abdomen', dose: '0.25 mg' });
    expect((await call(ctx, 'GET', `${J}/injections/`, { token: p.access })).body.count).toBe(2);
  });

  it('reads a default plan on first read (never null) and validates its update', async () => {
    const p = await onPlan();
    const plan = await call(ctx, 'GET', `${J}/injection-plan/`, { token: p.access });
    expect(plan.status).toBe(200);
    expect(plan.body).toMatchObject({ medication: '', preferred_time: '09:00', active: true });
    expect((await call(ctx, 'GET', `${J}/injection-plan/`, { token: p.access })).body.id).toBe(plan.body.id);
    for (const json of [{ anchor_weekday: 7 }, { anchor_weekday: -1 }, { preferred_time: '24:00' }, { preferred_time: '9:00' }, { medication: 'm'.repeat(65) }]) {
      const r = await call(ctx, 'PATCH', `${J}/injection-plan/`, { token: p.access, json });
      expect(r.status, JSON.stringify(json)).toBe(400);
      expect(Object.keys(r.body)).toEqual(Object.keys(json));
    }
    const ok = await call(ctx, 'PATCH', `${J}/injection-plan/`, { token: p.access, json: { anchor_weekday: 6, preferred_time: '23:59', medication: 'Mounjaro', starts_on: '2026-12-01' } });
    expect(ok.body).toMatchObject({ anchor_weekday: 6, preferred_time: '23:59', medication: 'Mounjaro', starts_on: '2026-12-01', id: plan.body.id });
  });
});

describe('notes and side effects', () => {
  it('creates, updates and deletes notes (204)', async () => {
    const p = await onPlan();
    const n = await call(ctx, 'POST', `${J}/notes/`, { token: p.access, json: { content: 'Felt fine' } });
    expect(n.status).toBe(201);
    expect((await call(ctx, 'PATCH', `${J}/notes/${n.body.id}/`, { token: p.access, json: { content: 'Felt great' } })).body.content).toBe('Felt great');
    expect((await call(ctx, 'POST', `${J}/notes/`, { token: p.access, json: { content: '  ' } })).status).toBe(400);
    const del = await call(ctx, 'DELETE', `${J}/notes/${n.body.id}/`, { token: p.access });
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
  });

  it('flags a severe side effect with the emergency notice of the patient’s country', async () => {
    const p = await onPlan({ country_of_residence: 'GBR', locale: 'en' });
    const mild = await call(ctx, 'POST', `${J}/side-effects/`, { token: p.access, json: { symptom: 'nausea', severity: 'mild' } });
    expect(mild.body).toMatchObject({ flagged: false, emergency: null });
    const severe = await call(ctx, 'POST', `${J}/side-effects/`, { token: p.access, json: { symptom: 'vomiting', severity: 'severe', note: 'since two days' } });
    expect(severe.status).toBe(201);
    expect(severe.body).toMatchObject({ flagged: true, emergency: { number: '999' } });
    expect((await call(ctx, 'GET', `${J}/side-effects/`, { token: p.access })).body.count).toBe(2);
    const unknown = await call(ctx, 'POST', `${J}/side-effects/`, { token: p.access, json: { symptom: 'x', severity: 'deadly' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({ severity: ['Must be one of mild, moderate, severe.'] });
    const tomorrow = new Date(ctx.deps.clock.now().getTime() + 86_400_000).toISOString().slice(0, 10);
    const ahead = await call(ctx, 'POST', `${J}/side-effects/`, { token: p.access, json: { symptom: 'nausea', severity: 'mild', started_on: tomorrow } });
    expect(ahead.status).toBe(400);
    expect(ahead.body).toEqual({ started_on: ['The date cannot be in the future.'] });
    expect((await call(ctx, 'GET', `${J}/side-effects/`, { token: p.access })).body.count).toBe(2);
  });
});

describe('account scoping', () => {
  it('answers another account’s entries exactly like missing ones', async () => {
    const a = await onPlan();
    const b = await onPlan();
    const w = (await call(ctx, 'POST', `${J}/weight-entries/`, { token: a.access, json: { weight_kg: 70, logged_on: '2026-09-09' } })).body;
    const i = (await call(ctx, 'POST', `${J}/injections/`, { token: a.access, json: { dose: '1 mg', injected_at: '2026-11-20T08:00:00Z' } })).body;
    const n = (await call(ctx, 'POST', `${J}/notes/`, { token: a.access, json: { content: 'private' } })).body;
    const missing = await call(ctx, 'PATCH', `${J}/notes/${randomUUID()}/`, { token: b.access, json: { content: 'x' } });
    for (const r of [
      await call(ctx, 'PATCH', `${J}/weight-entries/${w.id}/`, { token: b.access, json: { weight_kg: 50 } }),
      await call(ctx, 'DELETE', `${J}/weight-entries/${w.id}/`, { token: b.access }),
      await call(ctx, 'PATCH', `${J}/injections/${i.id}/`, { token: b.access, json: { dose: '2 mg' } }),
      await call(ctx, 'DELETE', `${J}/injections/${i.id}/`, { token: b.access }),
      await call(ctx, 'PATCH', `${J}/notes/${n.id}/`, { token: b.access, json: { content: 'x' } }),
      await call(ctx, 'DELETE', `${J}/notes/${n.id}/`, { token: b.access }),
      // An empty PATCH changes nothing and answers the entry as it is: read, not written, so it
      // goes through each module's own read of one entry.
      await call(ctx, 'PATCH', `${J}/notes/${n.id}/`, { token: b.access, json: {} }),
      await call(ctx, 'PATCH', `${J}/weight-entries/${w.id}/`, { token: b.access, json: {} }),
      await call(ctx, 'PATCH', `${J}/injections/${i.id}/`, { token: b.access, json: {} }),
    ]) {
      expect(r.status).toBe(404);
      expect(r.body).toEqual(missing.body);
    }
    expect((await call(ctx, 'GET', `${J}/notes/`, { token: b.access })).body.count).toBe(0);
    expect((await call(ctx, 'GET', `${J}/weight-entries/`, { token: a.access })).body.results[0].weight_kg).toBe(70);
  });
});
