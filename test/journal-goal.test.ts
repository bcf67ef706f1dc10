// The goal weight on the server (docs/journal.md): set, read, clear, bounds, the active-plan gate,
// another account, the data export and erasure, over HTTP against the real app.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestContext, firstRow, PASSWORD, seedPatient, type Patient, type TestContext } from './support/harness.ts';
import { staff } from './billing-fixtures.ts';

let ctx: TestContext;
let doctor: Patient;
beforeAll(async () => {
  ctx = await createTestContext();
  doctor = await staff(ctx, 'doctor');
});
afterAll(async () => ctx?.close());

const GOAL = '/v1/users/journal/goal/';

/** A patient with an approved weight-loss consultation decided now (28 days of supply). */
async function onPlan(): Promise<Patient> {
  const p = await seedPatient(ctx);
  await ctx.db.query(
    "insert into consultations (user_id, category, status, plan, supply_days, decided_at) values ($1, 'weight_loss', 'approved', 'one_off', 28, $2)",
    [p.id, ctx.deps.clock.now()],
  );
  return p;
}

describe('the goal weight', () => {
  it('starts unset, is set, read back, changed and cleared', async () => {
    const p = await onPlan();
    expect((await call(ctx, 'GET', GOAL, { token: p.access })).body).toEqual({ goal_weight_kg: null, updated_at: null });
    const set = await call(ctx, 'PUT', GOAL, { token: p.access, json: { goal_weight_kg: 78.5 } });
    expect(set.status).toBe(200);
    expect(set.body.goal_weight_kg).toBe(78.5);
    expect(typeof set.body.updated_at).toBe('string');
    expect((await call(ctx, 'GET', GOAL, { token: p.access })).body).toEqual(set.body);
    const changed = await call(ctx, 'PUT', GOAL, { token: p.access, json: { goal_weight_kg: '80' } });
    expect(changed.body.goal_weight_kg).toBe(80);
    const cleared = await call(ctx, 'PUT', GOAL, { token: p.access, json: { goal_weight_kg: null } });
    expect(cleared.status).toBe(200);
    expect(cleared.body.goal_weight_kg).toBeNull();
    expect((await call(ctx, 'GET', GOAL, { token: p.access })).body.goal_weight_kg).toBeNull();
    expect(firstRow(await ctx.db.query<{ n: number }>('select count(*)::int as n from journal_goals where user_id = $1', [p.id])).n).toBe(1);
  });

  it('refuses values outside the weight entries’ bounds with a field-keyed 400 and keeps the stored goal', async () => {
    const p = await onPlan();
    await call(ctx, 'PUT', GOAL, { token: p.access, json: { goal_weight_kg: 70 } });
    for (const bad of [19.9, 500.1, 'heavy', true, -1]) {
      const r = await call(ctx, 'PUT', GOAL, { token: p.access, json: { goal_weight_kg: bad } });
      expect(r.status, String(bad)).toBe(400);
      expect(Array.isArray(r.body.goal_weight_kg), String(bad)).toBe(true);
    }
    const missing = await call(ctx, 'PUT', GOAL, { token: p.access, json: {} });
    expect(missing.status).toBe(400);
    expect(Array.isArray(missing.body.goal_weight_kg)).toBe(true);
    for (const edge of [20, 500]) expect((await call(ctx, 'PUT', GOAL, { token: p.access, json: { goal_weight_kg: edge } })).body.goal_weight_kg).toBe(edge);
  });

  it('is behind the active-plan gate like every journal route', async () => {
    const p = await seedPatient(ctx);
    for (const [method, json] of [['GET', undefined], ['PUT', { goal_weight_kg: 70 }]] as const) {
      const r = await call(ctx, method, GOAL, { token: p.access, json });
      expect(r.status, method).toBe(403);
      expect(r.body.code).toBe('active_treatment_plan_required');
    }
    expect((await call(ctx, 'GET', GOAL)).status).toBe(401);
  });

  it('is the account’s own: another account neither reads nor changes it', async () => {
    const a = await onPlan();
    const b = await onPlan();
    await call(ctx, 'PUT', GOAL, { token: a.access, json: { goal_weight_kg: 72.25 } });
    // B reads its own (unset) goal, not A's, and B's write leaves A's goal as it was.
    expect((await call(ctx, 'GET', GOAL, { token: b.access })).body.goal_weight_kg).toBeNull();
    await call(ctx, 'PUT', GOAL, { token: b.access, json: { goal_weight_kg: 95 } });
    expect((await call(ctx, 'GET', GOAL, { token: a.access })).body.goal_weight_kg).toBe(72.25);
    expect((await call(ctx, 'GET', GOAL, { token: b.access })).body.goal_weight_kg).toBe(95);
    // The goal has no id of its own: the route answers only the caller's row (A's user id in a query is ignored).
    expect((await call(ctx, 'GET', `${GOAL}?user_id=${a.id}`, { token: b.access })).body.goal_weight_kg).toBe(95);
  });

  it('is in the data export and deleted on erasure', async () => {
    const p = await onPlan();
    const other = await onPlan();
    await call(ctx, 'PUT', GOAL, { token: p.access, json: { goal_weight_kg: 81.5 } });
    await call(ctx, 'PUT', GOAL, { token: other.access, json: { goal_weight_kg: 66 } });
    const exp = await call(ctx, 'GET', '/v1/users/me/export/', { token: p.access });
    expect(exp.status).toBe(200);
    expect(exp.body.journal.goal).toEqual({ goal_weight_kg: 81.5, updated_at: expect.any(String) });
    const none = await seedPatient(ctx);
    expect((await call(ctx, 'GET', '/v1/users/me/export/', { token: none.access })).body.journal.goal).toBeNull();

    // The account's password (seeded accounts have none): the doctor's hash is PASSWORD's.
    await ctx.db.query('update users set password_hash = (select password_hash from users where id = $2) where id = $1', [p.id, doctor.id]);
    expect((await call(ctx, 'DELETE', '/v1/users/me/', { token: p.access, json: { password: PASSWORD } })).status).toBe(204);
    const left = await ctx.db.query<{ user_id: string }>('select user_id from journal_goals where user_id = any($1)', [[p.id, other.id]]);
    expect(left.map((r) => r.user_id)).toEqual([other.id]);
  });
});
