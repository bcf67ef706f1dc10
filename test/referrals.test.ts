// Referrals over HTTP: referred people (initials only), commission from net payments, summary,
// transactions, attribution events and their rate limit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestContext, latestCode, newPatient, PASSWORD, type Patient, type TestContext, firstRow } from './support/harness.ts';
import { paySandbox, readyPatient } from './billing-fixtures.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => ctx?.close());

/** Registers, verifies and signs in a patient at exactly this address. */
async function patientAt(email: string, extra: Record<string, unknown> = {}): Promise<Patient> {
  expect((await call(ctx, 'POST', '/v1/users/register/', { brand: true, json: { email, password: PASSWORD, first_name: 'Ada', last_name: 'Lovelace', ...extra } })).status).toBe(200);
  // Addresses are stored (and mailed) in lower case.
  const otp = await latestCode(ctx, email.toLowerCase());
  expect((await call(ctx, 'POST', '/v1/users/verify-email/', { brand: true, json: { email, otp } })).status).toBe(200);
  const tok = await call(ctx, 'POST', '/v1/users/token/', { brand: true, json: { email, password: PASSWORD } });
  const row = firstRow(await ctx.db.query<{ id: string }>('select id from users where lower(email) = lower($1)', [email]));
  return { id: row.id, email, access: tok.body.access, refresh: tok.body.refresh };
}

async function codeOf(p: Patient): Promise<string> {
  return (await ctx.db.query('select referral_code from users where id = $1', [p.id]))[0]?.referral_code;
}
async function pay(p: Patient, amount: number, refunded = 0, status = 'succeeded') {
  await ctx.db.query(
    `insert into payments (user_id, provider, provider_payment_id, amount_cents, refunded_amount_cents, status)
     values ($1, 'sandbox', gen_random_uuid()::text, $2, $3, $4)`,
    [p.id, amount, refunded, status],
  );
}

describe('referrals', () => {
  it('lists referred people by initials only, with gross, commission on net payments and transaction count', async () => {
    const referrer = await newPatient(ctx, 'referrer');
    const code = await codeOf(referrer);
    const friend = await newPatient(ctx, 'friend', { referral_code: code, first_name: 'grace', last_name: 'hopper' });
    await pay(friend, 10000);
    await pay(friend, 5000, 2000, 'partially_refunded');
    await pay(friend, 7000, 0, 'failed');
    const stranger = await newPatient(ctx, 'stranger');
    await pay(stranger, 99999);

    const r = await call(ctx, 'GET', '/v1/users/referrals/me/referred/', { token: referrer.access });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ count: 1, next: null, previous: null });
    expect(r.body.results[0]).toEqual({
      referred_user_id: friend.id,
      initials: 'GH',
      joined_at: expect.any(String),
      referred_at: expect.any(String),
      gross_cents: 15000,
      commission_cents: 1300,
      tx_count: 2,
      commission_withheld_reason: null,
    });
    expect(r.text).not.toContain(friend.email);
    expect(r.text).not.toMatch(/grace|hopper/i);

    const summary = await call(ctx, 'GET', '/v1/users/referrals/me/', { token: referrer.access });
    expect(summary.body).toMatchObject({ referral_code: code, referred_count: 1, gross_cents: 15000, net_cents: 13000, commission_cents: 1300, commission_rate_percent: 10 });
    expect(summary.body.share_url).toBe(`http://api.test.local/r/${code}`);

    const tx = await call(ctx, 'GET', '/v1/users/referrals/me/transactions/', { token: referrer.access });
    expect(tx.body.count).toBe(2);
    expect(tx.body.results.map((t: any) => t.commission_cents).sort()).toEqual([1000, 300]);

    const others = await call(ctx, 'GET', '/v1/users/referrals/me/referred/', { token: friend.access });
    expect(others.body.count).toBe(0);
  });

  it('a self-referral (+tag, gmail dots, letter case) earns nothing and says why; a real friend still earns', async () => {
    const referrer = await patientAt('Ada.Lovelace@Gmail.com');
    const code = await codeOf(referrer);
    const tagged = await patientAt('adalovelace+deal@googlemail.com', { referral_code: code });
    const plus = await patientAt('ada.lovelace+2@gmail.com', { referral_code: code });
    const friend = await patientAt('ada.lovelace@example.org', { referral_code: code });
    await pay(tagged, 24900);
    await pay(plus, 1000);
    await pay(friend, 5000);

    const r = await call(ctx, 'GET', '/v1/users/referrals/me/referred/', { token: referrer.access });
    expect(r.body.count).toBe(3);
    const byId = new Map(r.body.results.map((x: any) => [x.referred_user_id, x]));
    expect(byId.get(tagged.id)).toMatchObject({ gross_cents: 24900, commission_cents: 0, commission_withheld_reason: 'self_referral' });
    expect(byId.get(plus.id)).toMatchObject({ commission_cents: 0, commission_withheld_reason: 'self_referral' });
    expect(byId.get(friend.id)).toMatchObject({ commission_cents: 500, commission_withheld_reason: null });

    const summary = await call(ctx, 'GET', '/v1/users/referrals/me/', { token: referrer.access });
    expect(summary.body).toMatchObject({ referred_count: 3, tx_count: 1, gross_cents: 5000, net_cents: 5000, commission_cents: 500 });
    const tx = await call(ctx, 'GET', '/v1/users/referrals/me/transactions/', { token: referrer.access });
    expect(tx.body.count).toBe(3);
    expect(tx.body.results.find((t: any) => t.referred_user_id === tagged.id)).toMatchObject({ amount_cents: 24900, commission_cents: 0, commission_withheld_reason: 'self_referral' });
  });

  it('a referred account that paid with a card the referrer paid with earns nothing (same_payment_card); another card earns', async () => {
    const referrer = await readyPatient(ctx, 'weight_loss', 'eligible', { gender: '0' });
    await paySandbox(ctx, referrer, { category: 'weight_loss', plan: 'one_off' }, '4000000000000341');
    const sameCard = await readyPatient(ctx, 'weight_loss', 'eligible', { gender: '0', referred_by: referrer.id });
    await paySandbox(ctx, sameCard, { category: 'weight_loss', plan: 'one_off' }, '4000 0000 0000 0341');
    const otherCard = await readyPatient(ctx, 'weight_loss', 'eligible', { gender: '0', referred_by: referrer.id });
    await paySandbox(ctx, otherCard, { category: 'weight_loss', plan: 'one_off' }, '4242424242424242');
    // The fingerprint identifies the card without being it.
    const stored = await ctx.db.query<{ payment_method_fingerprint: string | null }>('select payment_method_fingerprint from payments where user_id = $1', [sameCard.id]);
    expect(stored[0]?.payment_method_fingerprint).toMatch(/^fp_sandbox_[0-9a-f]{24}$/);

    const r = await call(ctx, 'GET', '/v1/users/referrals/me/referred/', { token: referrer.access });
    const byId = new Map(r.body.results.map((x: any) => [x.referred_user_id, x]));
    expect(byId.get(sameCard.id)).toMatchObject({ commission_cents: 0, commission_withheld_reason: 'same_payment_card' });
    expect(byId.get(otherCard.id)).toMatchObject({ commission_withheld_reason: null });
    expect((byId.get(otherCard.id) as any).commission_cents).toBeGreaterThan(0);
    const summary = await call(ctx, 'GET', '/v1/users/referrals/me/', { token: referrer.access });
    expect(summary.body.commission_cents).toBe((byId.get(otherCard.id) as any).commission_cents);
    expect(JSON.stringify(r.body)).not.toMatch(/fp_sandbox|0341/);
  });

  it('needs a token', async () => {
    expect((await call(ctx, 'GET', '/v1/users/referrals/me/referred/')).status).toBe(401);
    expect((await call(ctx, 'GET', '/v1/users/referrals/me/')).status).toBe(401);
  });
});

describe('attribution events', () => {
  it('stores a small payload without a token, attributing a known code, and answers 202', async () => {
    const referrer = await newPatient(ctx, 'lead');
    const code = await codeOf(referrer);
    const r = await call(ctx, 'POST', '/v1/users/referrals/attribution-events/', {
      ip: '192.0.2.44',
      json: { event: 'landing_view', referral_code: code.toLowerCase(), utm_source: 'newsletter', landing_path: '/weight-loss' },
    });
    expect(r.status).toBe(202);
    const row = firstRow(await ctx.db.query('select referrer_id, referral_code, event, client_hash from attribution_events where id = $1', [r.body.id]));
    expect(row).toMatchObject({ referrer_id: referrer.id, referral_code: code, event: 'landing_view' });
    expect(row.client_hash).not.toContain('192.0.2.44');
    const unknown = await call(ctx, 'POST', '/v1/users/referrals/attribution-events/', { ip: '192.0.2.44', json: { event: 'signup_started', referral_code: 'NOPE' } });
    expect(unknown.status).toBe(202);
    const bad = await call(ctx, 'POST', '/v1/users/referrals/attribution-events/', { ip: '192.0.2.44', json: { event: 'purchase', landing_path: 'x'.repeat(501) } });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body).sort()).toEqual(['event', 'landing_path']);
  });

  it('rate-limits per IP with 429 and Retry-After', async () => {
    let last;
    for (let i = 0; i < 61; i++) last = await call(ctx, 'POST', '/v1/users/referrals/attribution-events/', { ip: '192.0.2.99', json: { event: 'landing_view' } });
    expect(last!.status).toBe(429);
    expect(last!.headers['retry-after']).toBeDefined();
    expect((await call(ctx, 'POST', '/v1/users/referrals/attribution-events/', { ip: '192.0.2.100', json: { event: 'landing_view' } })).status).toBe(202);
  });
});
