// The run model, through real processes: `npm start` runs node on the built dist/ as npm's direct
// child, SIGTERM/SIGINT to npm stop it gracefully (/readyz 503 during the drain, the DATA_DIR lock
// released), and each bad setting refuses to start with one line naming the variable.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const children: ChildProcess[] = [];
// One embedded database for every started server here: a fresh one costs seconds of initdb, reopening
// an existing one a fraction of a second.
const dataDir = mkdtempSync(join(tmpdir(), 'pts-run-'));

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

/** The environment of a started process: none of the developer's or CI's service settings. */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const k of ['DATABASE_URL', 'REDIS_URL', 'SMTP_URL', 'PAYMENT_PROVIDER', 'STRIPE_SECRET_KEY', 'STRIPE_WEBHOOK_SECRET', 'PORT', 'HOST', 'METRICS_TOKEN']) delete env[k];
  return { ...env, LOG_LEVEL: 'info', ...extra };
}

function exited(child: ChildProcess): Promise<{ code: number | null; signal: string | null }> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

async function get(url: string): Promise<{ status: number; body: any } | undefined> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
    return { status: res.status, body: await res.json().catch(() => undefined) };
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err: any) {
    return err.code === 'EPERM';
  }
}

/** Starts `npm start` in its own process group; resolves once /readyz answers 200. */
async function npmStart(env: Record<string, string>, port: number) {
  const child = spawn('npm', ['start'], { cwd: root, env: cleanEnv({ ...env, PORT: String(port), HOST: '127.0.0.1', PTS_SKIP_WEB_BUILD: '1' }), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const deadline = Date.now() + 150_000;
  for (;;) {
    const res = await get(`http://127.0.0.1:${port}/readyz`);
    if (res?.status === 200) break;
    if (child.exitCode !== null) throw new Error(`npm start exited early:\n${output}`);
    if (Date.now() > deadline) throw new Error(`not ready:\n${output}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  return { child, output: () => output };
}

beforeAll(() => {
  // `npm start` builds too; building once here keeps the refusals below from racing it.
  const build = spawnSync(process.execPath, [join(root, 'scripts/build.mjs'), '--if-stale'], { cwd: root, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(build.stderr);
}, 120_000);

afterAll(() => {
  for (const c of children) {
    if (c.exitCode === null && c.pid) {
      try {
        process.kill(-c.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
  }
});

describe('npm start', () => {
  it('runs node on dist/ as npm’s direct child; SIGTERM answers /readyz 503 at once, then stops and releases the DATA_DIR lock', async () => {
    const port = await freePort();
    const { child, output } = await npmStart({ DATA_DIR: dataDir, SHUTDOWN_DRAIN_SECONDS: '3' }, port);
    const serverPid = Number(readFileSync(join(dataDir, 'pglite.lock'), 'utf8'));
    // npm -> node, no shell and no tsx in between: the server's parent is npm itself.
    const stat = readFileSync(`/proc/${serverPid}/stat`, 'utf8');
    expect(Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])).toBe(child.pid);
    expect(readFileSync(`/proc/${serverPid}/cmdline`, 'utf8').split('\0')).toEqual([expect.stringMatching(/node$/), 'dist/main.js', '']);

    process.kill(child.pid!, 'SIGTERM');
    let readyz: { status: number; body: any } | undefined;
    for (let i = 0; i < 20; i++) {
      readyz = await get(`http://127.0.0.1:${port}/readyz`);
      if (readyz?.status === 503) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(readyz).toEqual({ status: 503, body: { status: 'unavailable', checks: expect.objectContaining({ shutting_down: true }) } });
    // Within the drain, before the listener closes: counted in polls (at most 20), not measured on a wall clock.
    expect((await get(`http://127.0.0.1:${port}/healthz`))?.status).toBe(200); // still serving

    const result = await Promise.race([exited(child), new Promise((r) => setTimeout(() => r('timeout'), 15_000))]);
    expect(result).toEqual({ code: 0, signal: null }); // 'timeout' if it took more than 15 s
    expect(alive(serverPid)).toBe(false);
    expect(existsSync(join(dataDir, 'pglite.lock'))).toBe(false);
    expect(output()).toMatch(/shutting down/);
    expect(output()).toMatch(/"msg":"stopped"/);

    // The same DATA_DIR starts again at once (nothing holds it), and SIGINT (Ctrl-C) stops it too.
    const again = await npmStart({ DATA_DIR: dataDir }, port);
    const pid2 = Number(readFileSync(join(dataDir, 'pglite.lock'), 'utf8'));
    process.kill(again.child.pid!, 'SIGINT');
    const result2 = await Promise.race([exited(again.child), new Promise((r) => setTimeout(() => r('timeout'), 15_000))]);
    expect(result2).toEqual({ code: 0, signal: null });
    expect(alive(pid2)).toBe(false);
    expect(existsSync(join(dataDir, 'pglite.lock'))).toBe(false);
  }, 360_000);
});

describe('fail-fast configuration', () => {
  const start = (env: Record<string, string>) => {
    const res = spawnSync(process.execPath, ['dist/main.js'], {
      cwd: root,
      env: cleanEnv({ DATA_DIR: mkdtempSync(join(tmpdir(), 'pts-cfg-')), PORT: '0', ...env }),
      encoding: 'utf8',
      timeout: 120_000,
    });
    return { code: res.status, lines: res.stderr.trim().split('\n'), stdout: res.stdout };
  };

  it.each([
    [{ PAYMENT_PROVIDER: 'stripe' }, ['Invalid environment: STRIPE_SECRET_KEY: required when PAYMENT_PROVIDER=stripe', 'Invalid environment: STRIPE_WEBHOOK_SECRET: required when PAYMENT_PROVIDER=stripe']],
    [{ PAYMENT_PROVIDER: 'stripe', STRIPE_SECRET_KEY: 'sk_test_x' }, ['Invalid environment: STRIPE_WEBHOOK_SECRET: required when PAYMENT_PROVIDER=stripe']],
    [{ PAYMENT_PROVIDER: 'stripe', STRIPE_SECRET_KEY: 'pk_test_x', STRIPE_WEBHOOK_SECRET: 'whsec_x' }, ['Invalid environment: STRIPE_SECRET_KEY: must be a Stripe secret key (sk_... or rk_...)']],
    [{ PAYMENT_PROVIDER: 'paypal' }, [expect.stringMatching(/^Invalid environment: PAYMENT_PROVIDER: .*"sandbox"\|"stripe"/)]],
    [{ DATABASE_URL: 'garbage' }, ['Invalid environment: DATABASE_URL: must be a postgres:// or postgresql:// URL']],
    [{ SMTP_URL: 'garbage' }, ['Invalid environment: SMTP_URL: must be a smtp:// or smtps:// URL with a host']],
    [{ REDIS_URL: 'localhost:6379' }, ['Invalid environment: REDIS_URL: must be a redis:// or rediss:// URL with a host']],
    [{ PORT: 'eighty' }, ['Invalid environment: PORT: must be a port number (0-65535)']],
    [{ PORT: '70000' }, ['Invalid environment: PORT: must be a port number (0-65535)']],
    [{ PUBLIC_BASE_URL: 'example.org' }, ['Invalid environment: PUBLIC_BASE_URL: must be a https:// or http:// URL with a host']],
    [{ MAIL_FROM: 'nobody' }, ['Invalid environment: MAIL_FROM: must be an address, or "Name <address>"']],
    [{ LOG_LEVEL: 'loud' }, [expect.stringMatching(/^Invalid environment: LOG_LEVEL: /)]],
    [{ OTP_TTL_SECONDS: '-1' }, ['Invalid environment: OTP_TTL_SECONDS: must be positive']],
    [{ METRICS_TOKEN: 'short' }, ['Invalid environment: METRICS_TOKEN: must be at least 16 characters']],
    [{ SHUTDOWN_DRAIN_SECONDS: 'soon' }, ['Invalid environment: SHUTDOWN_DRAIN_SECONDS: must be a whole number of seconds (0-300)']],
  ])('refuses %j with one line per bad variable', (env, expected) => {
    const { code, lines } = start(env as Record<string, string>);
    expect(code).toBe(1);
    expect(lines).toEqual(expected);
  });

  it('names DATABASE_URL (without its password) when the database cannot be reached', async () => {
    const port = await freePort();
    const { code, lines } = start({ DATABASE_URL: `postgres://app:s3cret@127.0.0.1:${port}/pts` });
    expect(code).toBe(1);
    expect(lines).toEqual([expect.stringMatching(new RegExp(`^DATABASE_URL: cannot connect to 127\\.0\\.0\\.1:${port}/pts \\(.*ECONNREFUSED.*\\)$`))]);
    expect(lines.join()).not.toContain('s3cret');
  }, 60_000);

  it('names PORT when the port is taken', async () => {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as { port: number };
    try {
      const { code, lines } = start({ PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', DATA_DIR: dataDir });
      expect(code).toBe(1);
      expect(lines).toEqual([expect.stringMatching(/^PORT\/HOST: cannot listen \(EADDRINUSE\)/)]);
    } finally {
      server.close();
    }
  }, 150_000);
});
