import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestContext, type Patient, type TestContext, firstRow } from './support/harness.ts';
import { paySandbox, readyPatient, staff } from './billing-fixtures.ts';

let ctx: TestContext;
let admin: Patient;
beforeAll(async () => {
  ctx = await createTestContext();
  admin = await staff(ctx, 'backoffice_admin');
});
afterAll(async () => {
  await ctx?.close();
});

describe('back office', () => {
  it('patients and doctors get 403 permission_denied', async () => {
    const p = await readyPatient(ctx);
    const doctor = await staff(ctx, 'doctor');
    for (const token of [p.access, doctor.access]) {
      for (const [m, u] of <[string, string][]>[
        ['GET', '/v1/backoffice/users/?email=x'],
        ['POST', `/v1/backoffice/users/${p.id}/disable/`],
        ['POST', `/v1/backoffice/users/${p.id}/enable/`],
        ['POST', `/v1/backoffice/payments/${randomUUID()}/refund/`],
      ]) {
        const r = await call(ctx, m, u, { token, json: m === 'POST' ? {} : undefined });
        expect(r.status, u).toBe(403);
        expect(r.body.code).toBe('permission_denied');
      }
    }
  });

  it('finds users by email, disables (sessions end at once) and enables', async () => {
    const p = await readyPatient(ctx);
    const found = await call(ctx, 'GET', `/v1/backoffice/users/?email=${encodeURIComponent(p.email.toUpperCase())}`, { token: admin.access });
    expect(found.status).toBe(200);
    expect(found.body.count).toBe(1);
    expect(found.body.results[0]).toMatchObject({ id: p.id, email: p.email, is_active: true });

    expect((await call(ctx, 'GET', '/v1/users/payments/', { token: p.access })).status).toBe(200);
    const dis = await call(ctx, 'POST', `/v1/backoffice/users/${p.id}/disable/`, { token: admin.access });
    expect(dis.status).toBe(200);
    expect(dis.body).toMatchObject({ is_active: false });
    const after = await call(ctx, 'GET', '/v1/users/payments/', { token: p.access });
    expect(after.status).toBe(401);
    const { n } = firstRow(await ctx.db.query('select count(*)::int as n from refresh_families where user_id = $1 and revoked_at is null', [p.id]));
    expect(n).toBe(0);
    const en = await call(ctx, 'POST', `/v1/backoffice/users/${p.id}/enable/`, { token: admin.access });
    expect(en.body.is_active).toBe(true);
    expect((await call(ctx, 'POST', `/v1/backoffice/users/${randomUUID()}/disable/`, { token: admin.access })).status).toBe(404);
    expect((await call(ctx, 'POST', `/v1/backoffice/users/${admin.id}/disable/`, { token: admin.access })).status).toBe(400);
    const audit = await ctx.db.query("select action from audit_log where subject_id = $1 and subject_type = 'user' order by created_at", [p.id]);
    expect(audit.map((a) => a.action)).toEqual(['user.disabled', 'user.enabled']);
  });

  it('refunds partially then fully; the consultation waiting for review becomes refunded', async () => {
    const p = await readyPatient(ctx);
    const { session } = await paySandbox(ctx, p, { category: 'weight_loss', plan: 'one_off' });
    const pay = firstRow(await ctx.db.query('select * from payments where id = $1', [session.payment_id]));
    const tooMuch = await call(ctx, 'POST', `/v1/backoffice/payments/${pay.id}/refund/`, { token: admin.access, json: { amount_cents: pay.amount_cents + 1 } });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.body.amount_cents).toBeDefined();
    const part = await call(ctx, 'POST', `/v1/backoffice/payments/${pay.id}/refund/`, { token: admin.access, json: { amount_cents: 1000 } });
    expect(part.status).toBe(200);
    expect(part.body).toMatchObject({ status: 'partially_refunded', refunded_amount_cents: 1000, net_amount_cents: pay.amount_cents - 1000 });
    expect(part.body.refund).toMatchObject({ amount_cents: 1000, total_refunded_cents: 1000, status: 'succeeded' });
    // More than what is left after the partial refund (though not more than the payment): refused
    // before the provider is asked to pay anything out; nothing recorded.
    const overLeft = await call(ctx, 'POST', `/v1/backoffice/payments/${pay.id}/refund/`, { token: admin.access, json: { amount_cents: pay.amount_cents } });
    expect(overLeft.status, overLeft.text).toBe(400);
    expect(overLeft.body).toEqual({ amount_cents: [`Enter an amount between 1 and ${pay.amount_cents - 1000}.`] });
    expect(firstRow(await ctx.db.query('select refunded_amount_cents from payments where id = $1', [pay.id])).refunded_amount_cents).toBe(1000);
    const rest = await call(ctx, 'POST', `/v1/backoffice/payments/${pay.id}/refund/`, { token: admin.access, json: {} });
    expect(rest.body).toMatchObject({ status: 'refunded', refunded_amount_cents: pay.amount_cents, net_amount_cents: 0 });
    expect(rest.body.refund.refunds).toHaveLength(2);
    const none = await call(ctx, 'POST', `/v1/backoffice/payments/${pay.id}/refund/`, { token: admin.access, json: {} });
    expect(none.status).toBe(400);
    const c = await call(ctx, 'GET', `/v1/users/consultations/${session.consultation_id}/`, { token: p.access });
    expect(c.body.status).toBe('refunded');
    expect(c.body.user).toMatchObject({ total_refunded_cents: pay.amount_cents, net_spent_cents: 0 });
    const mine = await call(ctx, 'GET', '/v1/users/payments/', { token: p.access });
    expect(mine.body.results[0]).toMatchObject({ refunded_amount_cents: pay.amount_cents, net_amount_cents: 0 });
    const inv = await call(ctx, 'GET', `/v1/users/payments/${pay.id}/invoice/`, { token: p.access });
    expect(inv.text.startsWith('%PDF')).toBe(true);
    expect((await call(ctx, 'POST', `/v1/backoffice/payments/${randomUUID()}/refund/`, { token: admin.access, json: {} })).status).toBe(404);
  });
});
