// Emergency contraception delivered in time: the arrival estimate (carrier cut-off, working days,
// public holidays, transit days to the country, a margin) as a pure function, and over HTTP at
// submission and checkout on the app's own clock: a pill that cannot arrive well inside its window
// (levonorgestrel 72 h, ulipristal 120 h from unprotected sex) is not sold for delivery; the patient
// is told before paying to get it at a nearby pharmacy or to collect it (click and collect).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DELIVERY, ecDeliveryVerdict, estimateArrival, zonedInstant } from '../src/modules/questionnaires/ec-delivery.ts';
import { callAsFresh } from './billing-fixtures.ts';
import { FIXTURES, v, withAnswers } from './questionnaires.fixtures.ts';
import { createTestContext, newStaff, seedPatient, type Patient, type TestContext } from './support/harness.ts';

const HOUR = 3_600_000;
const berlin = (day: string, time: string) => zonedInstant(day, time, 'Europe/Berlin');

describe('the arrival estimate (pure)', () => {
  it('before the cut-off on a working day: out today, next working day in Germany, by 18:00', () => {
    // Tuesday 1 December 2026, 10:00 in Berlin; 3 review hours: 13:00, before the 15:00 cut-off.
    expect(estimateArrival(berlin('2026-12-01', '10:00'), 'DEU')).toEqual({ dispatch_on: '2026-12-01', delivery_on: '2026-12-02', estimated_arrival: berlin('2026-12-02', '18:00').toISOString(), transit_business_days: 1 });
  });

  it('after the cut-off on a Friday: out on Monday (no weekend pick-up or delivery)', () => {
    expect(estimateArrival(berlin('2026-12-04', '12:30'), 'DEU')).toMatchObject({ dispatch_on: '2026-12-07', delivery_on: '2026-12-08' });
    // The review hours count: at 11:59 the parcel is ready at 14:59 and still leaves on Friday.
    expect(estimateArrival(berlin('2026-12-04', '11:59'), 'DEU')).toMatchObject({ dispatch_on: '2026-12-04', delivery_on: '2026-12-07' });
  });

  it('public holidays are neither pick-up nor delivery days (Christmas, Good Friday / Easter Monday)', () => {
    expect(estimateArrival(berlin('2026-12-24', '09:00'), 'DEU')).toMatchObject({ dispatch_on: '2026-12-24', delivery_on: '2026-12-28' });
    expect(estimateArrival(berlin('2026-04-02', '16:00'), 'DEU')).toMatchObject({ dispatch_on: '2026-04-07', delivery_on: '2026-04-08' });
    expect(DELIVERY.dispatch.public_holidays).toEqual(expect.arrayContaining(['2026-04-03', '2026-04-06', '2026-12-25', '2026-12-26', '2027-03-26', '2027-03-29']));
  });

  it('transit days come from the catalogue per country, a default for others; the clock change is honoured', () => {
    expect(estimateArrival(berlin('2026-12-01', '10:00'), 'ITA')).toMatchObject({ delivery_on: '2026-12-04', transit_business_days: DELIVERY.transit_business_days.ITA });
    expect(estimateArrival(berlin('2026-12-01', '10:00'), 'XXX').transit_business_days).toBe(DELIVERY.default_transit_business_days);
    // Summer time in Berlin (UTC+2): 18:00 local is 16:00 UTC.
    expect(estimateArrival(berlin('2026-07-07', '09:00'), 'DEU').estimated_arrival).toBe('2026-07-08T16:00:00.000Z');
  });

  it('in time only with the margin to spare; the window is the pill’s own (72 h / 120 h from sex)', () => {
    // Friday 11:00 (ready 14:00, out before the cut-off), sex 24 h earlier: delivered Monday 18:00, 79 h after sex.
    const start = berlin('2026-12-04', '11:00');
    const sex = new Date(start.getTime() - 24 * HOUR);
    const lng = ecDeliveryVerdict({ treatmentId: 'levonorgestrel', country: 'DEU', start, unprotectedSexAt: sex })!;
    expect(lng).toMatchObject({ arrives_in_time: false, advice: 'pharmacy_or_click_and_collect', window_ends_at: new Date(sex.getTime() + 72 * HOUR).toISOString() });
    expect(lng.sources[0]).toMatch(/EC2/);
    const upa = ecDeliveryVerdict({ treatmentId: 'ulipristal', country: 'DEU', start, unprotectedSexAt: sex })!;
    expect(upa).toMatchObject({ arrives_in_time: true, advice: null });
    // Arrival 18:00 with 12 h margin: a window ending at 06:00 the next day is exactly enough, 05:59 is not.
    const arrival = Date.parse(upa.estimated_arrival);
    const at = (endsAt: number) => ecDeliveryVerdict({ treatmentId: 'ulipristal', country: 'DEU', start, unprotectedSexAt: new Date(endsAt - 120 * HOUR) })!.arrives_in_time;
    expect(at(arrival + 12 * HOUR)).toBe(true);
    expect(at(arrival + 12 * HOUR - 60_000)).toBe(false);
    expect(ecDeliveryVerdict({ treatmentId: 'sildenafil', country: 'DEU', start, unprotectedSexAt: sex })).toBeNull();
  });
});

describe('over HTTP on the app clock: submission and checkout', () => {
  let ctx: TestContext;
  let admin: Patient;
  beforeAll(async () => {
    ctx = await createTestContext();
    admin = await newStaff(ctx, 'backoffice_admin');
  });
  afterAll(async () => ctx?.close());

  /** Moves the app clock forward to the next given weekday (0 Sunday) at a Berlin time. */
  async function moveTo(weekday: number, time: string) {
    let day = new Date(ctx.deps.clock.now().getTime() + 24 * HOUR).toISOString().slice(0, 10);
    while (new Date(`${day}T00:00:00Z`).getUTCDay() !== weekday || DELIVERY.dispatch.public_holidays.includes(day)) day = new Date(Date.parse(`${day}T00:00:00Z`) + 24 * HOUR).toISOString().slice(0, 10);
    const target = berlin(day, time);
    await ctx.deps.clock.advance(target.getTime() - ctx.deps.clock.now().getTime());
    return day;
  }
  async function submittedEc(hours: number) {
    const p = await seedPatient(ctx, { date_of_birth: '1995-03-03', country_of_residence: 'DEU', gender: '1', locale: 'en' });
    expect((await callAsFresh(ctx, p, 'PATCH', '/v1/users/questionnaires/emergency_contraception/progress/', { data: withAnswers(FIXTURES.emergency_contraception.eligible, v(2, 'hours_since_unprotected_sex', hours)) })).status).toBe(200);
    const sub = await callAsFresh(ctx, p, 'POST', '/v1/users/questionnaires/emergency_contraception/submit/');
    expect(sub.status, sub.text).toBe(200);
    return { p, sub: sub.body };
  }
  const checkout = (p: Patient, json: Record<string, unknown>) => callAsFresh(ctx, p, 'POST', '/v1/users/checkout/', { category: 'emergency_contraception', plan: 'one_off', ...json });

  it('Friday late morning, 24 h after sex: levonorgestrel cannot arrive in time (said at submission, refused at checkout); ulipristal can', async () => {
    await moveTo(5, '11:00');
    const { p, sub } = await submittedEc(24);
    expect(sub.outcome).toBe('eligible');
    const byId = Object.fromEntries(sub.delivery.map((d: { treatment_id: string }) => [d.treatment_id, d]));
    expect(byId.levonorgestrel).toMatchObject({ arrives_in_time: false, advice: 'pharmacy_or_click_and_collect', transit_business_days: 1 });
    expect(byId.ulipristal).toMatchObject({ arrives_in_time: true, advice: null });

    const refused = await checkout(p, { treatment_id: 'levonorgestrel', dosage: '1.5 mg' });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body).toMatchObject({ error_name: 'EC_DELIVERY_TOO_LATE', treatment_id: 'levonorgestrel', delivery: { arrives_in_time: false, advice: 'pharmacy_or_click_and_collect' } });
    expect(refused.body.message).toMatch(/pharmacy near you/);
    expect(await ctx.db.query("select id from checkout_sessions where user_id = $1", [p.id])).toEqual([]);

    const ok = await checkout(p, { treatment_id: 'ulipristal', dosage: '30 mg' });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.delivery_estimate).toMatchObject({ treatment_id: 'ulipristal', arrives_in_time: true });
  });

  it('collection at a partner pharmacy (click and collect) is not refused for the delivery time', async () => {
    const shop = await callAsFresh(ctx, admin, 'POST', '/v1/backoffice/pharmacies/', {
      name: 'Apotheke EC', address_line: 'Markt 1', postal_code: '10115', city: 'Berlin', country: 'DEU', opening_hours: [{ day: 'mon', opens: '08:00', closes: '18:30' }], click_and_collect: true, delivery: false,
    });
    expect(shop.status, shop.text).toBe(201);
    const { p } = await submittedEc(60);
    const delivered = await checkout(p, { treatment_id: 'levonorgestrel', dosage: '1.5 mg' });
    expect(delivered.body.error_name).toBe('EC_DELIVERY_TOO_LATE');
    const collected = await checkout(p, { treatment_id: 'levonorgestrel', dosage: '1.5 mg', fulfilment: { method: 'collection', pharmacy_id: shop.body.id } });
    expect(collected.status, collected.text).toBe(200);
    expect(collected.body.delivery_estimate).toBeNull();
  });

  it('a weekday morning, 24 h after sex: levonorgestrel delivered in Germany arrives in time', async () => {
    await moveTo(2, '09:00');
    const { p, sub } = await submittedEc(24);
    expect(sub.delivery.find((d: { treatment_id: string }) => d.treatment_id === 'levonorgestrel')).toMatchObject({ arrives_in_time: true, transit_business_days: 1 });
    const ok = await checkout(p, { treatment_id: 'levonorgestrel', dosage: '1.5 mg' });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.delivery_estimate).toMatchObject({ arrives_in_time: true });
  });

  it('other categories have no delivery estimate', async () => {
    const p = await seedPatient(ctx, { date_of_birth: '1980-03-03', country_of_residence: 'DEU', gender: '0', locale: 'en' });
    await callAsFresh(ctx, p, 'PATCH', '/v1/users/questionnaires/sexual_health/progress/', { data: FIXTURES.sexual_health.eligible });
    const sub = await callAsFresh(ctx, p, 'POST', '/v1/users/questionnaires/sexual_health/submit/');
    expect(sub.body.delivery).toEqual([]);
    expect((await checkout(p, { category: 'sexual_health', treatment_id: 'sildenafil', dosage: '50 mg' })).body.delivery_estimate).toBeNull();
  });
});
