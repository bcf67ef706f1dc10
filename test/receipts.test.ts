// Payment receipts: one mail per successful charge and per refund, in the account's locale, through
// the outbox, with the amount, date, invoice reference and link, and no health details.
import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCALES, render } from '../src/mail/outbox.ts';
import { billingTreatment } from '../src/modules/payments/index.ts';
import { paymentReceiptMail, refundReceiptMail } from '../src/modules/payments/index.ts';
import { chargeSubscriptionCycle } from '../src/modules/subscriptions/index.ts';
import { paySandbox, readyPatient } from './billing-fixtures.ts';
import { TEST_BASE_URL, call, createTestContext, newStaff, type Patient, type TestContext } from './support/harness.ts';

let ctx: TestContext;
let admin: Patient;
beforeAll(async () => {
  ctx = await createTestContext();
  admin = await newStaff(ctx, 'backoffice_admin');
});
afterAll(async () => {
  await ctx?.close();
});

async function mailsTo(email: string, template?: string) {
  return ctx.db.query<{ subject: string; text_body: string; template: string }>(
    `select subject, text_body, template from mail_outbox where to_address = $1 ${template ? 'and template = $2' : ''} order by created_at`,
    template ? [email, template] : [email],
  );
}

/** Words that would reveal health details: the treatment, its medicine, the category. */
async function healthWords(): Promise<string[]> {
  const t = (billingTreatment('weight_loss', 'semaglutide'))!;
  return [t.name, 'semaglutide', 'Semaglutide', 'Wegovy', 'weight', 'Weight', 'Gewicht', '0.25 mg', 'mg'];
}

describe('payment receipts', () => {
  it('a paid checkout produces exactly one receipt, in the account locale, without health details', async () => {
    const p = await readyPatient(ctx, 'weight_loss', 'eligible', { first_name: 'Jörg', locale: 'de', timezone: 'Europe/Berlin' });
    const { session } = await paySandbox(ctx, p, { category: 'weight_loss', plan: 'one_off' });
    // Every later session check (and any other finaliser) leaves it at one.
    for (let i = 0; i < 3; i++) await call(ctx, 'GET', `/v1/users/sandbox/session/${session.id}/`, { token: p.access });
    const [pay] = await ctx.db.query('select * from payments where id = $1', [session.payment_id]);
    const receipts = await mailsTo(p.email, 'payment_receipt');
    expect(receipts).toHaveLength(1);
    const m = receipts[0];
    expect(m.subject).toBe(`Ihre Zahlungsbestätigung (INV-${pay.invoice_number})`);
    const euros = new Intl.NumberFormat('de-DE', { style: 'currency', currency: 'EUR' }).format(pay.amount_cents / 100);
    expect(m.text_body).toContain(`Betrag: ${euros}`);
    expect(m.text_body).toContain(`Rechnungsnummer: INV-${pay.invoice_number}`);
    expect(m.text_body).toContain(`Datum: ${new Intl.DateTimeFormat('de-DE', { dateStyle: 'long', timeZone: 'Europe/Berlin' }).format(new Date(pay.captured_at))}`);
    // The web app's payments page, where the invoice is downloaded (the API route needs a token).
    expect(m.text_body).toContain(`${TEST_BASE_URL}/payments`);
    expect(m.text_body).toContain('Hallo Jörg,');
    for (const w of await healthWords()) expect(m.text_body + m.subject, w).not.toContain(w);

    // It is delivered like every other mail.
    await ctx.flushMail();
    expect(ctx.mails.filter((x) => x.to === p.email && x.subject.startsWith('Ihre Zahlungsbestätigung'))).toHaveLength(1);
  });

  it('a declined card sends no receipt; each recurring charge of a plan sends one', async () => {
    const declined = await readyPatient(ctx);
    const co = await call(ctx, 'POST', '/v1/users/checkout/', { token: declined.access, json: { category: 'weight_loss', plan: 'one_off' } });
    const path = new URL(co.body.checkout_url).pathname;
    await call(ctx, 'POST', `${path}pay/`, { payload: 'card_number=4000000000000002', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(await mailsTo(declined.email, 'payment_receipt')).toHaveLength(0);

    const p = await readyPatient(ctx, 'weight_loss', 'eligible', { locale: 'fr' });
    const { session } = await paySandbox(ctx, p, { category: 'weight_loss', plan: 'subscription' });
    expect(await mailsTo(p.email, 'payment_receipt')).toHaveLength(1);
    const charge = await chargeSubscriptionCycle(ctx.deps, session.subscription_id, 'subscription_cycle', { force: true });
    expect(charge.outcome).toBe('charged');
    const receipts = await mailsTo(p.email, 'payment_receipt');
    expect(receipts).toHaveLength(2);
    const [pay] = await ctx.db.query('select invoice_number from payments where id = $1', [charge.paymentId]);
    expect(receipts[1].subject).toBe(`Votre reçu de paiement (INV-${pay.invoice_number})`);
    expect(receipts[1].text_body).toContain(`${TEST_BASE_URL}/payments`);
    for (const w of await healthWords()) expect(receipts[1].text_body, w).not.toContain(w);
  });

  it('each refund produces one refund receipt with the refunded amount', async () => {
    const p = await readyPatient(ctx, 'weight_loss', 'eligible', { locale: 'en' });
    const { session } = await paySandbox(ctx, p, { category: 'weight_loss', plan: 'one_off' });
    const [pay] = await ctx.db.query('select * from payments where id = $1', [session.payment_id]);
    const part = await call(ctx, 'POST', `/v1/backoffice/payments/${pay.id}/refund/`, { token: admin.access, json: { amount_cents: 1000, reason: 'goodwill' } });
    expect(part.status).toBe(200);
    let refunds = await mailsTo(p.email, 'refund_receipt');
    expect(refunds).toHaveLength(1);
    expect(refunds[0].subject).toBe(`Your refund (INV-${pay.invoice_number})`);
    expect(refunds[0].text_body).toContain('Amount refunded: €10.00');
    expect(refunds[0].text_body).toContain(`Refund reference: ${part.body.refund.id}`);
    expect(refunds[0].text_body).toContain(`${TEST_BASE_URL}/payments`);
    for (const w of await healthWords()) expect(refunds[0].text_body, w).not.toContain(w);

    const rest = await call(ctx, 'POST', `/v1/backoffice/payments/${pay.id}/refund/`, { token: admin.access, json: {} });
    expect(rest.status).toBe(200);
    refunds = await mailsTo(p.email, 'refund_receipt');
    expect(refunds).toHaveLength(2);
    const remaining = new Intl.NumberFormat('en-GB', { style: 'currency', currency: 'EUR' }).format((pay.amount_cents - 1000) / 100);
    expect(refunds[1].text_body).toContain(`Amount refunded: ${remaining}`);
    // Still one charge receipt.
    expect(await mailsTo(p.email, 'payment_receipt')).toHaveLength(1);
  });

  it('renders in all seven locales', () => {
    const vars = { first_name: 'Ada', amount_cents: 21900, currency: 'EUR', at: '2026-03-01T10:00:00Z', timezone: '', reference: 'INV-1001', refund_id: 're_1', link: 'https://x.test/i' };
    const subjects = new Set<string>();
    for (const locale of LOCALES) {
      for (const t of [paymentReceiptMail, refundReceiptMail]) {
        const m = render(t, locale, vars);
        subjects.add(m.subject);
        expect(m.subject, locale).toContain('INV-1001');
        expect(m.text, locale).toMatch(/219[.,]00/);
        expect(m.text, locale).toContain('2026');
        expect(m.text, locale).toContain('https://x.test/i');
        expect(m.text, locale).toContain('Ada');
      }
    }
    expect(subjects.size).toBe(14);
  });
});

describe('payment receipts from Stripe webhooks', () => {
  const secret = `whsec_test_${randomBytes(8).toString('hex')}`;
  let stripe: TestContext;
  beforeAll(async () => {
    stripe = await createTestContext({ PAYMENT_PROVIDER: 'stripe', STRIPE_SECRET_KEY: 'sk_test_receipts', STRIPE_WEBHOOK_SECRET: secret });
  });
  afterAll(async () => {
    await stripe?.close();
  });
  const webhook = (event: Record<string, unknown>) => {
    const payload = JSON.stringify(event);
    const header = Stripe.webhooks.generateTestHeaderString({ payload, secret });
    return call(stripe, 'POST', '/v1/webhooks/stripe/', { payload, headers: { 'content-type': 'application/json', 'stripe-signature': header } });
  };
  const hex = () => randomBytes(6).toString('hex');

  it('a recurring invoice.paid sends one receipt (also when Stripe sends it again), a charge.refunded one refund receipt', async () => {
    const p = await readyPatient(stripe, 'weight_loss', 'eligible', { locale: 'it' });
    const now = new Date();
    const [sub] = await stripe.db.query(
      `insert into subscriptions (user_id, category, treatment_id, dosage, status, provider, provider_subscription_id, price_cents, currency, interval, interval_count, cycle_days,
         started_at, current_period_start, current_period_end) values ($1, 'weight_loss', 'semaglutide', '0.25 mg', 'active', 'stripe', $2, 21900, 'EUR', 'day', 28, 28, $3, $3, $4) returning id`,
      [p.id, `sub_${hex()}`, now, new Date(now.getTime() + 28 * 86400_000)],
    );
    const [{ provider_subscription_id: subId }] = await stripe.db.query('select provider_subscription_id from subscriptions where id = $1', [sub.id]);
    const invoice = { id: `in_${hex()}`, object: 'invoice', subscription: subId, billing_reason: 'subscription_cycle', amount_paid: 21900, currency: 'eur' };
    expect((await webhook({ id: `evt_${hex()}`, type: 'invoice.paid', data: { object: invoice } })).status).toBe(200);
    expect((await webhook({ id: `evt_${hex()}`, type: 'invoice.paid', data: { object: invoice } })).status).toBe(200);
    const receipts = await stripe.db.query("select subject, text_body from mail_outbox where to_address = $1 and template = 'payment_receipt'", [p.email]);
    expect(receipts).toHaveLength(1);
    const [pay] = await stripe.db.query('select * from payments where provider_payment_id = $1', [invoice.id]);
    expect(receipts[0].subject).toBe(`La tua ricevuta di pagamento (INV-${pay.invoice_number})`);
    expect(pay.description).toBe(`${(billingTreatment('weight_loss', 'semaglutide'))!.name} 0.25 mg: treatment plan, 28-day cycle`);

    const refundId = `re_${hex()}`;
    const charge = { id: `ch_${hex()}`, object: 'charge', invoice: invoice.id, amount: 21900, amount_refunded: 21900, refunds: { data: [{ id: refundId, amount: 21900, reason: 'requested_by_customer' }] } };
    await webhook({ id: `evt_${hex()}`, type: 'charge.refunded', data: { object: charge } });
    await webhook({ id: `evt_${hex()}`, type: 'charge.refunded', data: { object: charge } });
    const refunds = await stripe.db.query("select subject, text_body from mail_outbox where to_address = $1 and template = 'refund_receipt'", [p.email]);
    expect(refunds).toHaveLength(1);
    expect(refunds[0].text_body).toContain(`Riferimento del rimborso: ${refundId}`);
    for (const w of await healthWords()) expect(refunds[0].text_body + receipts[0].text_body, w).not.toContain(w);
  });
});
