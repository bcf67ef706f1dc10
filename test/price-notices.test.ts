// A catalogue price change for a running plan (docs/compliance.md): a notice with the cancel link
// at least PRICE_CHANGE_NOTICE_DAYS before the first charge at the new price; nothing is charged at
// the new price before that date or without that notice. Time moves on the sandbox test clock.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { noticePriceChanges } from '../src/modules/subscriptions/index.ts';
import { advanceTestClock, approveRenewalOfPeriod } from './billing-fixtures.ts';
import { createTestContext, firstRow, newStaff, seedPatient, type Patient, type TestContext } from './support/harness.ts';

const DAY = 86_400_000;
let ctx: TestContext;
let admin: Patient;
beforeAll(async () => {
  ctx = await createTestContext();
  admin = await newStaff(ctx, 'backoffice_admin');
});
afterAll(async () => ctx?.close());

/** A semaglutide plan charged `price` (the catalogue's plan price is 21900) whose period ends in `endsInDays`. */
async function planAt(price: number, endsInDays: number) {
  const p = await seedPatient(ctx, { locale: 'en', country_of_residence: 'DEU' });
  const now = ctx.deps.clock.now().getTime();
  const s = firstRow(await ctx.db.query(
    `insert into subscriptions (user_id, category, treatment_id, dosage, status, provider, price_cents, interval, interval_count, cycle_days, started_at, current_period_start, current_period_end, payment_method_last4)
     values ($1, 'weight_loss', 'semaglutide', '1 mg', 'active', 'sandbox', $2, 'day', 28, 28, $3, $3, $4, '4242') returning id, current_period_end`,
    [p.id, price, new Date(now - 8 * DAY), new Date(now + endsInDays * DAY)],
  ));
  return { p, id: s.id as string, periodEnd: new Date(s.current_period_end as string) };
}
const charges = async (id: string) => (await ctx.db.query("select amount_cents from payments where subscription_id = $1 and status = 'succeeded' order by created_at", [id])).map((r) => Number(r.amount_cents));
const noticeMails = async (email: string) => {
  await ctx.flushMail();
  return ctx.mails.filter((m) => m.to === email && m.subject === 'The price of your plan changes');
};

describe('a catalogue price change for a running plan', () => {
  it('is noticed once, at least 30 days before the first charge at the new price, with the cancel link; charges before that date keep the old price', async () => {
    const raised = await planAt(19900, 20);
    const same = await planAt(21900, 20);
    const startedAt = ctx.deps.clock.now();
    await noticePriceChanges(ctx.deps);
    await noticePriceChanges(ctx.deps);
    const notice = firstRow(await ctx.db.query('select * from plan_price_notices where subscription_id = $1', [raised.id]));
    expect([notice.old_price_cents, notice.new_price_cents]).toEqual([19900, 21900]);
    // The first period start at least 30 days ahead: the period end (day 20) is too early, the next one (day 48) is it.
    const effective = new Date(notice.effective_from);
    expect(effective.getTime()).toBe(raised.periodEnd.getTime() + 28 * DAY);
    expect(effective.getTime() - new Date(notice.notified_at).getTime()).toBeGreaterThanOrEqual(30 * DAY);
    expect(new Date(notice.notified_at).getTime()).toBeGreaterThanOrEqual(startedAt.getTime());
    expect(await ctx.db.query('select 1 from plan_price_notices where subscription_id = $1', [same.id])).toEqual([]);
    const mails = await noticeMails(raised.p.email);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.text).toContain('€199.00');
    expect(mails[0]!.text).toContain('€219.00');
    expect(mails[0]!.text).toContain(effective.toISOString().slice(0, 10));
    expect(mails[0]!.text).toMatch(/https?:\/\/\S+\/cancel\n/);
    expect(await noticeMails(same.p.email)).toEqual([]);

    // Day 21: the period that starts on day 20 is charged the old price (inside the notice period).
    await approveRenewalOfPeriod(ctx, raised.id);
    await advanceTestClock(ctx, admin, 21);
    expect(await charges(raised.id)).toEqual([19900]);
    // Day 49: the period that starts on day 48 is the first at the new price.
    await approveRenewalOfPeriod(ctx, raised.id);
    await advanceTestClock(ctx, admin, 28);
    expect(await charges(raised.id)).toEqual([19900, 21900]);
    const plan = firstRow(await ctx.db.query('select price_cents from subscriptions where id = $1', [raised.id]));
    expect(plan.price_cents).toBe(21900);
    expect(firstRow(await ctx.db.query('select applied_at from plan_price_notices where subscription_id = $1', [raised.id])).applied_at).not.toBeNull();
  });

  it('without a notice the plan is charged its own price, whatever the catalogue says', async () => {
    const plan = await planAt(18900, 2);
    // The plan's period is charged before any sweep saw it: the old price.
    const { chargeSubscriptionCycle } = await import('../src/modules/subscriptions/index.ts');
    await ctx.db.query('update subscriptions set current_period_end = $2 where id = $1', [plan.id, new Date(ctx.deps.clock.now().getTime() - DAY)]);
    await approveRenewalOfPeriod(ctx, plan.id);
    const r = await chargeSubscriptionCycle(ctx.deps, plan.id);
    expect(r.outcome).toBe('charged');
    expect(await charges(plan.id)).toEqual([18900]);
  });

  it('the notice period is configurable, never under 30 days', () => {
    expect(loadConfig({ PRICE_CHANGE_NOTICE_DAYS: '45' }).PRICE_CHANGE_NOTICE_DAYS).toBe(45);
    expect(() => loadConfig({ PRICE_CHANGE_NOTICE_DAYS: '29' })).toThrow(/PRICE_CHANGE_NOTICE_DAYS/);
  });
});
