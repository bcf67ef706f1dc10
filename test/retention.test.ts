// Retention (docs/privacy.md "Retention"): each scheduled sweep deletes what is past its
// period and keeps what is not, is idempotent, and the access log stays append-only except for
// entries older than its period. Old rows are inserted (or aged) directly; the app does the rest.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ABANDONED_DRAFT_DAYS,
  ACCESS_LOG_RETENTION_YEARS,
  ENDED_CHECKOUT_DAYS,
  EXPIRED_SESSION_DAYS,
  RETENTION_JOBS,
  UNVERIFIED_REGISTRATION_DAYS,
  runRetention,
  runRetentionJob,
} from '../src/modules/privacy/retention.ts';
import { call, createTestContext, PASSWORD, seedPatient, TEST_BRAND, uniqueEmail, type TestContext } from './support/harness.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => ctx?.close());

const DAY = 24 * 3600 * 1000;
const daysAgo = (days: number) => new Date(ctx.deps.clock.now().getTime() - days * DAY);
const job = (name: string) => {
  const j = RETENTION_JOBS.find((x) => x.name === `privacy.retention.${name}`);
  if (!j) throw new Error(`no job ${name}`);
  return j;
};
const exists = async (table: string, column: string, value: string) => (await ctx.db.query(`select 1 from ${table} where ${column} = $1`, [value])).length === 1;

async function register(email: string) {
  const res = await call(ctx, 'POST', '/v1/users/register/', { brand: TEST_BRAND, json: { email, password: PASSWORD, first_name: 'Una', last_name: 'Verified' } });
  expect(res.status).toBe(200);
  const [row] = await ctx.db.query<{ id: string }>('select id from users where lower(email) = lower($1)', [email]);
  return row!.id;
}
/** Moves an unverified registration (and its code) `days` into the past. */
async function ageRegistration(id: string, days: number) {
  await ctx.db.query('update users set created_at = $2, updated_at = $2 where id = $1', [id, daysAgo(days)]);
  await ctx.db.query('update email_verifications set last_sent_at = $2, expires_at = $2 where user_id = $1', [id, daysAgo(days)]);
}

describe('the scheduled jobs', () => {
  it('are registered with the scheduler under their names', () => {
    const names = ctx.deps.scheduler.stats().map((s) => s.name);
    for (const j of RETENTION_JOBS) expect(names).toContain(j.name);
    // Idempotency keys have their own sweep (24 hours).
    expect(names).toContain('idempotency.expire');
  });
});

describe('unverified registrations', () => {
  it(`are deleted ${UNVERIFIED_REGISTRATION_DAYS} days after registration; younger, verified, disabled and referring accounts stay`, async () => {
    const oldEmail = uniqueEmail('stale');
    const stale = await register(oldEmail);
    await ageRegistration(stale, UNVERIFIED_REGISTRATION_DAYS + 1);
    const young = await register(uniqueEmail('young'));
    await ageRegistration(young, UNVERIFIED_REGISTRATION_DAYS - 1);
    const disabled = await register(uniqueEmail('disabled'));
    await ageRegistration(disabled, UNVERIFIED_REGISTRATION_DAYS + 1);
    await ctx.db.query('update users set disabled_at = now() where id = $1', [disabled]);
    const referrer = await register(uniqueEmail('referrer'));
    await ageRegistration(referrer, UNVERIFIED_REGISTRATION_DAYS + 1);
    const referred = await seedPatient(ctx, { referred_by: referrer });
    const verified = await seedPatient(ctx, { created_at: daysAgo(400) });
    // A code re-sent recently keeps an old registration alive.
    const resent = await register(uniqueEmail('resent'));
    await ageRegistration(resent, UNVERIFIED_REGISTRATION_DAYS + 5);
    await ctx.db.query('update email_verifications set last_sent_at = $2 where user_id = $1', [resent, daysAgo(1)]);

    expect(await runRetentionJob(ctx.deps, job('unverified-accounts'))).toBe(1);
    expect(await exists('users', 'id', stale)).toBe(false);
    expect(await exists('email_verifications', 'user_id', stale)).toBe(false);
    for (const id of [young, disabled, referrer, referred.id, verified.id, resent]) expect(await exists('users', 'id', id)).toBe(true);
    // Idempotent: nothing left past its period.
    expect(await runRetentionJob(ctx.deps, job('unverified-accounts'))).toBe(0);

    // The address registers afresh: a new account, verified with the new code.
    await ctx.flushMail();
    const sentBefore = ctx.mails.length;
    const again = await register(oldEmail);
    expect(again).not.toBe(stale);
    await ctx.flushMail();
    const mail = ctx.mails.slice(sentBefore).find((m) => m.to === oldEmail);
    const otp = /\b(\d{6})\b/.exec(mail?.text ?? '')?.[1];
    expect((await call(ctx, 'POST', '/v1/users/verify-email/', { brand: TEST_BRAND, json: { email: oldEmail, otp } })).status).toBe(200);
  });
});

describe('abandoned questionnaire drafts', () => {
  it(`are deleted when untouched for ${ABANDONED_DRAFT_DAYS} days, whoever owns them; touched ones stay`, async () => {
    const a = await seedPatient(ctx);
    const b = await seedPatient(ctx);
    const insert = async (userId: string, category: string, days: number) => {
      const [row] = await ctx.db.query<{ id: string }>(
        "insert into questionnaire_drafts (user_id, category, version_id, data, created_at, updated_at) values ($1, $2, $3, '[]'::jsonb, $4, $4) returning id",
        [userId, category, randomUUID(), daysAgo(days)],
      );
      return row!.id;
    };
    const oldA = await insert(a.id, 'weight_loss', ABANDONED_DRAFT_DAYS + 1);
    const oldB = await insert(b.id, 'hair_loss', ABANDONED_DRAFT_DAYS + 30);
    const keptA = await insert(a.id, 'hair_loss', ABANDONED_DRAFT_DAYS - 1);
    const keptB = await insert(b.id, 'weight_loss', 0);

    expect(await runRetentionJob(ctx.deps, job('abandoned-drafts'))).toBe(2);
    expect(await exists('questionnaire_drafts', 'id', oldA)).toBe(false);
    expect(await exists('questionnaire_drafts', 'id', oldB)).toBe(false);
    expect(await exists('questionnaire_drafts', 'id', keptA)).toBe(true);
    expect(await exists('questionnaire_drafts', 'id', keptB)).toBe(true);
    expect(await runRetentionJob(ctx.deps, job('abandoned-drafts'))).toBe(0);
  });
});

describe('expired sessions and one-time tokens', () => {
  it(`are deleted ${EXPIRED_SESSION_DAYS} days after they expired or were revoked; the live session keeps working`, async () => {
    const p = await seedPatient(ctx);
    const family = async (created: Date, revoked: Date | null, tokenExpires: Date | null) => {
      const [f] = await ctx.db.query<{ id: string }>('insert into refresh_families (user_id, created_at, revoked_at) values ($1, $2, $3) returning id', [p.id, created, revoked]);
      if (tokenExpires) await ctx.db.query('insert into refresh_tokens (jti_hash, family_id, expires_at, created_at) values ($1, $2, $3, $4)', [randomUUID(), f!.id, tokenExpires, created]);
      return f!.id;
    };
    const expired = await family(daysAgo(60), null, daysAgo(EXPIRED_SESSION_DAYS + 1));
    const revoked = await family(daysAgo(40), daysAgo(EXPIRED_SESSION_DAYS + 1), daysAgo(-5));
    const recentlyExpired = await family(daysAgo(50), null, daysAgo(EXPIRED_SESSION_DAYS - 1));
    const recentlyRevoked = await family(daysAgo(40), daysAgo(2), daysAgo(-5));
    // An expired token of a family that still has a live one: the token goes, the family stays.
    const mixed = await family(daysAgo(90), null, daysAgo(-3));
    const oldToken = randomUUID();
    await ctx.db.query('insert into refresh_tokens (jti_hash, family_id, expires_at, created_at, used_at) values ($1, $2, $3, $4, $4)', [oldToken, mixed, daysAgo(EXPIRED_SESSION_DAYS + 10), daysAgo(90)]);
    await ctx.db.query('insert into password_reset_tokens (token_hash, user_id, expires_at, created_at) values ($1, $2, $3, $3), ($4, $2, $5, $5)', [
      'reset-old',
      p.id,
      daysAgo(EXPIRED_SESSION_DAYS + 1),
      'reset-young',
      daysAgo(1),
    ]);

    expect(await runRetentionJob(ctx.deps, job('expired-sessions'))).toBeGreaterThan(0);
    expect(await exists('refresh_families', 'id', expired)).toBe(false);
    expect(await exists('refresh_families', 'id', revoked)).toBe(false);
    expect(await exists('refresh_families', 'id', recentlyExpired)).toBe(true);
    expect(await exists('refresh_families', 'id', recentlyRevoked)).toBe(true);
    expect(await exists('refresh_families', 'id', mixed)).toBe(true);
    expect(await exists('refresh_tokens', 'jti_hash', oldToken)).toBe(false);
    expect(await runRetentionJob(ctx.deps, job('expired-sessions'))).toBe(0);

    expect(await runRetentionJob(ctx.deps, job('expired-one-time-tokens'))).toBe(1);
    expect(await exists('password_reset_tokens', 'token_hash', 'reset-old')).toBe(false);
    expect(await exists('password_reset_tokens', 'token_hash', 'reset-young')).toBe(true);

    // The patient's own session (issued now) is untouched: the access token and the refresh work.
    expect((await call(ctx, 'GET', '/v1/users/me/consents/', { token: p.access })).status).toBe(200);
    expect((await call(ctx, 'POST', '/v1/users/token/refresh/', { brand: TEST_BRAND, json: { refresh: p.refresh } })).status).toBe(200);
  });
});

describe('checkout sessions that ended unpaid', () => {
  it(`are deleted ${ENDED_CHECKOUT_DAYS} days after their expiry; paid, finalised, recent and open ones and every payment stay`, async () => {
    const p = await seedPatient(ctx);
    const other = await seedPatient(ctx);
    const session = async (userId: string, status: string, expiresDaysAgo: number, finalised = false) => {
      const id = `cs_ret_${randomUUID()}`;
      await ctx.db.query(
        `insert into checkout_sessions (id, user_id, provider, category, plan, treatment_id, amount_cents, status, expires_at, finalised_at, created_at)
         values ($1, $2, 'sandbox', 'weight_loss', 'one_off', 'semaglutide', 9900, $3, $4, $5, $4)`,
        [id, userId, status, daysAgo(expiresDaysAgo), finalised ? daysAgo(expiresDaysAgo) : null],
      );
      return id;
    };
    const oldExpired = await session(p.id, 'expired', ENDED_CHECKOUT_DAYS + 1);
    const oldDeclined = await session(other.id, 'declined', ENDED_CHECKOUT_DAYS + 20);
    const recentExpired = await session(p.id, 'expired', ENDED_CHECKOUT_DAYS - 1);
    const oldPaid = await session(p.id, 'paid', ENDED_CHECKOUT_DAYS + 100, true);
    const declinedWithPayment = await session(other.id, 'declined', ENDED_CHECKOUT_DAYS + 5);
    const [payment] = await ctx.db.query<{ id: string }>(
      `insert into payments (user_id, provider, provider_payment_id, amount_cents, status, failure_code, failed_at, checkout_session_id)
       values ($1, 'sandbox', $2, 9900, 'failed', 'card_declined', now(), $3) returning id`,
      [other.id, `pi_${randomUUID()}`, declinedWithPayment],
    );

    expect(await runRetentionJob(ctx.deps, job('ended-checkout-sessions'))).toBe(2);
    expect(await exists('checkout_sessions', 'id', oldExpired)).toBe(false);
    expect(await exists('checkout_sessions', 'id', oldDeclined)).toBe(false);
    for (const id of [recentExpired, oldPaid, declinedWithPayment]) expect(await exists('checkout_sessions', 'id', id)).toBe(true);
    expect(await exists('payments', 'id', payment!.id)).toBe(true);
    expect(await runRetentionJob(ctx.deps, job('ended-checkout-sessions'))).toBe(0);
  });
});

describe('the access log', () => {
  it(`deletes entries older than ${ACCESS_LOG_RETENTION_YEARS} years, keeps the rest, and stays append-only otherwise`, async () => {
    const p = await seedPatient(ctx);
    const insert = async (at: string) => {
      const [row] = await ctx.db.query<{ id: string }>(
        `insert into access_log (patient_id, actor_role, actor_name, action, resource_type, resource_id, at)
         values ($1::uuid, 'doctor', 'Dr Old', 'read', 'profile', $1::text, now() - $2::interval) returning id`,
        [p.id, at],
      );
      return row!.id;
    };
    const old = await insert(`${ACCESS_LOG_RETENTION_YEARS} years 30 days`);
    const young = await insert(`${ACCESS_LOG_RETENTION_YEARS - 1} years 300 days`);
    const recent = await insert('1 day');

    // Outside the sweep, the database refuses every change but the deletion of an entry past its period.
    await expect(ctx.db.query('delete from access_log where id = $1', [young])).rejects.toThrow(/append-only/);
    await expect(ctx.db.query("update access_log set actor_name = 'nobody' where id = $1", [old])).rejects.toThrow(/append-only/);
    await expect(ctx.db.query('truncate access_log')).rejects.toThrow(/append-only/);

    expect(await runRetentionJob(ctx.deps, job('access-log'))).toBe(1);
    expect(await exists('access_log', 'id', old)).toBe(false);
    expect(await exists('access_log', 'id', young)).toBe(true);
    expect(await exists('access_log', 'id', recent)).toBe(true);
    expect(await runRetentionJob(ctx.deps, job('access-log'))).toBe(0);
    // The patient's log still lists the kept entries.
    const log = await call(ctx, 'GET', '/v1/users/me/access-log/', { token: p.access });
    expect(log.body.results.map((e: { id: string }) => e.id).sort()).toEqual([young, recent].sort());
  });
});

describe('every sweep at once', () => {
  it('runs concurrently (as on several processes) without errors or double work', async () => {
    const p = await seedPatient(ctx);
    for (const cat of ['weight_loss', 'hair_loss', 'erectile_dysfunction']) {
      await ctx.db.query("insert into questionnaire_drafts (user_id, category, version_id, data, updated_at) values ($1, $2, $3, '[]'::jsonb, $4)", [
        p.id,
        cat,
        randomUUID(),
        daysAgo(ABANDONED_DRAFT_DAYS + 2),
      ]);
    }
    const [a, b] = await Promise.all([runRetention(ctx.deps), runRetention(ctx.deps)]);
    expect(a!['privacy.retention.abandoned-drafts']! + b!['privacy.retention.abandoned-drafts']!).toBe(3);
    expect(await ctx.db.query('select 1 from questionnaire_drafts where user_id = $1', [p.id])).toEqual([]);
  });
});
