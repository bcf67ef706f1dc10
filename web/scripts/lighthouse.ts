// Lighthouse (mobile preset: simulated slow 4G and a 4x slower CPU) on the landing page, the sign-in
// page and a signed-in patient's home page, in Debian's Chromium, against the built service (dist/
// and web/dist/) on a throw-away embedded database. Prints each page's scores and fails below the
// bars of issue 27: accessibility 100, best practices >= 95, performance >= 90.
// Usage (repository root): npm run build:web && npm run lighthouse
// Environment: CHROMIUM_PATH (default /usr/bin/chromium), LIGHTHOUSE_DIR (the HTML/JSON reports;
// default artifacts/lighthouse at the repository root).
import { spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import lighthouse from 'lighthouse';
import { chromium } from 'playwright-core';
import { fail, freePort, startService, waitForMail } from '../e2e/support';

const WEB = fileURLToPath(new URL('..', import.meta.url));
const ROOT = resolve(WEB, '..');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const OUT = resolve(process.env.LIGHTHOUSE_DIR ?? join(ROOT, 'artifacts', 'lighthouse'));
const BRAND = 'northwind-clinic';
const BARS = { accessibility: 100, 'best-practices': 95, performance: 90 } as const;
type Category = keyof typeof BARS;
type RunnerResult = NonNullable<Awaited<ReturnType<typeof lighthouse>>>;
const log = (s: string) => process.stdout.write(`${s}\n`);

/** The built service (node dist/main.js, rebuilt first when src/ changed) on a fresh data directory. */
async function startServer(dataDir: string, port: number): Promise<ChildProcess> {
  const built = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs'), '--if-stale'], { cwd: ROOT, stdio: 'inherit' });
  if (built.status !== 0) fail('building the service failed');
  const env = { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', PUBLIC_BASE_URL: `http://127.0.0.1:${port}`, PAYMENT_PROVIDER: 'sandbox', LOG_LEVEL: 'warn', BRAND_SLUG: BRAND };
  return startService([join(ROOT, 'dist', 'main.js')], { cwd: ROOT, env, port });
}

/** A patient account through the API (the sign-up code from the .eml outbox); returns the session the app stores. */
async function signUp(base: string, dataDir: string) {
  const headers = { 'content-type': 'application/json', 'x-brand-slug': BRAND };
  const email = `lighthouse.${Date.now()}@example.org`;
  const reg = await fetch(`${base}/v1/users/register/`, { method: 'POST', headers, body: JSON.stringify({ first_name: 'Ada', last_name: 'Lovelace', email, password: 'Quiet-Harbour-Lantern-42', locale: 'en' }) });
  if (!reg.ok) fail(`register: ${reg.status} ${await reg.text()}`);
  const otp = await waitForMail(dataDir, email, /\b(\d{6})\b/);
  const v = await fetch(`${base}/v1/users/verify-email/`, { method: 'POST', headers, body: JSON.stringify({ email, otp }) });
  if (!v.ok) fail(`verify-email: ${v.status} ${await v.text()}`);
  const s = (await v.json()) as { access: string; refresh: string; is_doctor?: boolean };
  const auth = { ...headers, authorization: `Bearer ${s.access}` };
  for (const kind of ['terms', 'privacy'])
    await fetch(`${base}/v1/users/me/consents/`, { method: 'POST', headers: auth, body: JSON.stringify({ kind, version: '2025-01', granted: true }) });
  void s.refresh;
  return { email, password: 'Quiet-Harbour-Lantern-42' };
}

async function main() {
  if (!existsSync(join(WEB, 'dist', 'index.html'))) fail('web/dist is missing: run `npm run build:web` first');
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  const dataDir = mkdtempSync(join(tmpdir(), 'pts-lighthouse-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = await startServer(dataDir, port);
  const debugPort = await freePort();
  const profile = mkdtempSync(join(tmpdir(), 'pts-lighthouse-chromium-'));
  // One browser profile: the signed-in page's session (localStorage) is there for Lighthouse's tab.
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [`--remote-debugging-port=${debugPort}`, '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
  });
  const rows: { page: string; scores: Record<Category, number> }[] = [];
  const below: string[] = [];
  try {
    const session = await signUp(base, dataDir);
    const pages: [string, string, boolean][] = [
      ['landing', '/', false],
      ['sign-in', '/sign-in', false],
      ['cancel', '/cancel', false],
      ['home (signed in)', '/home', true],
    ];
    for (const [name, path, signedIn] of pages) {
      const tab = browser.pages()[0] ?? (await browser.newPage());
      await tab.goto(`${base}/sign-in`);
      // Signed in as the app signs in: the refresh token in the HttpOnly cookie of this profile, the
      // role flags in localStorage (never a token); signed out: neither.
      await tab.evaluate(
        async ({ who, brand }) => {
          if (!who) {
            localStorage.removeItem('pts.session');
            await fetch('/v1/users/logout/', { method: 'POST', headers: { 'x-brand-slug': brand, 'x-session-cookie': '1' } }).catch(() => undefined);
            return;
          }
          const r = await fetch('/v1/users/token/', { method: 'POST', headers: { 'content-type': 'application/json', 'x-brand-slug': brand, 'x-session-cookie': '1' }, body: JSON.stringify(who) });
          if (!r.ok) throw new Error(`sign-in ${r.status}`);
          localStorage.setItem('pts.session', JSON.stringify({ key: 'lighthouse', is_doctor: false, is_backoffice_admin: false, is_marketer: false, is_pharmacist: false }));
        },
        { who: signedIn ? session : null, brand: BRAND },
      );
      await tab.goto('about:blank');
      // Performance varies from run to run on a shared machine: a page below the performance bar is
      // measured twice more and the median of the three counts (Lighthouse's own advice on variance).
      const runs: RunnerResult[] = [];
      for (let i = 0; i < 3; i++) {
        const r = await lighthouse(`${base}${path}`, { port: debugPort, output: ['html', 'json'], logLevel: 'error', onlyCategories: Object.keys(BARS), disableStorageReset: true }, undefined);
        if (!r) fail(`${name}: Lighthouse gave no result`);
        if (r.lhr.runtimeError) fail(`${name}: ${r.lhr.runtimeError.code} ${r.lhr.runtimeError.message}`);
        runs.push(r);
        if (i === 0 && (r.lhr.categories.performance?.score ?? 0) * 100 >= BARS.performance) break;
      }
      const perf = (r: RunnerResult) => r.lhr.categories.performance?.score ?? 0;
      if (runs.length > 1) log(`${name}: performance over ${runs.length} runs ${runs.map((r) => Math.round(perf(r) * 100)).join(', ')} (the median counts)`);
      const result = [...runs].sort((x, y) => perf(x) - perf(y))[Math.floor(runs.length / 2)]!;
      const lhr = result.lhr;
      if (signedIn && !lhr.finalDisplayedUrl.endsWith('/home')) fail(`${name}: ended on ${lhr.finalDisplayedUrl}, not the signed-in home page`);
      const file = name.replace(/\W+/g, '-').replace(/-+$/, '');
      const [html, json] = Array.isArray(result.report) ? result.report : [result.report, ''];
      writeFileSync(join(OUT, `${file}.html`), html ?? '');
      writeFileSync(join(OUT, `${file}.json`), json ?? '');
      const scores = Object.fromEntries((Object.keys(BARS) as Category[]).map((c) => [c, Math.round((lhr.categories[c]?.score ?? 0) * 100)])) as Record<Category, number>;
      rows.push({ page: name, scores });
      log(`${name.padEnd(18)} performance ${scores.performance}  accessibility ${scores.accessibility}  best practices ${scores['best-practices']}  (${path})`);
      for (const c of Object.keys(BARS) as Category[]) {
        if (scores[c] >= BARS[c]) continue;
        const audits = Object.values(lhr.audits)
          .filter((a) => a.score !== null && a.score < 1 && (lhr.categories[c]?.auditRefs ?? []).some((r) => r.id === a.id && r.weight > 0))
          .map((a) => `${a.id} (${a.displayValue ?? a.score})`);
        below.push(`${name}: ${c} ${scores[c]} < ${BARS[c]}; failing audits: ${audits.join(', ')}`);
      }
    }
  } finally {
    await browser.close();
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(profile, { recursive: true, force: true });
  }
  log(`reports in ${OUT}`);
  if (below.length) fail(`Lighthouse below the bars (accessibility ${BARS.accessibility}, best practices >= ${BARS['best-practices']}, performance >= ${BARS.performance}):\n  ${below.join('\n  ')}`);
  log(`lighthouse: ${rows.length} pages at or above the bars`);
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
