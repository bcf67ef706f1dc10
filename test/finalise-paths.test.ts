// Finalisation paths the billing tests do not reach (src/modules/checkout/finalise.ts): a second
// paid session refunded because the category already has an open consultation or a live plan
// through another submission (and the plan the provider opened for it cancelled), the refund mail's
// greeting and language, the provider's non-paid states, and what a paid session carries onto its
// row and its payment. The provider's answer is the sandbox's own, with the fields a provider such
// as Stripe sends and the sandbox does not (customer id, a subscription it opened) added by a spy.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { providerFor, type PaymentProvider, type SessionState, type StoredSession } from '../src/payment-providers/index.ts';
import { getCategory } from '../src/modules/questionnaires/catalogue.ts';
import { call, createTestContext, type Patient, type TestContext, firstRow } from './support/harness.ts';
import { addSubmission, readyPatient } from './billing-fixtures.ts';

let ctx: TestContext;
let sandbox: PaymentProvider;
beforeAll(async () => {
  ctx = await createTestContext();
  sandbox = providerFor(ctx.deps, 'sandbox');
});
afterEach(() => {
  vi.restoreAllMocks();
  delete sandbox.cancelSubscription;
});
afterAll(async () => ctx?.close());

const checkout = async (p: Patient, body: Record<string, unknown>) => {
  const r = await call(ctx, 'POST', '/v1/users/checkout/', { token: p.access, json: body });
  expect(r.status, r.text).toBe(200);
  return r.body as { session_id: string; checkout_url: string; treatment_id: string; dosage: string; supply_days: number | null; amount_cents: number };
};
const pay = (checkoutUrl: string) =>
  call(ctx, 'POST', `${new URL(checkoutUrl).pathname}pay/`, { payload: '', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
const session = (p: Patient, id: string) => call(ctx, 'GET', `/v1/users/sandbox/session/${id}/`, { token: p.access });
const sessionRow = async (id: string) =>
  firstRow(
    await ctx.db.query(
      'select status, decline_code, payment_method_brand, payment_method_last4, provider_customer_id, provider_payment_id, amount_cents from checkout_sessions where id = $1',
      [id],
    ),
  );
const treatmentName = (category: string, id: string) => getCategory(category)?.treatments.find((t) => t.treatment_id === id)?.name;

/** The sandbox's answer for `sessionId`, changed by `change`; other sessions get the sandbox's own. */
function providerSays(sessionId: string, change: (real: SessionState) => SessionState) {
  const real = sandbox.retrieveSession.bind(sandbox);
  return vi.spyOn(sandbox, 'retrieveSession').mockImplementation(async (stored: StoredSession) => {
    const state = await real(stored);
    return state && stored.id === sessionId ? change(state) : state;
  });
}

describe('a second paid session for a review already under way', () => {
  it('an open consultation in the category through another submission: refunded as consultation_already_open, the mail greets by name in the patient’s language', async () => {
    const p = await readyPatient(ctx, 'weight_loss', 'eligible', { locale: 'fr', first_name: 'Héloïse' });
    const a = await checkout(p, { category: 'weight_loss', plan: 'one_off' });
    await addSubmission(ctx, p.id, 'weight_loss');
    const b = await checkout(p, { category: 'weight_loss', plan: 'one_off' });
    // A checkout for the newer submission leaves the older submission's page payable.
    expect((await session(p, a.session_id)).body.status).toBe('open');
    expect((await pay(b.checkout_url)).headers.location).toContain('/checkout/complete/');

    // The payment of the consultation paid for: its description names the treatment and the supply.
    const payments = await call(ctx, 'GET', '/v1/users/payments/', { token: p.access });
    expect(payments.body.count).toBe(1);
    expect(b.supply_days).toEqual(expect.any(Number));
    expect(payments.body.results[0].description).toBe(`${treatmentName('weight_loss', b.treatment_id)} ${b.dosage}: one-off consultation, ${b.supply_days}-day supply`);

    // The provider could cancel a plan, but opened none for a one-off: nothing to cancel.
    const cancel = vi.fn((id: string) => Promise.resolve(void id));
    sandbox.cancelSubscription = cancel;
    const refund = vi.spyOn(sandbox, 'refund');
    await pay(a.checkout_url);
    const view = await session(p, a.session_id);
    expect(view.body).toMatchObject({ status: 'refunded', refund_reason: 'consultation_already_open', consultation_id: null, payment_id: null });
    const row = await sessionRow(a.session_id);
    expect(refund).toHaveBeenCalledTimes(1);
    expect(refund).toHaveBeenCalledWith({ providerPaymentId: row.provider_payment_id, amountCents: row.amount_cents, idempotencyKey: `duplicate_${a.session_id}` });
    expect(cancel).not.toHaveBeenCalled();
    expect((await call(ctx, 'GET', '/v1/users/payments/', { token: p.access })).body.count).toBe(1);
    const consultations = await ctx.db.query('select id from consultations where user_id = $1', [p.id]);
    expect(consultations).toHaveLength(1);

    await ctx.flushMail();
    const mails = ctx.mails.filter((m) => m.to === p.email);
    const mail = mails.find((m) => m.subject === 'Paiement en double remboursé');
    expect(mail, mails.map((m) => m.subject).join(' | ')).toBeDefined();
    expect(mail!.text.startsWith('Bonjour Héloïse,\n')).toBe(true);
  });

  it('a live plan in the category through another submission: refunded as plan_already_active, the plan the provider opened for it cancelled, an English mail', async () => {
    const p = await readyPatient(ctx, 'weight_loss', 'eligible', { locale: 'en', first_name: 'Grace' });
    const a = await checkout(p, { category: 'weight_loss', plan: 'subscription' });
    await addSubmission(ctx, p.id, 'weight_loss');
    const b = await checkout(p, { category: 'weight_loss', plan: 'subscription' });
    expect((await pay(a.checkout_url)).headers.location).toContain('/checkout/complete/');
    // The plan's first consultation is decided: nothing is open in the category, the plan is live.
    await ctx.db.query("update consultations set status = 'approved', decided_at = now() where user_id = $1", [p.id]);

    // The plan's payment: its description names the treatment and the cycle.
    const payments = await call(ctx, 'GET', '/v1/users/payments/', { token: p.access });
    expect(payments.body.count).toBe(1);
    expect(a.supply_days).toEqual(expect.any(Number));
    expect(payments.body.results[0].description).toBe(`${treatmentName('weight_loss', a.treatment_id)} ${a.dosage}: treatment plan, ${a.supply_days}-day cycle`);

    // A provider that bills plans itself opened one for the second session.
    const cancel = vi.fn((id: string) => Promise.resolve(void id));
    sandbox.cancelSubscription = cancel;
    // It names its own payment (an invoice) and captured less than the session's price (a coupon at
    // the provider): that payment and that amount are refunded, and the session keeps the payment's id.
    const captured = b.amount_cents - 500;
    providerSays(b.session_id, (s) => ({ ...s, providerSubscriptionId: 'sub_opened_by_duplicate', providerPaymentId: 'in_duplicate', amountCents: captured }));
    const refund = vi.spyOn(sandbox, 'refund');
    await pay(b.checkout_url);
    expect((await session(p, b.session_id)).body).toMatchObject({ status: 'refunded', refund_reason: 'plan_already_active', consultation_id: null, payment_id: null });
    expect(refund).toHaveBeenCalledTimes(1);
    expect(refund).toHaveBeenCalledWith({ providerPaymentId: 'in_duplicate', amountCents: captured, idempotencyKey: `duplicate_${b.session_id}` });
    expect((await sessionRow(b.session_id)).provider_payment_id).toBe('in_duplicate');
    expect(cancel).toHaveBeenCalledTimes(1);
    expect(cancel).toHaveBeenCalledWith('sub_opened_by_duplicate');
    const counts = firstRow(
      await ctx.db.query(
        `select (select count(*)::int from subscriptions where user_id = $1) as plans, (select count(*)::int from payments where user_id = $1) as payments,
                (select count(*)::int from consultations where user_id = $1) as consultations`,
        [p.id],
      ),
    );
    expect(counts).toEqual({ plans: 1, payments: 1, consultations: 1 });

    await ctx.flushMail();
    const mails = ctx.mails.filter((m) => m.to === p.email);
    const mail = mails.find((m) => m.subject === 'Duplicate payment refunded');
    expect(mail, mails.map((m) => m.subject).join(' | ')).toBeDefined();
    expect(mail!.text.startsWith('Hello Grace,\n')).toBe(true);
  });
  it('a duplicate whose refund the provider refuses: the patient’s session check answers 502 refund_failed and nothing is recorded', async () => {
    const p = await readyPatient(ctx);
    const a = await checkout(p, { category: 'weight_loss', plan: 'one_off' });
    const b = await checkout(p, { category: 'weight_loss', plan: 'one_off' });
    expect((await pay(b.checkout_url)).headers.location).toContain('/checkout/complete/');
    // The provider let the replaced page pay anyway; it refuses every refund for now.
    await ctx.db.query("update checkout_sessions set status = 'open' where id = $1", [a.session_id]);
    vi.spyOn(sandbox, 'refund').mockResolvedValue({ id: 're_refused', status: 'failed' });
    await pay(a.checkout_url);
    const check = await session(p, a.session_id);
    expect(check.status).toBe(502);
    expect(check.body).toMatchObject({ code: 'refund_failed', detail: 'The payment provider refused the refund of a duplicate payment.' });
    expect(await sessionRow(a.session_id)).toMatchObject({ status: 'paid' });
    expect((await call(ctx, 'GET', '/v1/users/payments/', { token: p.access })).body.count).toBe(1);
  });
});

describe('provider states other than paid', () => {
  it('declined at the provider: the open session becomes declined with the provider’s decline code', async () => {
    const p = await readyPatient(ctx);
    const s = await checkout(p, { category: 'weight_loss', plan: 'one_off' });
    providerSays(s.session_id, (st) => ({ ...st, status: 'declined', declineCode: 'insufficient_funds' }));
    expect((await session(p, s.session_id)).body).toMatchObject({ status: 'declined', finalised_at: null, consultation_id: null });
    expect(await sessionRow(s.session_id)).toMatchObject({ status: 'declined', decline_code: 'insufficient_funds' });
  });

  it('expired at the provider: the open session becomes expired and keeps a decline code it had', async () => {
    const p = await readyPatient(ctx);
    const s = await checkout(p, { category: 'weight_loss', plan: 'one_off' });
    // An earlier attempt on the page was declined; the provider's expiry names no code.
    await ctx.db.query("update checkout_sessions set decline_code = 'card_declined' where id = $1", [s.session_id]);
    providerSays(s.session_id, (st) => ({ ...st, status: 'expired', declineCode: null }));
    expect((await session(p, s.session_id)).body.status).toBe('expired');
    expect(await sessionRow(s.session_id)).toMatchObject({ status: 'expired', decline_code: 'card_declined' });
  });

  it('still open at the provider: the session is left open and unchanged', async () => {
    const p = await readyPatient(ctx);
    const s = await checkout(p, { category: 'weight_loss', plan: 'one_off' });
    providerSays(s.session_id, (st) => ({ ...st, status: 'open', declineCode: 'card_declined' }));
    expect((await session(p, s.session_id)).body).toMatchObject({ status: 'open', checkout_url: s.checkout_url });
    expect(await sessionRow(s.session_id)).toMatchObject({ status: 'open', decline_code: null });
  });
});

describe('what a paid session carries onto its row', () => {
  it('the card and customer the provider reports are recorded on the session', async () => {
    const p = await readyPatient(ctx);
    const s = await checkout(p, { category: 'weight_loss', plan: 'subscription' });
    const captured = s.amount_cents - 500;
    providerSays(s.session_id, (st) => ({
      ...st,
      status: 'paid',
      providerPaymentId: 'py_reported',
      amountCents: captured,
      cardBrand: 'mastercard',
      cardLast4: '4444',
      cardFingerprint: 'fp_reported',
      providerCustomerId: 'cus_reported',
    }));
    expect((await session(p, s.session_id)).body.status).toBe('paid');
    expect(await sessionRow(s.session_id)).toMatchObject({
      status: 'paid',
      provider_payment_id: 'py_reported',
      payment_method_brand: 'mastercard',
      payment_method_last4: '4444',
      provider_customer_id: 'cus_reported',
    });
    const plans = await call(ctx, 'GET', '/v1/users/subscriptions/', { token: p.access });
    const plan = plans.body.results[0];
    expect(plan).toMatchObject({ payment_method_brand: 'mastercard', payment_method_last4: '4444' });
    // The first period is the plan's cycle, 28 days for this treatment.
    expect(Date.parse(plan.current_period_end) - Date.parse(plan.started_at)).toBe(28 * 24 * 3600 * 1000);
    // The payment is what the provider captured, on the card it names (the self-referral checks read the fingerprint).
    const payments = await call(ctx, 'GET', '/v1/users/payments/', { token: p.access });
    expect(payments.body.results[0]).toMatchObject({ provider_payment_id: 'py_reported', amount_cents: captured });
    const stored = firstRow(await ctx.db.query('select payment_method_fingerprint from payments where checkout_session_id = $1', [s.session_id]));
    expect(stored.payment_method_fingerprint).toBe('fp_reported');
  });

  it('a plan of a category with a 30-day cycle starts with a 30-day period', async () => {
    const p = await readyPatient(ctx, 'hair_growth');
    const s = await checkout(p, { category: 'hair_growth', plan: 'subscription' });
    expect(s.supply_days).toBe(30);
    expect((await pay(s.checkout_url)).headers.location).toContain('/checkout/complete/');
    const plan = (await call(ctx, 'GET', '/v1/users/subscriptions/', { token: p.access })).body.results[0];
    expect(Date.parse(plan.current_period_end) - Date.parse(plan.started_at)).toBe(30 * 24 * 3600 * 1000);
  });

  it('a provider answer without card or customer keeps what the session already recorded', async () => {
    const p = await readyPatient(ctx);
    const s = await checkout(p, { category: 'weight_loss', plan: 'one_off' });
    // Recorded by an earlier event of the same session (e.g. the provider's page).
    await ctx.db.query("update checkout_sessions set payment_method_brand = 'visa', payment_method_last4 = '4242', payment_method_fingerprint = 'fp_earlier', provider_customer_id = 'cus_earlier' where id = $1", [s.session_id]);
    providerSays(s.session_id, (st) => ({ ...st, status: 'paid', cardBrand: null, cardLast4: null, cardFingerprint: null, providerCustomerId: null }));
    expect((await session(p, s.session_id)).body.status).toBe('paid');
    expect(await sessionRow(s.session_id)).toMatchObject({ status: 'paid', payment_method_brand: 'visa', payment_method_last4: '4242', provider_customer_id: 'cus_earlier' });
    const stored = firstRow(await ctx.db.query('select payment_method_fingerprint from payments where checkout_session_id = $1', [s.session_id]));
    expect(stored.payment_method_fingerprint).toBe('fp_earlier');
  });
});
