// What the service publishes and honours to sell at a distance (docs/compliance.md): the public
// list of doctors with the desk opt-out, the deployment's legal settings (and start-up refusing
// production without the distance-selling register entry), and cancelling a plan without signing
// in (§ 312k BGB): the same answer for any address, a single-use expiring one-click link that
// cancels at the period end, receipts with date and time.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';
import { call, createTestContext, firstRow, newStaff, seedPatient, type Patient, type TestContext } from './support/harness.ts';

const DISTANCE = { DISTANCE_SELLING_REGISTER_URL: 'https://register.example.de/versandapotheke/42', DISTANCE_SELLING_PHARMACY_NAME: 'Beispiel-Apotheke', DISTANCE_SELLING_COUNTRY: 'DEU' };
const SELLER = { SELLER_NAME: 'Example GmbH', SELLER_ADDRESS: 'Friedrichstraße 10|10117 Berlin', SELLER_VAT_ID: 'DE123456789', SELLER_COUNTRY: 'DEU', SELLER_EMAIL: 'hello@example.org', SELLER_PHONE: '+4930123456' };
const DAY = 86_400_000;

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext({ ...DISTANCE, ...SELLER, IMPRINT_REPRESENTATIVE: 'Dr. Erika Muster', ROUTE_BUDGETS: 'cancel-request-ip=200/3600' });
});
afterAll(async () => ctx?.close());

describe('distance-selling settings', () => {
  it('production refuses to start without them; a partial set is refused anywhere; all three are accepted', () => {
    expect(() => loadConfig({ NODE_ENV: 'production', ...SELLER })).toThrow(ConfigError);
    expect(() => loadConfig({ NODE_ENV: 'production', ...SELLER })).toThrow(/DISTANCE_SELLING_REGISTER_URL, DISTANCE_SELLING_PHARMACY_NAME, DISTANCE_SELLING_COUNTRY: required for the EU common logo of distance selling \(NODE_ENV=production\)/);
    expect(() => loadConfig({ DISTANCE_SELLING_PHARMACY_NAME: 'X' })).toThrow(/DISTANCE_SELLING_REGISTER_URL, DISTANCE_SELLING_COUNTRY: required .*set all three or none/);
    expect(() => loadConfig({ ...DISTANCE, DISTANCE_SELLING_REGISTER_URL: 'http://register.example.de/1' })).toThrow(/DISTANCE_SELLING_REGISTER_URL/);
    expect(() => loadConfig({ ...DISTANCE, DISTANCE_SELLING_COUNTRY: 'Germany' })).toThrow(/DISTANCE_SELLING_COUNTRY/);
    expect(loadConfig({ NODE_ENV: 'production', ...SELLER, ...DISTANCE }).DISTANCE_SELLING_COUNTRY).toBe('DEU');
    expect(loadConfig({}).DISTANCE_SELLING_REGISTER_URL).toBeUndefined();
  });

  it('the public site settings carry the register entry, the imprint and the accessibility contact', async () => {
    const res = await call(ctx, 'GET', '/v1/public/site/');
    expect(res.status).toBe(200);
    expect(res.body.distance_selling).toEqual({ register_url: DISTANCE.DISTANCE_SELLING_REGISTER_URL, pharmacy_name: 'Beispiel-Apotheke', country: 'DEU' });
    expect(res.body.imprint).toMatchObject({ name: 'Example GmbH', address: ['Friedrichstraße 10', '10117 Berlin'], vat_id: 'DE123456789', representative: 'Dr. Erika Muster' });
    expect(res.body.accessibility.contact_email).toBe('hello@example.org');
    expect(res.body.price_change_notice_days).toBe(30);
  });
});

describe('our doctors', () => {
  it('lists active doctors with their registration number and regulator until they opt out on the desk profile', async () => {
    const doctor = await newStaff(ctx, 'doctor');
    await ctx.db.query("update users set first_name = 'Erika', last_name = $2, country_of_residence = 'DEU' where id = $1", [doctor.id, `Muster-${doctor.id.slice(0, 6)}`]);
    const listed = async () => ((await call(ctx, 'GET', '/v1/public/doctors/')).body.results as any[]).filter((d) => d.name.includes(doctor.id.slice(0, 6)));
    expect(await listed()).toEqual([
      { name: `Erika Muster-${doctor.id.slice(0, 6)}`, registration_number: 'LANR-123456789', registration_country: 'DEU', regulator: { name: expect.stringContaining('rztekammer'), register_url: expect.stringMatching(/^https:\/\//) } },
    ]);
    const profile = await call(ctx, 'GET', '/v1/clinician/profile/', { token: doctor.access });
    expect(profile.status).toBe(200);
    expect(profile.body.public_listing).toBe(true);
    const out = await call(ctx, 'PATCH', '/v1/clinician/profile/', { token: doctor.access, json: { public_listing: false } });
    expect(out.status).toBe(200);
    expect(out.body.public_listing).toBe(false);
    expect(await listed()).toEqual([]);
    expect((await call(ctx, 'PATCH', '/v1/clinician/profile/', { token: doctor.access, json: { public_listing: true } })).body.public_listing).toBe(true);
    expect(await listed()).toHaveLength(1);
    // A disabled doctor is not shown.
    await ctx.db.query('update users set disabled_at = now() where id = $1', [doctor.id]);
    expect(await listed()).toEqual([]);
  });

  it('a patient cannot read or change a desk profile; a bad body is a field error', async () => {
    const p = await seedPatient(ctx);
    expect((await call(ctx, 'GET', '/v1/clinician/profile/', { token: p.access })).status).toBe(403);
    expect((await call(ctx, 'PATCH', '/v1/clinician/profile/', { token: p.access, json: { public_listing: false } })).status).toBe(403);
    const doctor = await newStaff(ctx, 'doctor');
    const bad = await call(ctx, 'PATCH', '/v1/clinician/profile/', { token: doctor.access, json: { public_listing: 'no' } });
    expect(bad.status).toBe(400);
    expect(bad.body.public_listing).toBeDefined();
  });
});

/** A patient with an active weight-loss plan whose period ends in 20 days. */
async function withPlan(category = 'weight_loss'): Promise<{ p: Patient; id: string; periodEnd: Date }> {
  const p = await seedPatient(ctx, { locale: 'de', country_of_residence: 'DEU' });
  const now = ctx.deps.clock.now().getTime();
  const s = firstRow(await ctx.db.query(
    `insert into subscriptions (user_id, category, treatment_id, dosage, status, provider, price_cents, interval, interval_count, cycle_days, started_at, current_period_start, current_period_end)
     values ($1, $2, $3, '1 mg', 'active', 'sandbox', 21900, 'day', 28, 28, $4, $4, $5) returning id, current_period_end`,
    [p.id, category, category === 'weight_loss' ? 'semaglutide' : 'finasteride', new Date(now - 8 * DAY), new Date(now + 20 * DAY)],
  ));
  return { p, id: s.id as string, periodEnd: new Date(s.current_period_end as string) };
}

const form = (email: string, extra: Record<string, unknown> = {}) => ({ name: 'Ada Lovelace', email, plan: 'weight_loss', kind: 'ordinary', date: '2026-12-31', ...extra });
const mailsTo = async (email: string) => {
  await ctx.flushMail();
  return ctx.mails.filter((m) => m.to === email);
};
const linkIn = (text: string) => /\/cancel\/confirm\?token=([\w%-]+)/.exec(text)?.[1];

describe('cancelling without signing in (§ 312k BGB)', () => {
  it('answers the same for an unknown address, an account without that plan and an account with it; only the last gets mail', async () => {
    const { p } = await withPlan();
    const noPlan = await seedPatient(ctx);
    const unknown = `nobody-${randomUUID().slice(0, 8)}@example.org`;
    const answers = [];
    for (const email of [unknown, noPlan.email, p.email]) answers.push(await call(ctx, 'POST', '/v1/public/cancel/', { json: form(email) }));
    for (const a of answers) {
      expect(a.status).toBe(202);
      expect(a.body).toEqual(answers[0]!.body);
    }
    expect(await mailsTo(unknown)).toEqual([]);
    expect(await mailsTo(noPlan.email)).toEqual([]);
    const [receipt] = await mailsTo(p.email);
    expect(receipt!.subject).toBe('Ihre Kündigung ist eingegangen');
    expect(receipt!.text).toMatch(/Eingegangen: \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/);
    expect(receipt!.text).toContain('Ordentliche Kündigung');
    expect(linkIn(receipt!.text)).toBeTruthy();
    // No health detail or medicine in the mail.
    expect(receipt!.text).not.toMatch(/semaglutid|wegovy|mg\b/i);
  });

  it('the link cancels at the period end once; a second use changes nothing and answers the same; the confirmation mail has date and time', async () => {
    const { p, id, periodEnd } = await withPlan();
    await call(ctx, 'POST', '/v1/public/cancel/', { json: form(p.email.toUpperCase()) });
    const token = decodeURIComponent(linkIn((await mailsTo(p.email))[0]!.text)!);
    // Two clicks at once: one cancellation, one confirmation mail.
    const [a, b] = await Promise.all([0, 1].map(() => call(ctx, 'POST', '/v1/public/cancel/confirm/', { json: { token } })));
    expect([a!.status, b!.status]).toEqual([200, 200]);
    expect([a!.body.already_confirmed, b!.body.already_confirmed].sort()).toEqual([false, true]);
    const row = firstRow(await ctx.db.query('select status, cancel_at_period_end, current_period_end from subscriptions where id = $1', [id]));
    expect(row.status).toBe('active');
    expect(row.cancel_at_period_end).toBe(true);
    expect(new Date(row.current_period_end).getTime()).toBe(periodEnd.getTime());
    const confirmations = (await mailsTo(p.email)).filter((m) => m.subject === 'Ihr Plan ist gekündigt');
    expect(confirmations).toHaveLength(1);
    expect(confirmations[0]!.text).toContain(periodEnd.toISOString().slice(0, 10));
    expect(confirmations[0]!.text).toMatch(/\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/);
    const again = await call(ctx, 'POST', '/v1/public/cancel/confirm/', { json: { token } });
    expect(again.status).toBe(200);
    expect(again.body.already_confirmed).toBe(true);
    expect(again.body.plans[0].cancel_at_period_end).toBe(true);
  });

  it('names one plan: another plan of the account and another account’s plans stay untouched', async () => {
    const { p, id } = await withPlan();
    const hair = firstRow(await ctx.db.query(
      "insert into subscriptions (user_id, category, treatment_id, dosage, status, provider, price_cents, interval, interval_count, cycle_days, started_at, current_period_start, current_period_end) values ($1, 'hair_growth', 'finasteride', '1 mg', 'active', 'sandbox', 2900, 'day', 30, 30, now(), now(), now() + interval '20 days') returning id",
      [p.id],
    ));
    const other = await withPlan();
    expect((await call(ctx, 'POST', '/v1/public/cancel/', { json: form(p.email, { plan: 'hair_growth' }) })).status).toBe(202);
    const token = decodeURIComponent(linkIn((await mailsTo(p.email)).at(-1)!.text)!);
    expect((await call(ctx, 'POST', '/v1/public/cancel/confirm/', { json: { token } })).status).toBe(200);
    const flags = await ctx.db.query('select id, cancel_at_period_end from subscriptions where id = any($1)', [[id, hair.id, other.id]]);
    expect(Object.fromEntries(flags.map((r) => [r.id, r.cancel_at_period_end]))).toEqual({ [id]: false, [hair.id]: true, [other.id]: false });
  });

  it('an unknown link is 404, an expired one 410 and cancels nothing', async () => {
    const { p, id } = await withPlan();
    expect((await call(ctx, 'POST', '/v1/public/cancel/confirm/', { json: { token: 'not-a-real-token-at-all' } })).body).toEqual({ detail: 'This cancellation link is not valid.', code: 'cancel_link_invalid' });
    await call(ctx, 'POST', '/v1/public/cancel/', { json: form(p.email) });
    const token = decodeURIComponent(linkIn((await mailsTo(p.email)).at(-1)!.text)!);
    await ctx.db.query("update plan_cancel_requests set expires_at = now() - interval '1 minute' where user_id = $1", [p.id]);
    const expired = await call(ctx, 'POST', '/v1/public/cancel/confirm/', { json: { token } });
    expect(expired.status).toBe(410);
    expect(expired.body.code).toBe('cancel_link_expired');
    expect(firstRow(await ctx.db.query('select cancel_at_period_end from subscriptions where id = $1', [id])).cancel_at_period_end).toBe(false);
  });

  it('refuses a form without what identifies the contract, field by field', async () => {
    const res = await call(ctx, 'POST', '/v1/public/cancel/', { json: { name: '', email: 'not-an-address', plan: 'astrology', kind: 'sometimes', date: '31.12.2026' } });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body).sort()).toEqual(['date', 'email', 'kind', 'name', 'plan']);
  });

  it('an extraordinary cancellation needs its reason (§ 312k (2) 1 b BGB); an ordinary one takes none', async () => {
    const { p } = await withPlan();
    const missing = await call(ctx, 'POST', '/v1/public/cancel/', { json: form(p.email, { kind: 'extraordinary' }) });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ reason: ['Give the reason for an extraordinary cancellation.'] });
    const blank = await call(ctx, 'POST', '/v1/public/cancel/', { json: form(p.email, { kind: 'extraordinary', reason: '   ' }) });
    expect(blank.body).toEqual({ reason: ['Give the reason for an extraordinary cancellation.'] });
    expect(await ctx.db.query('select 1 from plan_cancel_requests where user_id = $1', [p.id])).toEqual([]);
    expect((await call(ctx, 'POST', '/v1/public/cancel/', { json: form(p.email, { reason: 'moving' }) })).status).toBe(202);
    expect(firstRow(await ctx.db.query('select reason_enc from plan_cancel_requests where user_id = $1', [p.id])).reason_enc).toBeNull();
  });

  it('an extraordinary cancellation dated today ends the plan at once; the back office reviews its reason once; erasure removes the reason', async () => {
    const { p, id } = await withPlan();
    const today = ctx.deps.clock.now().toISOString().slice(0, 10);
    const reason = 'Ich ziehe ins Ausland und kann den Plan dort nicht nutzen.';
    expect((await call(ctx, 'POST', '/v1/public/cancel/', { json: form(p.email, { kind: 'extraordinary', date: today, reason }) })).status).toBe(202);
    const receipt = (await mailsTo(p.email)).at(-1)!;
    expect(receipt.text).toContain('Außerordentliche Kündigung');
    // Sealed at rest.
    const stored = firstRow(await ctx.db.query('select reason_enc from plan_cancel_requests where user_id = $1', [p.id]));
    expect(stored.reason_enc).not.toContain('Ausland');
    const confirmed = await call(ctx, 'POST', '/v1/public/cancel/confirm/', { json: { token: decodeURIComponent(linkIn(receipt.text)!) } });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.plans).toEqual([{ category: 'weight_loss', ends_at: expect.stringMatching(new RegExp(`^${today}`)), status: 'canceled', cancel_at_period_end: false }]);
    const plan = firstRow(await ctx.db.query('select status, canceled_at from subscriptions where id = $1', [id]));
    expect(plan.status).toBe('canceled');
    expect(plan.canceled_at).not.toBeNull();
    const done = (await mailsTo(p.email)).filter((m) => m.subject === 'Ihr Plan ist gekündigt').at(-1)!;
    expect(done.text).toContain(`endet am ${today}`);

    const admin = await newStaff(ctx, 'backoffice_admin');
    const waiting = await call(ctx, 'GET', '/v1/backoffice/cancellations/?reviewed=false&limit=100', { token: admin.access });
    expect(waiting.status).toBe(200);
    const mine = waiting.body.results.find((c: { user_id: string }) => c.user_id === p.id);
    expect(mine).toMatchObject({ email: p.email, subscription_id: id, requested_date: today, reason, reviewed_at: null, review_note: null });
    const reads = await ctx.db.query("select 1 from access_log where actor_id = $1 and resource_type = 'profile' and patient_id = $2", [admin.id, p.id]);
    expect(reads.length).toBeGreaterThan(0);
    expect((await call(ctx, 'GET', '/v1/backoffice/cancellations/', { token: p.access })).status).toBe(403);
    expect((await call(ctx, 'POST', `/v1/backoffice/cancellations/${mine.id}/review/`, { token: admin.access, json: { note: '' } })).body).toEqual({ note: ['Say what was decided.'] });
    const reviewed = await call(ctx, 'POST', `/v1/backoffice/cancellations/${mine.id}/review/`, { token: admin.access, json: { note: 'Accepted; half the period refunded.' } });
    expect(reviewed.status).toBe(204);
    const again = await call(ctx, 'POST', `/v1/backoffice/cancellations/${mine.id}/review/`, { token: admin.access, json: { note: 'Again.' } });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ detail: 'This cancellation was already reviewed.', code: 'cancellation_already_reviewed' });
    const unknown = await call(ctx, 'POST', `/v1/backoffice/cancellations/${randomUUID()}/review/`, { token: admin.access, json: { note: 'x' } });
    expect(unknown.status).toBe(404);
    const after = await call(ctx, 'GET', '/v1/backoffice/cancellations/?reviewed=false&limit=100', { token: admin.access });
    expect(after.body.results.some((c: { user_id: string }) => c.user_id === p.id)).toBe(false);
    const all = await call(ctx, 'GET', '/v1/backoffice/cancellations/?reviewed=true&limit=100', { token: admin.access });
    expect(all.body.results.find((c: { id: string }) => c.id === mine.id)).toMatchObject({ review_note: 'Accepted; half the period refunded.', reviewed_at: expect.any(String) });

    // Erasure: the receipt stays, the reason and the review note go.
    expect((await call(ctx, 'DELETE', '/v1/users/me/', { token: p.access, json: { confirm: 'DELETE' } })).status).toBe(204);
    const kept = firstRow(await ctx.db.query('select kind, reason_enc, review_note_enc, used_at from plan_cancel_requests where id = $1', [mine.id]));
    expect(kept).toMatchObject({ kind: 'extraordinary', reason_enc: null, review_note_enc: null });
    expect(kept.used_at).not.toBeNull();
  });

  it('an extraordinary cancellation dated later ends the plan at its period end (not renewed)', async () => {
    const { p, id } = await withPlan();
    const later = new Date(ctx.deps.clock.now().getTime() + 10 * DAY).toISOString().slice(0, 10);
    await call(ctx, 'POST', '/v1/public/cancel/', { json: form(p.email, { kind: 'extraordinary', date: later, reason: 'Umzug' }) });
    const token = decodeURIComponent(linkIn((await mailsTo(p.email)).at(-1)!.text)!);
    expect((await call(ctx, 'POST', '/v1/public/cancel/confirm/', { json: { token } })).status).toBe(200);
    expect(firstRow(await ctx.db.query('select status, cancel_at_period_end from subscriptions where id = $1', [id]))).toEqual({ status: 'active', cancel_at_period_end: true });
  });

  it('is rate limited per e-mail the same way whether or not the address has an account', async () => {
    const { p } = await withPlan();
    const unknown = `nobody-${randomUUID().slice(0, 8)}@example.org`;
    for (const email of [unknown, p.email]) {
      const statuses = [];
      for (let i = 0; i < 6; i++) statuses.push((await call(ctx, 'POST', '/v1/public/cancel/', { json: form(email), headers: { 'x-forwarded-for': `203.0.113.${i + 10}` } })).status);
      expect(statuses).toEqual([202, 202, 202, 202, 202, 429]);
    }
  });
});
