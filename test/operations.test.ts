// Operations: GET /metrics (content and access rule), /readyz while shutting down and with an
// unreachable REDIS_URL, the capped mail retry backoff and its failure metrics.
import { createServer } from 'node:net';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markShuttingDown, READINESS_DB_TIMEOUT_MS } from '../src/http/readiness.ts';
import { createLimiters } from '../src/lib/rate-limit.ts';
import { createDispatcher, enqueueMail, MAX_BACKOFF_SECONDS, retryDelaySeconds, type MailTemplate } from '../src/mail/outbox.ts';
import type { Db } from '../src/db/index.ts';
import { call, createTestContext, seedPatient, type TestContext, firstRow } from './support/harness.ts';

const TOKEN = 'metrics-token-' + randomUUID();

const notice: MailTemplate<{ code: string }> = {
  name: 'test_notice',
  en: (v) => ({ subject: 'Notice', text: `Your code ${v.code}` }),
  de: (v) => ({ subject: 'Hinweis', text: `Ihr Code ${v.code}` }),
  es: (v) => ({ subject: 'Aviso', text: `Código ${v.code}` }),
  fr: (v) => ({ subject: 'Avis', text: `Code ${v.code}` }),
  it: (v) => ({ subject: 'Avviso', text: `Codice ${v.code}` }),
  nl: (v) => ({ subject: 'Bericht', text: `Code ${v.code}` }),
  pt: (v) => ({ subject: 'Aviso', text: `Código ${v.code}` }),
};

/** The value of one sample line (`name{labels} value`), or undefined when the series is absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const got = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) return Number(m[3]);
  }
  return undefined;
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

let ctx: TestContext;
let guarded: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
  guarded = await createTestContext({ METRICS_TOKEN: TOKEN });
});
afterAll(async () => {
  await ctx?.close();
  await guarded?.close();
});

describe('GET /metrics', () => {
  it('counts requests per route pattern (not the raw URL), with durations', async () => {
    await call(ctx, 'GET', '/healthz');
    await call(ctx, 'GET', '/healthz');
    const id = randomUUID();
    await call(ctx, 'GET', `/v1/users/consultations/${id}/`); // 401 without a token
    await call(ctx, 'GET', `/no/such/${id}`);
    const res = await call(ctx, 'GET', '/metrics');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(sample(res.text, 'http_requests_total', { method: 'GET', route: '/healthz', status_code: '200' })).toBe(2);
    expect(sample(res.text, 'http_requests_total', { method: 'GET', route: '/v1/users/consultations/:id/', status_code: '401' })).toBe(1);
    expect(sample(res.text, 'http_requests_total', { route: 'unmatched', status_code: '404' })).toBe(1);
    expect(res.text).not.toContain(id);
    expect(sample(res.text, 'http_request_duration_seconds_count', { method: 'GET', route: '/healthz', status_code: '200' })).toBe(2);
    expect(sample(res.text, 'http_request_duration_seconds_bucket', { route: '/healthz', le: '+Inf' })).toBe(2);
    // Event-loop delay and process metrics.
    expect(sample(res.text, 'nodejs_eventloop_lag_p99_seconds')).toBeGreaterThanOrEqual(0);
    expect(sample(res.text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
  });

  it('keeps one registry per app: another app in the same process counts its own requests', async () => {
    await call(guarded, 'GET', '/healthz');
    const a = (await call(ctx, 'GET', '/metrics')).text;
    const b = (await call(guarded, 'GET', '/metrics')).text;
    expect(sample(b, 'http_requests_total', { route: '/healthz', status_code: '200' })).toBe(1);
    expect(sample(a, 'http_requests_total', { route: '/healthz', status_code: '200' })).toBeGreaterThanOrEqual(2);
  });

  it('reports the outbox backlog, the oldest pending mail and failed deliveries', async () => {
    const empty = (await call(ctx, 'GET', '/metrics')).text;
    expect(sample(empty, 'mail_outbox_pending')).toBe(0);
    expect(sample(empty, 'mail_outbox_oldest_pending_age_seconds')).toBe(0);
    await ctx.db.tx((q) => enqueueMail(q, 'backlog@example.org', notice, 'en', { code: '111111' }));
    await ctx.db.query("update mail_outbox set created_at = now() - interval '90 seconds' where to_address = 'backlog@example.org'");
    const text = (await call(ctx, 'GET', '/metrics')).text;
    expect(sample(text, 'mail_outbox_pending')).toBe(1);
    expect(sample(text, 'mail_outbox_oldest_pending_age_seconds')).toBeGreaterThanOrEqual(90);
    expect(sample(text, 'mail_outbox_oldest_pending_age_seconds')).toBeLessThan(150);
    expect(text).not.toContain('backlog@example.org');
    // The app's own dispatcher delivers it (memory transport): counted as sent.
    await ctx.flushMail();
    const after = (await call(ctx, 'GET', '/metrics')).text;
    expect(sample(after, 'mail_outbox_pending')).toBe(0);
    expect(sample(after, 'mail_deliveries_total', { outcome: 'sent' })).toBeGreaterThanOrEqual(1);
    expect(sample(after, 'mail_deliveries_total', { outcome: 'failed' })).toBe(0);
  });

  it('reports scheduler runs, failures and lag per job', async () => {
    let fail = true;
    ctx.deps.scheduler.register('test.flaky', async () => {
      if (fail) throw new Error('boom');
    });
    await ctx.deps.scheduler.runDue();
    let text = (await call(ctx, 'GET', '/metrics')).text;
    expect(sample(text, 'scheduler_job_runs_total', { job: 'test.flaky' })).toBe(1);
    expect(sample(text, 'scheduler_job_failures_total', { job: 'test.flaky' })).toBe(1);
    expect(sample(text, 'scheduler_job_lag_seconds', { job: 'test.flaky' })).toBeUndefined(); // never succeeded
    expect(sample(text, 'scheduler_job_runs_total', { job: 'billing.recurring-charges' })).toBe(1);
    expect(sample(text, 'scheduler_job_lag_seconds', { job: 'billing.recurring-charges' })).toBeGreaterThanOrEqual(0);
    fail = false;
    await ctx.deps.scheduler.runDue();
    text = (await call(ctx, 'GET', '/metrics')).text;
    expect(sample(text, 'scheduler_job_failures_total', { job: 'test.flaky' })).toBe(1);
    expect(sample(text, 'scheduler_job_runs_total', { job: 'test.flaky' })).toBe(2);
    expect(sample(text, 'scheduler_job_lag_seconds', { job: 'test.flaky' })).toBeLessThan(5);
  });

  it('reports database pool use on PostgreSQL', async () => {
    const text = (await call(ctx, 'GET', '/metrics')).text;
    if (ctx.db.kind === 'pg') {
      expect(sample(text, 'db_pool_connections', { state: 'max' })).toBe(10);
      expect(sample(text, 'db_pool_connections', { state: 'total' })).toBeGreaterThanOrEqual(1);
      expect(sample(text, 'db_pool_connections', { state: 'idle' })).toBeLessThanOrEqual(sample(text, 'db_pool_connections', { state: 'total' })!);
      // The scrape's own outbox query may be waiting for a fresh connection at that moment.
      expect(sample(text, 'db_pool_connections', { state: 'waiting' })).toBeGreaterThanOrEqual(0);
    } else {
      expect(sample(text, 'db_pool_connections', { state: 'max' })).toBeUndefined(); // PGlite: one connection, no pool
    }
    expect(sample(text, 'rate_limit_store_degraded')).toBe(0);
  });

  it('answers loopback callers without credentials and nobody else without METRICS_TOKEN', async () => {
    const remote = await call(ctx, 'GET', '/metrics', { ip: '203.0.113.7' });
    expect(remote.status).toBe(403);
    expect(remote.body).toEqual({ detail: expect.any(String), code: 'permission_denied' });
    // A reverse proxy on the same host relays outside callers: not loopback.
    expect((await call(ctx, 'GET', '/metrics', { headers: { 'x-forwarded-for': '203.0.113.7' } })).status).toBe(403);
    expect((await call(ctx, 'GET', '/metrics', { ip: '::1' })).status).toBe(200);
    // A token of the right kind does not help when none is configured.
    expect((await call(ctx, 'GET', '/metrics', { ip: '203.0.113.7', token: TOKEN })).status).toBe(403);
  });

  it('answers other callers with the bearer METRICS_TOKEN, compared in constant time', async () => {
    const none = await call(guarded, 'GET', '/metrics', { ip: '203.0.113.7' });
    expect(none.status).toBe(401);
    expect(none.body.code).toBe('not_authenticated');
    expect(none.headers['www-authenticate']).toMatch(/^Bearer/);
    const wrong = await call(guarded, 'GET', '/metrics', { ip: '203.0.113.7', token: TOKEN + 'x' });
    expect(wrong.status).toBe(401);
    expect(wrong.body.code).toBe('authentication_failed');
    expect((await call(guarded, 'GET', '/metrics', { ip: '203.0.113.7', token: TOKEN.slice(0, -1) })).status).toBe(401);
    const ok = await call(guarded, 'GET', '/metrics', { ip: '203.0.113.7', token: TOKEN });
    expect(ok.status).toBe(200);
    expect(ok.text).toContain('http_requests_total');
    expect((await call(guarded, 'GET', '/metrics', { headers: { 'x-forwarded-for': '203.0.113.7', authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
    expect((await call(guarded, 'GET', '/metrics')).status).toBe(200); // loopback
  });

  it('is not in the patient OpenAPI document', async () => {
    const doc = (await call(ctx, 'GET', '/v1/schema/')).body;
    expect(Object.keys(doc.paths)).not.toContain('/metrics');
  });
});

describe('GET /readyz', () => {
  it('answers 503 from the moment shutdown starts, while other routes still answer', async () => {
    const other = await createTestContext();
    try {
      expect((await call(other, 'GET', '/readyz')).status).toBe(200);
      markShuttingDown(other.deps);
      const res = await call(other, 'GET', '/readyz');
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ status: 'unavailable', checks: { database: 'ok', rate_limit_store: 'memory', shutting_down: true } });
      expect((await call(other, 'GET', '/healthz')).status).toBe(200);
      expect((await call(ctx, 'GET', '/readyz')).status).toBe(200); // another app is unaffected
    } finally {
      await other.close();
    }
  });

  it('answers 503 database_unavailable (never 500) while the database is lost, and /readyz 503 within 2 s while it hangs', async () => {
    // The database as the app sees it: answering, failing as a dropped connection does, or silent.
    let mode: 'ok' | 'lost' | 'silent' = 'ok';
    const wake: Array<() => void> = [];
    const gate = async () => {
      if (mode === 'lost') throw Object.assign(new Error('Connection terminated unexpectedly'), { statement: 'select' });
      if (mode === 'silent') await new Promise<void>((r) => wake.push(r));
    };
    const wrapDb = (db: Db): Db => ({
      ...db,
      kind: db.kind,
      query: async (sql, params) => (await gate(), db.query(sql, params)),
      execute: async (sql, params) => (await gate(), db.execute(sql, params)),
      tx: async (fn) => (await gate(), db.tx(fn)),
      close: () => db.close(),
      exec: (sql) => db.exec(sql),
    });
    const lossy = await createTestContext({}, { wrapDb });
    try {
      const p = await seedPatient(lossy);
      mode = 'lost';
      const res = await call(lossy, 'GET', '/v1/users/profile/me/', { token: p.access });
      expect([res.status, res.body, res.headers['retry-after']]).toEqual([503, { error: expect.any(String), code: 'database_unavailable' }, '2']);
      const write = await call(lossy, 'POST', `/v1/users/conversations/${randomUUID()}/messages/`, { token: p.access, json: { content: 'Hello' } });
      expect([write.status, write.body.code]).toEqual([503, 'database_unavailable']);
      mode = 'silent';
      // No wall clock: /readyz answers while its probe is still unanswered (the query is held in `wake`),
      // so its own timer answered, and that timer is under the 2 s a load balancer's probe allows.
      expect(READINESS_DB_TIMEOUT_MS).toBeLessThan(2000);
      const ready = await call(lossy, 'GET', '/readyz');
      expect(wake.length).toBeGreaterThan(0);
      expect([ready.status, ready.body.checks.database]).toEqual([503, 'unreachable']);
      mode = 'ok';
      for (const w of wake.splice(0)) w();
      expect((await call(lossy, 'GET', '/readyz')).status).toBe(200);
      expect((await call(lossy, 'GET', '/v1/users/profile/me/', { token: p.access })).status).toBe(200);
    } finally {
      mode = 'ok';
      for (const w of wake.splice(0)) w();
      await lossy.close();
    }
  });

  it('reports an unreachable REDIS_URL as degraded (200), in metrics, and logs it once at error level', async () => {
    const port = await closedPort();
    const degraded = await createTestContext({ REDIS_URL: `redis://:s3cret@127.0.0.1:${port}/0` });
    try {
      expect(await degraded.deps.limiters.settled(5000)).toBe('redis_unreachable');
      const res = await call(degraded, 'GET', '/readyz');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 'degraded', checks: { database: 'ok', rate_limit_store: 'redis_unreachable', shutting_down: false } });
      expect(sample((await call(degraded, 'GET', '/metrics')).text, 'rate_limit_store_degraded')).toBe(1);
      // Budgets still apply (per process) while Redis is away.
      const budget = degraded.deps.limiters.budget('test-fallback', 1, 60);
      await budget.consume('k');
      await expect(budget.consume('k')).rejects.toMatchObject({ status: 429 });
    } finally {
      await degraded.close();
    }

    const logged: Array<{ level: string; obj: any; msg: string }> = [];
    const log = { error: (obj: object, msg: string) => void logged.push({ level: 'error', obj, msg }), warn: (obj: object, msg: string) => void logged.push({ level: 'warn', obj, msg }) };
    const limiters = createLimiters({ REDIS_URL: `redis://:s3cret@127.0.0.1:${port}` }, log);
    try {
      expect(await limiters.settled(5000)).toBe('redis_unreachable');
      await new Promise((r) => setTimeout(r, 300)); // reconnect attempts fail again: still one line
      expect(logged.filter((l) => l.level === 'error')).toHaveLength(1);
      expect(logged[0]?.msg).toMatch(/REDIS_URL unreachable/);
      expect(logged[0]?.obj).toEqual({ redis: `127.0.0.1:${port}`, code: 'ECONNREFUSED' });
      expect(JSON.stringify(logged)).not.toContain('s3cret');
    } finally {
      await limiters.close();
    }
  });

  it('reports memory when REDIS_URL is unset and redis when it is reachable', async () => {
    expect(createLimiters({}).store()).toBe('memory');
    if (!process.env.TEST_REDIS_URL) return;
    const limiters = createLimiters({ REDIS_URL: process.env.TEST_REDIS_URL });
    try {
      expect(await limiters.settled(5000)).toBe('redis');
    } finally {
      await limiters.close();
    }
  });
});

describe('mail retry backoff', () => {
  it('doubles from 2 s and is capped at one minute', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 12, 40].map(retryDelaySeconds)).toEqual([2, 4, 8, 16, 32, 60, 60, 60, 60]);
    expect(MAX_BACKOFF_SECONDS).toBe(60);
  });

  it('retries a long-failing mail within a minute, logs the failure without address or content, and counts it', async () => {
    const logged: Array<{ obj: any; msg: string }> = [];
    const down = {
      send: async () => {
        throw Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:25'), { code: 'ECONNREFUSED' });
      },
    };
    const dispatcher = createDispatcher(ctx.db, down, 'from@test', { warn: (obj, msg) => void logged.push({ obj, msg }) });
    await ctx.db.tx((q) => enqueueMail(q, 'outage-long@example.org', notice, 'en', { code: '424242' }));
    // Nine failed attempts already (an outage of several minutes): the tenth waits 60 s, not 1024 s.
    await ctx.db.query("update mail_outbox set attempts = 9 where to_address = 'outage-long@example.org'");
    expect(await dispatcher.runOnce()).toBe(0);
    const row = firstRow(await ctx.db.query(
      "select status, attempts, extract(epoch from next_attempt_at - now())::float8 as wait from mail_outbox where to_address = 'outage-long@example.org'",
    ));
    expect(row.status).toBe('pending');
    expect(row.attempts).toBe(10);
    expect(row.wait).toBeGreaterThan(55);
    expect(row.wait).toBeLessThanOrEqual(60);
    expect(logged).toHaveLength(1);
    expect(logged[0]?.msg).toBe('mail delivery failed');
    expect(logged[0]?.obj).toMatchObject({ template: 'test_notice', attempt: 10, code: 'ECONNREFUSED', permanent: false, retryInSeconds: 60 });
    const text = JSON.stringify(logged);
    expect(text).not.toContain('outage-long@example.org');
    expect(text).not.toContain('424242');
    expect(text).not.toContain('Notice');
    expect(dispatcher.stats()).toEqual({ sent: 0, failed: 1, bounced: 0 });
    // The row shows in the app's metrics as pending and retrying.
    const metrics = (await call(ctx, 'GET', '/metrics')).text;
    expect(sample(metrics, 'mail_outbox_retrying')).toBe(1);
    await ctx.db.query("delete from mail_outbox where to_address = 'outage-long@example.org'");
  });

  it('counts failed deliveries of the app dispatcher in mail_deliveries_total', async () => {
    const failing = await createTestContext({}, {
      transport: {
        send: async () => {
          throw Object.assign(new Error('greeting never received'), { code: 'ETIMEDOUT' });
        },
      },
    });
    try {
      await failing.db.tx((q) => enqueueMail(q, 'timeout@example.org', notice, 'en', { code: '1' }));
      await failing.deps.mail.runOnce();
      const text = (await call(failing, 'GET', '/metrics')).text;
      expect(sample(text, 'mail_deliveries_total', { outcome: 'failed' })).toBe(1);
      expect(sample(text, 'mail_deliveries_total', { outcome: 'sent' })).toBe(0);
      expect(sample(text, 'mail_outbox_retrying')).toBe(1);
    } finally {
      await failing.close();
    }
  });
});
