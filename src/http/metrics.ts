// GET /metrics in the Prometheus text format (prom-client). Each app has its own registry (tests
// build many apps in one process); the process-wide metrics (CPU, memory, event-loop delay, GC) are
// registered once per process and merged in at scrape time.
//
// Access: a caller on the loopback interface without proxy headers (a sidecar or node exporter on
// the same host) needs no credentials; anyone else sends `Authorization: Bearer $METRICS_TOKEN`.
// Without METRICS_TOKEN only loopback callers are answered. A request relayed by a reverse proxy on
// the same host (X-Forwarded-For / Forwarded present) does not count as loopback.
import { createHash, timingSafeEqual } from 'node:crypto';
import client from 'prom-client';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../deps.ts';
import { outboxBacklog } from '../mail/outbox.ts';
import { fail, notAuthenticated, permissionDenied } from './errors.ts';

let processRegistry: client.Registry | undefined;

/** Process metrics (nodejs_eventloop_lag_*, process_cpu_*, nodejs_heap_*, ...): one set per process. */
function processMetrics(): client.Registry {
  if (!processRegistry) {
    processRegistry = new client.Registry();
    client.collectDefaultMetrics({ register: processRegistry, eventLoopMonitoringPrecision: 20 });
  }
  return processRegistry;
}

const LOOPBACK = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1|::ffff:127\.\d{1,3}\.\d{1,3}\.\d{1,3})$/;

export function isDirectLoopback(remoteAddress: string | undefined, headers: Record<string, unknown>): boolean {
  return typeof remoteAddress === 'string' && LOOPBACK.test(remoteAddress) && headers['x-forwarded-for'] === undefined && headers.forwarded === undefined;
}

/** Constant-time comparison (of digests, so the lengths leak nothing either). */
export function tokenMatches(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** Builds the app's registry: HTTP, mail, scheduler, database pool and rate-limit store metrics. */
export function createMetrics(deps: Deps) {
  const registry = new client.Registry();
  const requests = new client.Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    registers: [registry],
  });
  const duration = new client.Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time to answer HTTP requests, by method, route pattern and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });

  // The outbox is read once per scrape (text() starts the read; each gauge's collect awaits it).
  let backlog: Promise<Awaited<ReturnType<typeof outboxBacklog>> | undefined> = Promise.resolve(undefined);
  const scrapeErrors = new client.Counter({
    name: 'metrics_collect_errors_total',
    help: 'Scrapes in which a database-backed metric could not be read',
    registers: [registry],
  });
  const outboxGauge = (name: string, help: string, pick: (b: Awaited<ReturnType<typeof outboxBacklog>>) => number) =>
    new client.Gauge({
      name,
      help,
      registers: [registry],
      async collect() {
        const b = await backlog;
        if (b) this.set(pick(b));
      },
    });
  outboxGauge('mail_outbox_pending', 'Mails waiting in the outbox (all processes)', (b) => b.pending);
  outboxGauge('mail_outbox_retrying', 'Pending mails whose last delivery attempt failed (all processes)', (b) => b.retrying);
  outboxGauge('mail_outbox_oldest_pending_age_seconds', 'Age of the oldest pending mail; 0 when none is pending (all processes)', (b) => b.oldestPendingSeconds);
  outboxGauge('mail_outbox_bounced', 'Mails permanently rejected by the SMTP server (all processes)', (b) => b.bounced);
  new client.Counter({
    name: 'mail_deliveries_total',
    help: 'Delivery attempts by this process, by outcome (sent, failed: retried later, bounced: rejected permanently)',
    labelNames: ['outcome'] as const,
    registers: [registry],
    collect() {
      const s = deps.mail.stats();
      this.reset();
      for (const outcome of ['sent', 'failed', 'bounced'] as const) this.inc({ outcome }, s[outcome]);
    },
  });

  // The consultation list's page cache (src/lib/page-cache.ts): its hit ratio is what LIST_CACHE_MB buys.
  new client.Counter({
    name: 'list_cache_lookups_total',
    help: 'Consultation-list requests of this process that looked for an unchanged page, by outcome (hit: served from memory, miss: computed)',
    labelNames: ['outcome'] as const,
    registers: [registry],
    collect() {
      this.reset();
      const s = deps.pageCache?.stats();
      if (s) for (const outcome of ['hit', 'miss'] as const) this.inc({ outcome }, outcome === 'hit' ? s.hits : s.misses);
    },
  });
  new client.Gauge({
    name: 'list_cache_bytes',
    help: 'Bytes of answered consultation-list pages held by this process (at most LIST_CACHE_MB)',
    registers: [registry],
    collect() {
      this.set(deps.pageCache?.stats().bytes ?? 0);
    },
  });

  const jobLabels = ['job'] as const;
  new client.Counter({
    name: 'scheduler_job_runs_total',
    help: 'Runs of each scheduled job in this process',
    labelNames: jobLabels,
    registers: [registry],
    collect() {
      this.reset();
      for (const s of deps.scheduler.stats()) this.inc({ job: s.name }, s.runs);
    },
  });
  new client.Counter({
    name: 'scheduler_job_failures_total',
    help: 'Runs of each scheduled job in this process that threw',
    labelNames: jobLabels,
    registers: [registry],
    collect() {
      this.reset();
      for (const s of deps.scheduler.stats()) this.inc({ job: s.name }, s.failures);
    },
  });
  new client.Gauge({
    name: 'scheduler_job_lag_seconds',
    help: 'Seconds since the job last completed successfully in this process (absent until it has; on PostgreSQL one process of many runs the jobs)',
    labelNames: jobLabels,
    registers: [registry],
    collect() {
      this.reset();
      const now = Date.now();
      for (const s of deps.scheduler.stats()) if (s.lastSuccessAt !== undefined) this.set({ job: s.name }, (now - s.lastSuccessAt) / 1000);
    },
  });
  new client.Gauge({
    name: 'scheduler_job_last_duration_seconds',
    help: 'Duration of the last run of the job in this process',
    labelNames: jobLabels,
    registers: [registry],
    collect() {
      this.reset();
      for (const s of deps.scheduler.stats()) if (s.lastDurationMs !== undefined) this.set({ job: s.name }, s.lastDurationMs / 1000);
    },
  });

  new client.Gauge({
    name: 'db_pool_connections',
    help: 'Database pool connections by state (total, idle, waiting: callers queued for a connection; max: the pool size). PostgreSQL only',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      this.reset();
      const p = deps.db.poolStats?.();
      if (!p) return;
      this.set({ state: 'total' }, p.total);
      this.set({ state: 'idle' }, p.idle);
      this.set({ state: 'waiting' }, p.waiting);
      this.set({ state: 'max' }, p.max);
    },
  });
  new client.Gauge({
    name: 'rate_limit_store_degraded',
    help: '1 when REDIS_URL is set but unreachable and rate limits fall back to per-process memory',
    registers: [registry],
    collect() {
      const store = deps.limiters.store();
      this.set(store === 'redis_unreachable' || store === 'redis_connecting' ? 1 : 0);
    },
  });

  return {
    registry,
    observe(method: string, route: string | undefined, statusCode: number, seconds: number) {
      const labels = { method, route: route ?? 'unmatched', status_code: String(statusCode) };
      requests.inc(labels);
      duration.observe(labels, seconds);
    },
    async text(): Promise<{ contentType: string; body: string }> {
      backlog = outboxBacklog(deps.db).catch(() => {
        scrapeErrors.inc();
        return undefined;
      });
      const merged = client.Registry.merge([processMetrics(), registry]);
      return { contentType: merged.contentType, body: await merged.metrics() };
    },
  };
}

/** Adds the request hooks and GET /metrics to the root instance (so the hooks see every route). */
export function registerMetrics(app: FastifyInstance, deps: Deps): void {
  const metrics = createMetrics(deps);
  // Synchronous (a callback hook): an async one cost a promise and a microtask on every answer.
  app.addHook('onResponse', (request, reply, done) => {
    metrics.observe(request.method, request.routeOptions.url, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (!isDirectLoopback(request.socket.remoteAddress, request.headers)) {
      const token = deps.config.METRICS_TOKEN;
      if (!token) throw permissionDenied();
      const header = request.headers.authorization;
      if (typeof header !== 'string' || !/^Bearer\s+\S/i.test(header)) throw notAuthenticated();
      if (!tokenMatches(header.replace(/^Bearer\s+/i, ''), token)) throw fail('authentication_failed');
    }
    const { contentType, body } = await metrics.text();
    reply.header('cache-control', 'no-store');
    return reply.type(contentType).send(body);
  });
}
