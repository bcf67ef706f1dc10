// A real 1:1 video call in the browser (docs/appointments.md): a doctor page and a patient page in two
// headless Chromium contexts with a fake camera and microphone (--use-fake-device-for-media-stream,
// --use-fake-ui-for-media-stream). Both sign in as the app does (the refresh token in its HttpOnly
// cookie, no token in localStorage), join, receive the other's signals over the server-sent event
// stream (GET /v1/calls/signal/stream/), reach `connected` and decode video frames (WebRTC stats);
// then the patient mutes, turns the camera off and hangs up, and the doctor's page says the other side left.
//
// The service runs in this process (as web/scripts/gen-openapi.ts builds it, on a throw-away embedded
// database) so the test can seed the doctor, the patient and the consultation, and move the service's
// clock to the call's window. It serves the built app (web/dist: `npm run build:web` first).
//
//   node --import tsx web/e2e/call.ts                      one call, direct (host candidates on loopback)
//   E2E_TURN_URLS=turn:127.0.0.1:3478?transport=udp E2E_TURN_SECRET=... node --import tsx web/e2e/call.ts
//                                                          the direct call, then a second call whose pages
//                                                          force iceTransportPolicy: relay through that
//                                                          coturn (scripts/call-e2e.sh starts one; CI)
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { openPglite } from '../../src/db/index.ts';
import { memoryTransport } from '../../src/mail/transports.ts';
import { createRuntime } from '../../src/runtime.ts';
import { createStaff } from '../../src/modules/accounts/service.ts';
import { issueTokenPair } from '../../src/modules/accounts/tokens.ts';
import { fail, freePort } from './support';

const WEB = fileURLToPath(new URL('..', import.meta.url));
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const TURN_URLS = process.env.E2E_TURN_URLS;
const TURN_SECRET = process.env.E2E_TURN_SECRET ?? 'e2e-turn-secret-0123456789';
const RELAY = Boolean(TURN_URLS);
const started = Date.now();
process.stdout.write(`${Math.round(performance.now())} ms to load the service's code\n`);
const log = (s: string) => process.stdout.write(`[${((Date.now() - started) / 1000).toFixed(1)}s] ${s}\n`);

async function waitFor<T>(what: string, fn: () => Promise<T | undefined | false>, ms = 30_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > until) fail(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Video frames decoded from the other side, and the type of the local candidate in use. */
async function callStats(page: Page) {
  return page.evaluate(async () => {
    const call = (window as unknown as { __call?: { pc: RTCPeerConnection } }).__call;
    if (!call) return { frames: 0, local: '' };
    const stats = await call.pc.getStats();
    let frames = 0;
    let pairLocal = '';
    const byId = new Map<string, Record<string, unknown>>();
    stats.forEach((s: Record<string, unknown>) => byId.set(String(s.id), s));
    stats.forEach((s: Record<string, unknown>) => {
      if (s.type === 'inbound-rtp' && s.kind === 'video') frames += Number(s.framesDecoded ?? 0);
      if (s.type === 'candidate-pair' && s.state === 'succeeded' && s.nominated) pairLocal = String(byId.get(String(s.localCandidateId))?.candidateType ?? '');
    });
    return { frames, local: pairLocal };
  });
}

async function main() {
  if (!existsSync(join(WEB, 'dist', 'index.html'))) fail('web/dist is missing: run `npm run build:web` first');
  log('starting the service');
  const dataDir = mkdtempSync(join(tmpdir(), 'pts-call-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    PUBLIC_BASE_URL: base,
    BRAND_SLUG: 'northwind-clinic',
    ...(TURN_URLS ? { TURN_URLS, TURN_SECRET } : {}),
  });
  const runtime = await createRuntime(config, { db: await openPglite(), transport: memoryTransport() });
  const app = await buildApp(runtime.deps, { logger: false });
  await app.listen({ port, host: '127.0.0.1' });
  const { deps } = runtime;
  const db = deps.db;
  log('service up');
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream', '--disable-background-networking', '--no-first-run'],
  });
  try {
    // ---- seed: a doctor with all-day hours
    await createStaff(deps, { email: 'call.doctor@example.org', password: 'Ward-Lantern-Harbour-2026', role: 'doctor', firstName: 'Grace', lastName: 'Hopper', licenseNumber: 'LANR-123456789' });
    const [doctorRow] = await db.query<{ id: string }>(`select id from users where email = 'call.doctor@example.org'`);
    const tokens = async (id: string) => issueTokenPair(deps, db, id);
    const apiCall = async (token: string, method: string, path: string, body?: unknown) => {
      const r = await fetch(`${base}${path}`, { method, headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
      const json = (await r.json()) as Record<string, unknown>;
      if (!r.ok) fail(`${method} ${path}: ${r.status} ${JSON.stringify(json)}`);
      return json;
    };
    await apiCall((await tokens(doctorRow!.id)).access, 'PUT', '/v1/clinician/availability/', { timezone: 'Europe/Berlin', weekly: [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday, start: '00:00', end: '24:00' })), exceptions: [] });

    // One service and one browser for both calls (starting the service is most of the time): the
    // direct call, then, with E2E_TURN_URLS, a second call forced through the TURN relay.
    const modes: ('direct' | 'relay')[] = RELAY ? ['direct', 'relay'] : ['direct'];
    for (const [n, mode] of modes.entries()) {
      log(`---- call ${n + 1}: ${mode}`);
      // A patient whose consultation waits for a call, and a booking of the doctor's next free slot.
      const [patientRow] = await db.query<{ id: string }>(
        `insert into users (email, first_name, last_name, email_verified_at, referral_code, timezone, locale) values ($1, 'Ada', 'Lovelace', now(), $2, 'Europe/Berlin', 'en') returning id`,
        [`call.patient.${n}@example.org`, randomBytes(5).toString('hex').toUpperCase()],
      );
      const [consultation] = await db.query<{ id: string }>(`insert into consultations (user_id, category, status, plan) values ($1, 'weight_loss', 'pending_review', 'one_off') returning id`, [patientRow!.id]);
      await apiCall((await tokens(doctorRow!.id)).access, 'POST', `/v1/clinician/consultations/${consultation!.id}/request-call/`, { reason: 'Please show the scales on camera.' });
      const asPatient = (await tokens(patientRow!.id)).access;
      const slots = (await apiCall(asPatient, 'GET', `/v1/users/appointments/slots/?consultation_id=${consultation!.id}`)) as { slots: { starts_at: string }[] };
      const booked = (await apiCall(asPatient, 'POST', '/v1/users/appointments/', { consultation_id: consultation!.id, starts_at: slots.slots[0]!.starts_at })) as { id: string; starts_at: string };
      log(`booked ${booked.id} at ${booked.starts_at}`);
      // The service's clock to 5 minutes before the call (the window opens 10 minutes before).
      await deps.clock.advance(new Date(booked.starts_at).getTime() - 5 * 60_000 - deps.clock.now().getTime());
      await oneCall(browser, base, mode, booked.id, await tokens(doctorRow!.id), await tokens(patientRow!.id));
    }
    log('call: OK');
  } finally {
    await browser.close();
    await app.close();
    await runtime.close();
    rmSync(dataDir, { recursive: true, force: true });
    log('closed');
  }
}

/** A doctor page and a patient page join the booked call, connect, exchange video, mute, and hang up. */
async function oneCall(browser: Browser, base: string, mode: 'direct' | 'relay', appointmentId: string, doctor: { refresh: string }, patient: { refresh: string }) {
  const relay = mode === 'relay';
  const contexts: BrowserContext[] = [];
  // Signed in as the app signs in (docs/web.md, "Session storage"): the refresh token only in the
  // HttpOnly cookie the service sets for its refresh path (what a sign-in with X-Session-Cookie: 1
  // leaves in the browser), the role flags in localStorage, no token readable by the page. The app's
  // first request answers 401 and the client takes a fresh access token from the cookie.
  const open = async (tokens: { refresh: string }, flags: { is_doctor: boolean }, path: string) => {
    const ctx = await browser.newContext({ baseURL: base, locale: 'en-GB', viewport: { width: 1000, height: 800 } });
    contexts.push(ctx);
    await ctx.addCookies([{ name: 'pts_refresh', value: tokens.refresh, url: `${base}/v1/users/token/refresh/`, httpOnly: true, secure: true, sameSite: 'Strict' }]);
    await ctx.addInitScript(
      (s) => {
        if (!localStorage.getItem('pts.session')) localStorage.setItem('pts.session', s);
      },
      JSON.stringify({ key: `call-${flags.is_doctor ? 'doctor' : 'patient'}`, is_doctor: flags.is_doctor, is_backoffice_admin: false, is_marketer: false, is_pharmacist: false }),
    );
    const page = await ctx.newPage();
    page.on('pageerror', (e) => log(`  page error: ${e.message}`));
    await page.goto(`${path}${relay ? '?relay=1' : ''}`);
    const stored = await page.evaluate(() => localStorage.getItem('pts.session') ?? '');
    if (/access|refresh/.test(stored)) fail(`a token in localStorage: ${stored}`);
    return page;
  };
  try {
    // The signalling goes over the event stream (not the poll).
    const streams: string[] = [];
    const patientPage = await open(patient, { is_doctor: false }, `/appointments/${appointmentId}`);
    patientPage.on('request', (r) => {
      if (r.url().includes('/v1/calls/signal/')) streams.push(`${r.method()} ${new URL(r.url()).pathname}`);
    });
    await patientPage.getByTestId('join').click();
    await patientPage.getByText('Waiting for the other side to join…').waitFor();
    log('patient: in the call, waiting for the doctor');

    const doctorPage = await open(doctor, { is_doctor: true }, `/desk/calls/${appointmentId}`);
    await doctorPage.getByTestId('join').click();
    for (const [who, page] of [['patient', patientPage], ['doctor', doctorPage]] as const) {
      await page.locator('[data-testid="call"][data-state="connected"]').waitFor({ timeout: 30_000 });
      log(`${who}: connected`);
    }
    for (const [who, page] of [['patient', patientPage], ['doctor', doctorPage]] as const) {
      const stats = await waitFor(`${who} receives video frames`, async () => {
        const s = await callStats(page);
        return s.frames > 5 ? s : undefined;
      });
      log(`${who}: ${stats.frames} video frames decoded, local candidate ${stats.local || '?'}`);
      if (relay && stats.local !== 'relay') fail(`${who}: the call did not go through the TURN relay (${stats.local})`);
    }

    // Mute and camera off change the local tracks; hang up tells the other side.
    await patientPage.getByRole('button', { name: 'Mute' }).click();
    await patientPage.getByRole('button', { name: 'Camera off' }).click();
    const enabled = await patientPage.evaluate(() => {
      const call = (window as unknown as { __call?: { local: MediaStream } }).__call;
      return call?.local.getTracks().map((t) => t.enabled) ?? [];
    });
    if (enabled.some(Boolean)) fail('mute / camera off left a track enabled');
    if (!streams.includes('GET /v1/calls/signal/stream/') || streams.some((x) => x.startsWith('GET /v1/calls/signal/') && !x.endsWith('/stream/'))) fail(`the patient's page did not use the event stream: ${streams.join(', ')}`);
    await patientPage.getByTestId('hang-up').click();
    await doctorPage.locator('[data-testid="call"][data-peer="absent"]').waitFor({ timeout: 15_000 });
    log('patient hung up; the doctor’s page says the other side is not there');
  } finally {
    for (const c of contexts) await c.close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});

