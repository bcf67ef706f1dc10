// The test harness: a real app on a real database (a copy of the migrated template: PGlite, or
// PostgreSQL when DATABASE_URL is set), mail captured in memory, and small HTTP helpers.
import { randomBytes, randomUUID } from 'node:crypto';
import { appendFileSync, readFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { buildApp, type App } from '../../src/app.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { openPglite, openPostgres, type Db, type Queryable } from '../../src/db/index.ts';
import type { Deps } from '../../src/deps.ts';
import { memoryTransport, type MailTransport, type OutgoingMail } from '../../src/mail/transports.ts';
import { createRuntime } from '../../src/runtime.ts';

export const TEST_BRAND = 'test-brand';
export const TEST_BASE_URL = 'http://api.test.local';
export const PASSWORD = 'Quiet-Harbour-Lantern-42';

async function openTestDatabase(pgliteWorker: boolean): Promise<{ db: Db; drop: () => Promise<void> }> {
  const template = inject('pgTemplate');
  const url = process.env.DATABASE_URL;
  if (template && url) {
    const name = `pts_t_${randomBytes(5).toString('hex')}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    // CREATE DATABASE ... TEMPLATE needs the template to have no other sessions: retry briefly.
    for (let i = 0; ; i++) {
      try {
        await admin.query(`create database ${name} template ${template}`);
        break;
      } catch (err: any) {
        if (i > 50 || err.code !== '55006') throw err;
        await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
      }
    }
    const u = new URL(url);
    u.pathname = `/${name}`;
    const db = await openPostgres(u.toString());
    return {
      db,
      drop: async () => {
        await admin.query(`drop database if exists ${name} with (force)`).catch(() => undefined);
        await admin.end();
      },
    };
  }
  const file = inject('pgliteTemplate');
  const db = await openPglite({ loadDataDir: new Blob([readFileSync(file)]), worker: pgliteWorker });
  return { db, drop: async () => undefined };
}

export interface TestContext {
  app: App;
  deps: Deps;
  /** The test's database; raw rows are loosely typed here (tests read columns they just wrote). */
  db: TestDb;
  config: Config;
  mails: OutgoingMail[];
  /** Runs the mail dispatcher until the outbox is empty. */
  flushMail(): Promise<void>;
  close(): Promise<void>;
}

/** Raw SQL in tests: rows default to loosely typed records (the service's own code uses typed repositories). */
export type TestRow = Record<string, any>;
export type TestDb = Omit<Db, 'query'> & { query<T = TestRow>(sql: string, params?: unknown[]): Promise<T[]> };

/** A fresh app on a fresh copy of the migrated database. Call close() in afterAll. */
/**
 * TEST_ERROR_LOG=<file> appends the server's error lines (level >= 50: the 500s a test saw) to a file,
 * so a failure that shows only `server_error` and an error_id can be traced to its stack.
 */
function errorLogOrSilent(): { logger: false } | { logStream: { write(line: string): void } } {
  const file = process.env.TEST_ERROR_LOG;
  if (!file) return { logger: false };
  return {
    logStream: {
      write(line: string) {
        const level = (JSON.parse(line) as { level?: number }).level ?? 0;
        if (level >= 50) appendFileSync(file, line);
      },
    },
  };
}

export async function createTestContext(
  env: Record<string, string> = {},
  options: { transport?: MailTransport; logStream?: { write(line: string): void }; wrapDb?: (db: Db) => Db; pgliteWorker?: boolean } = {},
): Promise<TestContext> {
  // The embedded database runs in-process here unless asked (PGLITE_WORKER=1 runs any HTTP test
  // file on the worker driver the server uses by default; test/pglite-worker.test.ts always does).
  const opened = await openTestDatabase(options.pgliteWorker ?? process.env.PGLITE_WORKER === '1');
  const { drop } = opened;
  const db = options.wrapDb ? options.wrapDb(opened.db) : opened.db;
  const config = loadConfig({
    DATA_DIR: mkdtempSync(join(tmpdir(), 'pts-test-')),
    BRAND_SLUG: TEST_BRAND,
    PUBLIC_BASE_URL: TEST_BASE_URL,
    LOG_LEVEL: process.env.TEST_ERROR_LOG ? 'error' : 'silent',
    GOOGLE_CLIENT_IDS: 'test-client.apps.googleusercontent.com',
    ...env,
  });
  const memory = memoryTransport();
  const transport = options.transport ?? memory;
  const runtime = await createRuntime(config, { db, transport, migrate: false });
  const app = await buildApp(runtime.deps, options.logStream ? { logStream: options.logStream } : errorLogOrSilent());
  await app.ready();
  return {
    app,
    deps: runtime.deps,
    db,
    config,
    mails: memory.sent,
    async flushMail() {
      while ((await runtime.deps.mail.runOnce()) > 0) {
        /* drain */
      }
    },
    async close() {
      await app.close();
      await runtime.close();
      await drop();
    },
  };
}

/** The SQL texts the app sends its database (deps.db, which is also deps.reader here) while fn runs. */
export async function statementsDuring(ctx: { deps: Deps }, fn: () => Promise<unknown>): Promise<string[]> {
  const db = ctx.deps.db as Queryable;
  const original = db.query.bind(db);
  const seen: string[] = [];
  db.query = (async (sql: string, params?: unknown[]) => {
    seen.push(sql);
    return original(sql, params);
  }) as Queryable['query'];
  try {
    await fn();
  } finally {
    db.query = original;
  }
  return seen;
}

/** The first row of a result, or a failed test when there is none. */
export function firstRow<T>(rows: readonly T[], what = 'row'): T {
  const row = rows[0];
  if (row === undefined) throw new Error(`expected a ${what}, got none`);
  return row;
}

export interface Res<T = any> {
  status: number;
  body: T;
  text: string;
  headers: Record<string, string | string[] | undefined>;
}

export interface CallOptions {
  token?: string;
  brand?: boolean | string;
  json?: unknown;
  headers?: Record<string, string>;
  payload?: string | Buffer;
  ip?: string;
}

/** One HTTP request through fastify.inject. */
export async function call<T = any>(ctx: { app: App }, method: string, url: string, opts: CallOptions = {}): Promise<Res<T>> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.brand) headers['x-brand-slug'] = opts.brand === true ? TEST_BRAND : opts.brand;
  let payload: string | Buffer | undefined = opts.payload;
  if (opts.json !== undefined) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(opts.json);
  }
  const res = await ctx.app.inject({ method: method as any, url, headers, payload, remoteAddress: opts.ip ?? '127.0.0.1' });
  let body: any;
  try {
    body = res.body ? JSON.parse(res.body) : undefined;
  } catch {
    body = undefined;
  }
  return { status: res.statusCode, body, text: res.body, headers: res.headers as any };
}

export const uniqueEmail = (tag = 'p') => `${tag}-${randomUUID().slice(0, 12)}@example.org`.replace(/\d/g, (d) => 'ghijklmnop'.charAt(Number(d)));

/** The 6-digit code of the newest mail to `to` (flushes the outbox first). */
export async function latestCode(ctx: TestContext, to: string): Promise<string> {
  await ctx.flushMail();
  const mail = [...ctx.mails].reverse().find((m) => m.to === to && /\b\d{6}\b/.test(m.text));
  if (!mail) throw new Error(`no code mailed to ${to}`);
  return /\b(\d{6})\b/.exec(mail.text)![1]!;
}

export interface Patient {
  id: string;
  email: string;
  access: string;
  refresh: string;
}

/** Registers, verifies and signs in a patient. */
export async function newPatient(ctx: TestContext, tag = 'p', extra: Record<string, unknown> = {}): Promise<Patient> {
  const email = uniqueEmail(tag);
  const reg = await call(ctx, 'POST', '/v1/users/register/', { brand: true, json: { email, password: PASSWORD, first_name: 'Ada', last_name: 'Lovelace', ...extra } });
  if (reg.status !== 200) throw new Error(`register: ${reg.status} ${reg.text}`);
  const otp = await latestCode(ctx, email);
  const ver = await call(ctx, 'POST', '/v1/users/verify-email/', { brand: true, json: { email, otp } });
  if (ver.status !== 200) throw new Error(`verify: ${ver.status} ${ver.text}`);
  const tok = await call(ctx, 'POST', '/v1/users/token/', { brand: true, json: { email, password: PASSWORD } });
  if (tok.status !== 200) throw new Error(`token: ${tok.status} ${tok.text}`);
  const row = firstRow(await ctx.db.query<{ id: string }>('select id from users where lower(email) = lower($1)', [email]));
  return { id: row.id, email, access: tok.body.access, refresh: tok.body.refresh };
}

/** Fills the profile fields that submission and checkout require. */
export async function completeProfile(ctx: TestContext, p: Patient, extra: Record<string, unknown> = {}) {
  const res = await call(ctx, 'PATCH', '/v1/users/profile/me/', {
    token: p.access,
    json: { date_of_birth: '1985-04-12', country_of_residence: 'DEU', gender: '0', ...extra },
  });
  if (res.status !== 200) throw new Error(`profile PATCH: ${res.status} ${res.text}`);
  return res.body;
}

/** Creates a staff account directly (what `npm run cli -- create-staff` does) and signs it in. */
export async function newStaff(ctx: TestContext, role: 'doctor' | 'backoffice_admin' | 'marketer' | 'pharmacist'): Promise<Patient> {
  const { createStaff } = await import('../../src/modules/accounts/service.ts');
  const email = uniqueEmail(role.replace('_', ''));
  await createStaff(ctx.deps, { email, password: PASSWORD, role, firstName: 'Staff', lastName: role, licenseNumber: role === 'doctor' ? 'LANR-123456789' : undefined });
  const tok = await call(ctx, 'POST', '/v1/users/token/', { brand: true, json: { email, password: PASSWORD } });
  if (tok.status !== 200) throw new Error(`staff token: ${tok.status} ${tok.text}`);
  const row = firstRow(await ctx.db.query<{ id: string }>('select id from users where lower(email) = lower($1)', [email]));
  return { id: row.id, email, access: tok.body.access, refresh: tok.body.refresh };
}

/**
 * Inserts a verified, active patient straight into the database and signs it in, without the
 * register/verify flow (for tests of other modules). Profile columns may be set through `columns`.
 */
export async function seedPatient(ctx: TestContext, columns: Record<string, unknown> = {}): Promise<Patient> {
  const { issueTokenPair } = await import('../../src/modules/accounts/tokens.ts');
  const email = uniqueEmail('seed');
  const cols = { email, first_name: 'Ada', last_name: 'Lovelace', email_verified_at: new Date(), referral_code: randomBytes(5).toString('hex').toUpperCase(), ...columns };
  const keys = Object.keys(cols);
  const row = firstRow(await ctx.db.query<{ id: string }>(
    `insert into users (${keys.join(', ')}) values (${keys.map((_, i) => `$${i + 1}`).join(', ')}) returning id`,
    Object.values(cols).map((v) => (v !== null && typeof v === 'object' && !(v instanceof Date) ? JSON.stringify(v) : v)),
  ));
  const pair = await issueTokenPair(ctx.deps, ctx.db, row.id);
  return { id: row.id, email, ...pair };
}

/** The own doctor test patients name (example.org: never a real address). */
export const TEST_GP = { name: 'Dr. Greta Hausarzt', practice: 'Praxis am Markt', address: 'Marktplatz 1\n10115 Berlin', email: 'praxis@gp.example.org' };

/**
 * The patient names their own doctor and consents to sharing with them (`gp_sharing`), as the
 * profile and consent routes store it: what a weight-loss approval needs (docs/interoperability.md).
 */
export async function grantGpSharing(ctx: TestContext, userId: string, gp: Record<string, string> = TEST_GP): Promise<void> {
  await ctx.db.query('update users set gp = $2::jsonb where id = $1', [userId, JSON.stringify(gp)]);
  await ctx.db.query("insert into consents (user_id, kind, version, granted) values ($1, 'gp_sharing', 'test', true)", [userId]);
}

export interface Instance {
  app: App;
  deps: Deps;
  config: Config;
  close(): Promise<void>;
}

/**
 * Another process of the service on the test's database: its own app, configuration and DATA_DIR
 * (nothing shared but the database, as behind a load balancer). Closing it leaves the database open.
 */
export async function anotherInstance(ctx: TestContext, env: Record<string, string> = {}): Promise<Instance> {
  const config = loadConfig({
    DATA_DIR: mkdtempSync(join(tmpdir(), 'pts-test-')),
    BRAND_SLUG: TEST_BRAND,
    PUBLIC_BASE_URL: TEST_BASE_URL,
    LOG_LEVEL: 'silent',
    GOOGLE_CLIENT_IDS: 'test-client.apps.googleusercontent.com',
    ...env,
  });
  const shared: Db = { ...ctx.db, close: async () => undefined } as Db;
  const runtime = await createRuntime(config, { db: shared, transport: memoryTransport(), migrate: false });
  const app = await buildApp(runtime.deps, { logger: false });
  await app.ready();
  return {
    app,
    deps: runtime.deps,
    config,
    async close() {
      await app.close();
      await runtime.close();
    },
  };
}
