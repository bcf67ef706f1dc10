// One charge per review: a second paid session for the same submission or plan creates nothing and
// is refunded through the provider; a new checkout closes the older open ones; return URLs are ours.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { providerFor } from '../src/payment-providers/index.ts';
import { call, createTestContext, type Patient, type TestContext, firstRow } from './support/harness.ts';
import { readyPatient } from './billing-fixtures.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext({ CORS_ORIGINS: 'https://app.example.org' });
});
afterAll(async () => ctx?.close());

const checkout = (p: Patient, body: Record<string, unknown>) => call(ctx, 'POST', '/v1/users/checkout/', { token: p.access, json: body });
const pay = (checkoutUrl: string) =>
  call(ctx, 'POST', `${new URL(checkoutUrl).pathname}pay/`, { payload: '', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
const session = (p: Patient, id: string) => call(ctx, 'GET', `/v1/users/sandbox/session/${id}/`, { token: p.access });

async function counts(userId: string) {
  const [row] = await ctx.db.query(
    `select (select count(*)::int from consultations where user_id = $1) as consultations,
            (select count(*)::int from payments where user_id = $1) as payments,
            (select count(*)::int from subscriptions where user_id = $1) as subscriptions,
            (select count(*)::int from checkout_sessions where user_id = $1 and status = 'refunded') as refunded`,
    [userId],
  );
  return row;
}

describe('one charge per review', () => {
  it('a new checkout expires the older open session of the same submission: its page can no longer pay', async () => {
    const p = await readyPatient(ctx);
    const first = await checkout(p, { category: 'weight_loss', plan: 'subscription' });
    const second = await checkout(p, { category: 'weight_loss', plan: 'subscription' });
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect((await session(p, first.body.session_id)).body.status).toBe('expired');
    const paidOld = await pay(first.body.checkout_url);
    expect(paidOld.status).toBe(303);
    expect(paidOld.headers.location).toContain('/checkout/cancelled/');
    expect((await pay(second.body.checkout_url)).headers.location).toContain('/checkout/complete/');
    expect(await counts(p.id)).toMatchObject({ consultations: 1, payments: 1, subscriptions: 1, refunded: 0 });
  });

  it('a tab the provider let pay after its replacement was paid: nothing is created, it is refunded with a mail', async () => {
    const p = await readyPatient(ctx);
    const a = await checkout(p, { category: 'weight_loss', plan: 'subscription' });
    const b = await checkout(p, { category: 'weight_loss', plan: 'subscription' });
    expect((await pay(b.body.checkout_url)).headers.location).toContain('/checkout/complete/');
    // The provider let the replaced tab pay anyway (e.g. it was completed before it could be closed).
    await ctx.db.query("update checkout_sessions set status = 'open' where id = $1", [a.body.session_id]);
    expect((await pay(a.body.checkout_url)).status).toBe(303);
    const views = await Promise.all([session(p, a.body.session_id), session(p, b.body.session_id)]);
    expect(views.map((v) => v.body.status)).toEqual(['refunded', 'paid']);
    expect(views[0]!.body).toMatchObject({ refund_reason: 'submission_already_paid', consultation_id: null, payment_id: null });
    expect(await counts(p.id)).toMatchObject({ consultations: 1, payments: 1, subscriptions: 1, refunded: 1 });
    await ctx.flushMail();
    // The patient's locale here is German.
    const mail = ctx.mails.filter((m) => m.to === p.email && m.subject === 'Doppelte Zahlung erstattet');
    expect(mail).toHaveLength(1);
    expect(mail[0]!.text).not.toMatch(/semaglutide|tirzepatide|weight/i);
  });

  it('the duplicate refund: the amount paid, on the provider payment, one key per session; a refused refund leaves it for the next check, which refunds once', async () => {
    const p = await readyPatient(ctx);
    const a = await checkout(p, { category: 'weight_loss', plan: 'subscription' });
    const b = await checkout(p, { category: 'weight_loss', plan: 'subscription' });
    expect((await pay(b.body.checkout_url)).headers.location).toContain('/checkout/complete/');
    await ctx.db.query("update checkout_sessions set status = 'open' where id = $1", [a.body.session_id]);
    const refund = vi.spyOn(providerFor(ctx.deps, 'sandbox'), 'refund');
    refund.mockResolvedValueOnce({ id: 're_refused', status: 'failed' });
    try {
      // The provider refuses: nothing is finalised, the patient is not told yet.
      await pay(a.body.checkout_url);
      const held = firstRow(await ctx.db.query('select status, finalised_at, provider_refund_id from checkout_sessions where id = $1', [a.body.session_id]));
      expect(held).toMatchObject({ finalised_at: null, provider_refund_id: null });
      expect(held.status).not.toBe('refunded');
      expect(await counts(p.id)).toMatchObject({ consultations: 1, payments: 1, subscriptions: 1, refunded: 0 });
      // The next session check refunds it.
      expect((await session(p, a.body.session_id)).body).toMatchObject({ status: 'refunded', refund_reason: 'submission_already_paid' });
      const row = firstRow(await ctx.db.query('select amount_cents, currency, provider_payment_id, provider_refund_id from checkout_sessions where id = $1', [a.body.session_id]));
      expect(refund).toHaveBeenCalledTimes(2);
      for (const [asked] of refund.mock.calls) {
        expect(asked).toEqual({ providerPaymentId: row.provider_payment_id, amountCents: row.amount_cents, idempotencyKey: `duplicate_${a.body.session_id}` });
      }
      expect(row.provider_payment_id).toEqual(expect.any(String));
      expect(row.provider_refund_id).toMatch(/^re_sandbox/);
      expect(await counts(p.id)).toMatchObject({ consultations: 1, payments: 1, subscriptions: 1, refunded: 1 });
      await ctx.flushMail();
      const mail = ctx.mails.filter((m) => m.to === p.email && m.subject === 'Doppelte Zahlung erstattet');
      expect(mail).toHaveLength(1);
      // The amount in the patient's locale (German: decimal comma), and their name.
      expect(mail[0]!.text).toContain((Number(row.amount_cents) / 100).toFixed(2).replace('.', ','));
    } finally {
      refund.mockRestore();
    }
  });

  it('20 parallel checkouts for one submission leave exactly one payable session: paying every page charges once and refunds nothing', async () => {
    const p = await readyPatient(ctx);
    const sessions = await Promise.all(Array.from({ length: 20 }, () => checkout(p, { category: 'weight_loss', plan: 'subscription' })));
    for (const s of sessions) expect(s.status).toBe(200);
    const open = await ctx.db.query("select id from checkout_sessions where user_id = $1 and status = 'open'", [p.id]);
    expect(open).toHaveLength(1);
    const pages = await Promise.all(sessions.map((s) => pay(s.body.checkout_url)));
    expect(pages.filter((r) => String(r.headers.location).includes('/checkout/complete/'))).toHaveLength(1);
    const views = await Promise.all(sessions.map((s) => session(p, s.body.session_id)));
    expect(views.filter((v) => v.body.status === 'paid')).toHaveLength(1);
    expect(views.filter((v) => v.body.status === 'expired')).toHaveLength(19);
    expect(await counts(p.id)).toMatchObject({ consultations: 1, payments: 1, subscriptions: 1, refunded: 0 });
  });

  it('the database refuses a second open session for one submission, whatever the code path', async () => {
    const p = await readyPatient(ctx);
    const first = await checkout(p, { category: 'weight_loss', plan: 'one_off' });
    expect(first.status).toBe(200);
    const copy = `cs_copy_${first.body.session_id}`;
    await expect(
      ctx.db.query(
        `insert into checkout_sessions (id, user_id, provider, category, plan, treatment_id, dosage, submission_id, amount_cents, currency, status, success_url, cancel_url, expires_at)
         select $1, user_id, provider, category, plan, treatment_id, dosage, submission_id, amount_cents, currency, 'open', success_url, cancel_url, expires_at from checkout_sessions where id = $2`,
        [copy, first.body.session_id],
      ),
    ).rejects.toMatchObject({ code: '23505' });
  });

  it('the database refuses a second live consultation for one submission, whatever the code path', async () => {
    const p = await readyPatient(ctx);
    const sub = firstRow(await ctx.db.query("select id from questionnaire_submissions where user_id = $1 and category = 'weight_loss'", [p.id]));
    const insert = () =>
      ctx.db.query("insert into consultations (user_id, category, plan, status, questionnaire_submission_id) values ($1, 'weight_loss', 'one_off', 'pending_review', $2)", [p.id, sub.id]);
    await insert();
    await expect(insert()).rejects.toMatchObject({ code: '23505' });
  });
});

describe('return URLs after payment', () => {
  it('accepts only this service’s pages and the configured web-app origins (no open redirect)', async () => {
    const p = await readyPatient(ctx);
    for (const url of ['https://evil.example/phish', 'http://app.example.org.evil.example/', 'javascript:alert(1)']) {
      const r = await checkout(p, { category: 'weight_loss', plan: 'one_off', success_url: url });
      expect(r.status, url).toBe(400);
      expect(Object.keys(r.body)).toEqual(['success_url']);
      const c = await checkout(p, { category: 'weight_loss', plan: 'one_off', cancel_url: url });
      expect(c.status, url).toBe(400);
    }
    expect((await checkout(p, { category: 'weight_loss', plan: 'one_off', success_url: 'https://app.example.org/done?s={CHECKOUT_SESSION_ID}' })).status).toBe(200);
    expect((await checkout(p, { category: 'weight_loss', plan: 'one_off', success_url: 'http://api.test.local/checkout/complete/' })).status).toBe(200);
  });
});
