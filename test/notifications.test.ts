// Notifications (docs/notifications.md): preferences, push subscriptions, the outbox and its
// dispatcher, a real push service on loopback that decrypts what it receives (RFC 8291), SMS to a
// verified phone, and the injection-day reminder across daylight-saving changes.
import { createDecipheriv, createECDH, hkdfSync, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENTS, EVENT_KINDS, PHONE_CODE_TEXT, TEXTS } from '../src/modules/notifications/events.ts';
import { endpointProblem, isPrivateAddress } from '../src/modules/notifications/push.ts';
import { dispatchDue, latestOccurrence, notify, pushPayloadOf, quietHoursEnd, raiseDueReminders, smsTextOf } from '../src/modules/notifications/service.ts';
import { LOCALES } from '../src/lib/locales.ts';
import { call, createTestContext, newPatient, PASSWORD, seedPatient, type Patient, type TestContext } from './support/harness.ts';
import { staff } from './billing-fixtures.ts';

// ---------------------------------------------------------------------------------------------
// A push service on loopback and a browser's subscription keys (RFC 8291 decryption by hand)

interface Received {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

class TestPushService {
  received: Received[] = [];
  /** Status per path prefix (default 201). */
  answers = new Map<string, number>();
  private server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      this.received.push({ path, headers: req.headers, body: Buffer.concat(chunks) });
      const status = [...this.answers.entries()].find(([prefix]) => path.startsWith(prefix))?.[1] ?? 201;
      res.writeHead(status).end();
    });
  });
  port = 0;
  async start() {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.port = (this.server.address() as AddressInfo).port;
  }
  stop = () => new Promise<void>((r) => this.server.close(() => r()));
  url = (path: string) => `http://127.0.0.1:${this.port}${path}`;
  to = (path: string) => this.received.filter((r) => r.path === path);
}

class Browser {
  ecdh = createECDH('prime256v1');
  auth = randomBytes(16);
  publicKey: Buffer;
  constructor(readonly endpoint: string) {
    this.publicKey = this.ecdh.generateKeys();
  }
  subscription() {
    return { endpoint: this.endpoint, expirationTime: null, keys: { p256dh: this.publicKey.toString('base64url'), auth: this.auth.toString('base64url') } };
  }
  /** RFC 8291 section 3.4 and RFC 8188: the aes128gcm record of one push message, decrypted. */
  decrypt(body: Buffer): string {
    const salt = body.subarray(0, 16);
    const idlen = body[20]!;
    const asPublic = body.subarray(21, 21 + idlen);
    const ciphertext = body.subarray(21 + idlen);
    const ecdhSecret = this.ecdh.computeSecret(asPublic);
    const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), this.publicKey, asPublic]);
    const ikm = Buffer.from(hkdfSync('sha256', ecdhSecret, this.auth, keyInfo, 32));
    const cek = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16));
    const nonce = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12));
    const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
    decipher.setAuthTag(ciphertext.subarray(ciphertext.length - 16));
    const padded = Buffer.concat([decipher.update(ciphertext.subarray(0, ciphertext.length - 16)), decipher.final()]);
    let end = padded.length - 1;
    while (end > 0 && padded[end] === 0) end--;
    expect(padded[end]).toBe(2); // the last record's delimiter
    return padded.subarray(0, end).toString('utf8');
  }
}

// Every catalogue medicine and category name, in every locale: no push or SMS may contain one.
const DOSAGE_FORMS = /^(tablets?|capsules?|solution|sachet|kapseln?|tabletten?|comprim[ée]s?|g[ée]lules?|c[áa]psulas?|capsule|compresse|comprimidos?|tabletas?|capsules|oplossing|soluci[óo]n|solu[çc][ãa]o|soluzione|bustina|sobre|saqueta|zakje|sachets?|L[öo]sung|Beutel|spray|durante|giorni|daarna|depois|luego)$/i;
function catalogueNames(): string[] {
  const root = join(import.meta.dirname, '..', 'catalogue');
  const names = new Set<string>();
  const add = (v: unknown) => {
    if (typeof v === 'string' && v.trim().length >= 3) names.add(v.trim().toLowerCase());
  };
  const treatmentNames = JSON.parse(readFileSync(join(root, 'treatment-names.json'), 'utf8')) as { names: Record<string, Record<string, string>> };
  for (const [id, byLocale] of Object.entries(treatmentNames.names)) {
    add(id.replace(/_/g, ' '));
    for (const name of Object.values(byLocale)) {
      add(name);
      // Each substance and brand alone ("Semaglutide", "Wegovy", "tenofovir"): the longer words of
      // the name, but the dosage forms.
      for (const word of name.split(/[\s()/,]+/)) if (word.length >= 6 && !DOSAGE_FORMS.test(word)) add(word);
    }
  }
  for (const slug of readdirSync(join(root, 'categories'))) {
    add(slug.replace(/_/g, ' '));
    for (const file of readdirSync(join(root, 'categories', slug)).filter((f) => f.endsWith('.json'))) {
      const doc = JSON.parse(readFileSync(join(root, 'categories', slug, file), 'utf8')) as { category: { title: Record<string, string>; treatments?: { name?: string; dosage_ladder?: string[] }[] } };
      for (const title of Object.values(doc.category.title)) add(title);
      for (const t of doc.category.treatments ?? []) {
        add(t.name);
        if (t.name) add(t.name.split(/[\s(]/)[0]);
        for (const dose of t.dosage_ladder ?? []) add(dose);
      }
    }
  }
  return [...names];
}
const NAMES = catalogueNames();
const healthTerms = (text: string) => NAMES.filter((n) => text.toLowerCase().includes(n));

// ---------------------------------------------------------------------------------------------

let ctx: TestContext;
const push = new TestPushService();
beforeAll(async () => {
  await push.start();
  ctx = await createTestContext({ PUSH_ENDPOINT_HOSTS: 'fcm.googleapis.com,127.0.0.1', PUSH_INSECURE_TEST_HOSTS: '127.0.0.1', PUSH_TIMEOUT_MS: '3000' });
});
afterAll(async () => {
  await ctx?.close();
  await push.stop();
});

const patient = (columns: Record<string, unknown> = {}) => seedPatient(ctx, { date_of_birth: '1985-04-12', country_of_residence: 'DEU', gender: '0', timezone: 'Europe/Berlin', ...columns });
const deliveries = (userId: string) => ctx.db.query('select kind, event_key, channel, status, reason, attempts from notification_deliveries where user_id = $1 order by created_at, channel', [userId]);
const smsFiles = () => {
  const dir = join(ctx.config.DATA_DIR, 'outbox');
  return existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.sms')).map((f) => readFileSync(join(dir, f), 'utf8')) : [];
};
async function subscribe(p: Patient, path: string) {
  const browser = new Browser(push.url(path));
  const res = await call(ctx, 'POST', '/v1/users/notifications/push-subscriptions/', { token: p.access, json: browser.subscription() });
  expect(res.status, res.text).toBe(201);
  return { browser, id: res.body.id as string };
}

describe('texts', () => {
  it('every event has a title and body in all 7 locales, and none names a medicine, category or dose', () => {
    expect(NAMES.length).toBeGreaterThan(30);
    expect(NAMES).toContain('weight loss');
    for (const locale of LOCALES) {
      for (const kind of EVENT_KINDS) {
        const t = TEXTS[locale][kind];
        expect(t.title.length).toBeGreaterThan(2);
        expect(t.body.length).toBeGreaterThan(10);
        expect(healthTerms(pushPayloadOf(kind, locale, EVENTS[kind].link, 'x')), `${locale} ${kind}`).toEqual([]);
        expect(healthTerms(smsTextOf(kind, locale, 'https://app.example.org')), `${locale} ${kind}`).toEqual([]);
      }
      expect(healthTerms(PHONE_CODE_TEXT[locale]('123456'))).toEqual([]);
    }
    // The check itself sees a name.
    expect(healthTerms('Your Wegovy dose is ready')).not.toEqual([]);
  });
});

describe('links', () => {
  it('every notification opens a page the web app routes (web/src/routes.json)', () => {
    const routes = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'web', 'src', 'routes.json'), 'utf8')) as { patient: string[] };
    const routed = (path: string) => routes.patient.some((pattern) => new RegExp(`^${pattern.replace(/:[a-z]+/g, '[^/]+')}$`).test(path));
    for (const kind of EVENT_KINDS) expect(routed(EVENTS[kind].link), kind).toBe(true);
    expect(routed('/consultations/6f1c2a6e-0b7d-4c1e-9a51-1d6f0b3e7a01')).toBe(true);
  });
});

describe('preferences', () => {
  it('answers defaults, merges a PATCH, refuses an unknown channel and equal quiet-hour bounds', async () => {
    const p = await patient();
    const got = await call(ctx, 'GET', '/v1/users/notifications/preferences/', { token: p.access });
    expect(got.status, got.text).toBe(200);
    expect(got.body.events.care_team_message).toEqual({ push: true, sms: false });
    expect(got.body.events.injection_day).toEqual({ push: false, sms: false, email: false });
    expect(got.body.quiet_hours).toBeNull();
    expect(got.body.time_zone).toBe('Europe/Berlin');

    const patched = await call(ctx, 'PATCH', '/v1/users/notifications/preferences/', { token: p.access, json: { events: { care_team_message: { sms: true } }, quiet_hours: { start: '22:00', end: '07:00' } } });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.events.care_team_message).toEqual({ push: true, sms: true });
    expect(patched.body.quiet_hours).toEqual({ start: '22:00', end: '07:00' });
    const again = await call(ctx, 'PATCH', '/v1/users/notifications/preferences/', { token: p.access, json: { events: { care_team_message: { push: false } } } });
    expect(again.body.events.care_team_message).toEqual({ push: false, sms: true });
    expect(again.body.quiet_hours).toEqual({ start: '22:00', end: '07:00' });

    const email = await call(ctx, 'PATCH', '/v1/users/notifications/preferences/', { token: p.access, json: { events: { care_team_message: { email: true } } } });
    expect(email.status).toBe(400);
    const equal = await call(ctx, 'PATCH', '/v1/users/notifications/preferences/', { token: p.access, json: { quiet_hours: { start: '07:00', end: '07:00' } } });
    expect(equal.status).toBe(400);
    expect(equal.body).toHaveProperty(['quiet_hours.end']);
    const badTime = await call(ctx, 'PATCH', '/v1/users/notifications/preferences/', { token: p.access, json: { quiet_hours: { start: '25:00', end: '07:00' } } });
    expect(badTime.status).toBe(400);
    expect((await call(ctx, 'GET', '/v1/users/notifications/preferences/')).status).toBe(401);
  });

  it('quiet hours are read in the patient’s time zone, across midnight', () => {
    const quiet = { start: '22:00', end: '07:00' };
    // 21:30 UTC in January is 22:30 in Berlin: quiet until 07:00 Berlin = 06:00 UTC.
    expect(quietHoursEnd(new Date('2027-01-10T21:30:00Z'), 'Europe/Berlin', quiet)?.toISOString()).toBe('2027-01-11T06:00:00.000Z');
    expect(quietHoursEnd(new Date('2027-01-10T20:30:00Z'), 'Europe/Berlin', quiet)).toBeNull();
    // In July (CEST) 07:00 Berlin is 05:00 UTC.
    expect(quietHoursEnd(new Date('2027-07-10T03:00:00Z'), 'Europe/Berlin', quiet)?.toISOString()).toBe('2027-07-10T05:00:00.000Z');
  });
});

describe('push subscriptions', () => {
  it('gives the VAPID key, accepts only push services, and deletes across accounts as 404', async () => {
    const p = await patient();
    const key = await call(ctx, 'GET', '/v1/users/notifications/vapid-key/', { token: p.access });
    expect(key.status).toBe(200);
    expect(Buffer.from(key.body.public_key, 'base64url')).toHaveLength(65);
    expect((await call(ctx, 'GET', '/v1/users/notifications/vapid-key/', { token: p.access })).body.public_key).toBe(key.body.public_key);

    const browser = new Browser('https://fcm.googleapis.com/fcm/send/abc123');
    for (const endpoint of ['http://fcm.googleapis.com/fcm/send/x', 'https://evil.example.org/push', 'https://10.0.0.1/push', 'https://user:pw@fcm.googleapis.com/x', 'not a url at all']) {
      const refused = await call(ctx, 'POST', '/v1/users/notifications/push-subscriptions/', { token: p.access, json: { ...browser.subscription(), endpoint } });
      expect(refused.status, endpoint).toBe(400);
      expect(refused.body).toHaveProperty('endpoint');
    }
    const badKey = await call(ctx, 'POST', '/v1/users/notifications/push-subscriptions/', { token: p.access, json: { ...browser.subscription(), keys: { p256dh: randomBytes(65).toString('base64url'), auth: randomBytes(16).toString('base64url') } } });
    expect(badKey.status).toBe(400);
    const created = await call(ctx, 'POST', '/v1/users/notifications/push-subscriptions/', { token: p.access, json: browser.subscription() });
    expect(created.status, created.text).toBe(201);
    const again = await call(ctx, 'POST', '/v1/users/notifications/push-subscriptions/', { token: p.access, json: browser.subscription() });
    expect(again.body.id).toBe(created.body.id);

    const other = await patient();
    expect((await call(ctx, 'DELETE', `/v1/users/notifications/push-subscriptions/${created.body.id}/`, { token: other.access })).status).toBe(404);
    expect((await call(ctx, 'DELETE', `/v1/users/notifications/push-subscriptions/${created.body.id}/`, { token: p.access })).status).toBe(204);
    expect((await call(ctx, 'DELETE', `/v1/users/notifications/push-subscriptions/${created.body.id}/`, { token: p.access })).status).toBe(404);
  });

  it('never reaches a private address outside the test hosts', () => {
    const config = { PUSH_ENDPOINT_HOSTS: ['fcm.googleapis.com', '*.notify.windows.com', '127.0.0.1'], PUSH_INSECURE_TEST_HOSTS: [] as string[], PUSH_TIMEOUT_MS: 1000 };
    expect(endpointProblem('https://127.0.0.1/x', config)).toMatch(/public/);
    expect(endpointProblem('http://127.0.0.1/x', config)).toMatch(/https/);
    expect(endpointProblem('https://db5p.notify.windows.com/w/?token=1', config)).toBeNull();
    expect(endpointProblem('https://notify.windows.com.evil.org/', config)).not.toBeNull();
    for (const a of ['10.1.2.3', '192.168.0.1', '172.16.5.5', '169.254.169.254', '::1', 'fd00::1', '::ffff:127.0.0.1', '100.64.0.1']) expect(isPrivateAddress(a), a).toBe(true);
    for (const a of ['142.250.185.10', '2a00:1450:4001:80b::200a']) expect(isPrivateAddress(a), a).toBe(false);
  });
});

describe('the outbox', () => {
  it('one doctor reply gives exactly one encrypted push, with no health details, in the patient’s language', async () => {
    const p = await patient({ locale: 'de' });
    const { browser } = await subscribe(p, '/reply-1');
    const conv = (await call(ctx, 'GET', '/v1/users/conversations/', { token: p.access })).body.results[0].id as string;
    expect((await call(ctx, 'POST', `/v1/users/conversations/${conv}/messages/`, { token: p.access, json: { content: 'A question for the team' } })).status).toBe(201);
    const doctor = await staff(ctx, 'doctor');
    const reply = await call(ctx, 'POST', `/v1/clinician/conversations/${conv}/messages/`, { token: doctor.access, json: { content: 'About your Wegovy 0.5 mg dose and weight loss' } });
    expect(reply.status, reply.text).toBeLessThan(300);
    await dispatchDue(ctx.deps);
    await dispatchDue(ctx.deps);
    await ctx.deps.scheduler.runDue();
    const got = push.to('/reply-1');
    expect(got).toHaveLength(1);
    expect(got[0]!.headers['content-encoding']).toBe('aes128gcm');
    expect(String(got[0]!.headers.authorization)).toMatch(/^vapid t=.+, k=.+/);
    const payload = JSON.parse(browser.decrypt(got[0]!.body)) as { title: string; body: string; url: string };
    expect(payload.body).toBe(TEXTS.de.care_team_message.body);
    expect(payload.url).toBe('/messages');
    expect(healthTerms(JSON.stringify(payload))).toEqual([]);
    expect(JSON.stringify(payload)).not.toMatch(/0\.5|mg|wegovy/i);
    const rows = await deliveries(p.id);
    expect(rows).toEqual([
      expect.objectContaining({ kind: 'care_team_message', channel: 'push', status: 'sent' }),
      expect.objectContaining({ kind: 'care_team_message', channel: 'sms', status: 'skipped', reason: 'preference_off' }),
    ]);
  });

  it('an event raised twice is sent once per channel; skipped channels say why', async () => {
    const p = await patient();
    await call(ctx, 'PATCH', '/v1/users/notifications/preferences/', { token: p.access, json: { events: { order_dispatched: { sms: true } } } });
    await ctx.db.tx(async (q) => {
      await notify(q, { kind: 'order_dispatched', userId: p.id, key: 'order-1:1' });
      await notify(q, { kind: 'order_dispatched', userId: p.id, key: 'order-1:1' });
    });
    await dispatchDue(ctx.deps);
    expect(await deliveries(p.id)).toEqual([
      expect.objectContaining({ channel: 'push', status: 'skipped', reason: 'no_subscription' }),
      expect.objectContaining({ channel: 'sms', status: 'skipped', reason: 'no_verified_phone' }),
    ]);
  });

  it('a 410 from the push service deletes the subscription; a 500 is retried with backoff', async () => {
    const p = await patient();
    push.answers.set('/gone', 410);
    push.answers.set('/flaky', 500);
    await subscribe(p, '/gone-1');
    await ctx.db.tx((q) => notify(q, { kind: 'order_dispatched', userId: p.id, key: 'o-gone' }));
    await dispatchDue(ctx.deps);
    expect(push.to('/gone-1')).toHaveLength(1);
    expect(await ctx.db.query('select id from push_subscriptions where user_id = $1', [p.id])).toEqual([]);
    expect((await deliveries(p.id)).find((r) => r.channel === 'push')).toMatchObject({ status: 'skipped', reason: 'no_subscription' });

    const q = await patient();
    await subscribe(q, '/flaky-1');
    await ctx.db.tx((t) => notify(t, { kind: 'order_dispatched', userId: q.id, key: 'o-flaky' }));
    await dispatchDue(ctx.deps);
    const [row] = await ctx.db.query("select status, attempts, last_error, next_attempt_at from notification_deliveries where user_id = $1 and channel = 'push'", [q.id]);
    expect(row).toMatchObject({ status: 'pending', attempts: 1 });
    expect(row!.last_error).toMatch(/500/);
    expect(new Date(row!.next_attempt_at).getTime()).toBeGreaterThan(ctx.deps.clock.now().getTime() + 20_000);
    push.answers.delete('/flaky');
    await ctx.db.query("update notification_deliveries set next_attempt_at = now() - interval '1 day' where user_id = $1", [q.id]);
    await dispatchDue(ctx.deps);
    expect(push.to('/flaky-1')).toHaveLength(2);
    expect((await deliveries(q.id)).find((r) => r.channel === 'push')).toMatchObject({ status: 'sent', attempts: 2 });
  });

  it('a non-urgent event waits for the end of the quiet hours; an urgent one does not', async () => {
    const p = await patient({ timezone: 'Pacific/Kiritimati' });
    await subscribe(p, '/quiet-1');
    // Quiet all day but the minute before now (local): whatever the clock says, now is quiet.
    const local = new Date(ctx.deps.clock.now().getTime() + 14 * 3600_000);
    const hhmm = (d: Date) => d.toISOString().slice(11, 16);
    const start = hhmm(new Date(local.getTime() - 60_000 * 60));
    const end = hhmm(new Date(local.getTime() + 60_000 * 60));
    await call(ctx, 'PATCH', '/v1/users/notifications/preferences/', { token: p.access, json: { quiet_hours: { start, end } } });
    await ctx.db.tx(async (q) => {
      await notify(q, { kind: 'order_dispatched', userId: p.id, key: 'quiet-o' });
      await notify(q, { kind: 'information_requested', userId: p.id, key: 'quiet-i' });
    });
    await dispatchDue(ctx.deps);
    expect(push.to('/quiet-1')).toHaveLength(1);
    const rows = await ctx.db.query("select kind, status, reason, attempts, next_attempt_at from notification_deliveries where user_id = $1 and channel = 'push' order by kind", [p.id]);
    expect(rows[0]).toMatchObject({ kind: 'information_requested', status: 'sent' });
    expect(rows[1]).toMatchObject({ kind: 'order_dispatched', status: 'pending', reason: 'quiet_hours', attempts: 0 });
    const waitMinutes = (new Date(rows[1]!.next_attempt_at).getTime() - ctx.deps.clock.now().getTime()) / 60_000;
    expect(waitMinutes).toBeGreaterThan(55);
    expect(waitMinutes).toBeLessThan(62);
  });
});

describe('SMS', () => {
  it('verifies the phone by a code, stores E.164, sends SMS without health details, and forgets it with the account', async () => {
    const p = await patient({ locale: 'fr' });
    const bad = await call(ctx, 'PUT', '/v1/users/notifications/phone/', { token: p.access, json: { phone: '12345' } });
    expect(bad.status).toBe(400);
    const before = smsFiles().length;
    const set = await call(ctx, 'PUT', '/v1/users/notifications/phone/', { token: p.access, json: { phone: '0151 2345 6789', country: 'DE' } });
    expect(set.status, set.text).toBe(202);
    expect(set.body).toEqual({ phone: '+4915123456789', verified: false });
    const sms = smsFiles().slice(before).find((s) => s.startsWith('To: +4915123456789'));
    const code = /\b(\d{6})\b/.exec(sms ?? '')![1]!;
    expect(sms).toContain('Votre code');
    expect((await call(ctx, 'PUT', '/v1/users/notifications/phone/', { token: p.access, json: { phone: '+4915123456789' } })).status).toBe(429);
    const wrong = await call(ctx, 'POST', '/v1/users/notifications/phone/verify/', { token: p.access, json: { code: code === '000000' ? '111111' : '000000' } });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toHaveProperty('code');
    const ok = await call(ctx, 'POST', '/v1/users/notifications/phone/verify/', { token: p.access, json: { code } });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body).toEqual({ phone: '+4915123456789', verified: true });

    await ctx.db.tx((q) => notify(q, { kind: 'information_requested', userId: p.id, key: 'sms-1' }));
    await dispatchDue(ctx.deps);
    const text = smsFiles().find((s) => s.startsWith('To: +4915123456789') && s.includes(TEXTS.fr.information_requested.body));
    expect(text).toBeDefined();
    expect(healthTerms(text!)).toEqual([]);
    expect((await call(ctx, 'GET', '/v1/users/notifications/phone/', { token: p.access })).body).toEqual({ phone: '+4915123456789', verified: true });
    const other = await patient();
    expect((await call(ctx, 'GET', '/v1/users/notifications/phone/', { token: other.access })).body).toEqual({ phone: null, verified: false });
  });
});

describe('reminders', () => {
  it('the injection-day reminder fires at the plan’s weekday and time in Europe/Berlin across the March and October changes', async () => {
    const p = await patient();
    // An approved supply that lasts past the test's dates.
    await ctx.db.query("insert into consultations (user_id, category, status, plan, supply_days, decided_at) values ($1, 'weight_loss', 'approved', 'one_off', 800, $2)", [p.id, ctx.deps.clock.now()]);
    const plan = await call(ctx, 'PATCH', '/v1/users/journal/injection-plan/', { token: p.access, json: { anchor_weekday: 0, preferred_time: '09:00' } });
    expect(plan.status, plan.text).toBe(200);
    await call(ctx, 'PATCH', '/v1/users/notifications/preferences/', { token: p.access, json: { events: { injection_day: { push: true } } } });
    const { browser } = await subscribe(p, '/injection-1');

    const at = async (iso: string) => {
      const target = new Date(iso).getTime();
      const now = ctx.deps.clock.now().getTime();
      expect(target).toBeGreaterThan(now);
      await ctx.deps.clock.advance(target - now);
      await raiseDueReminders(ctx.deps);
      await dispatchDue(ctx.deps);
      return (await ctx.db.query("select event_key from notification_deliveries where user_id = $1 and kind = 'injection_day' and channel = 'push' order by created_at", [p.id])).map((r) => String(r.event_key).slice(-10));
    };
    // Monday 22 March 2027, 09:00 CET = 08:00 UTC.
    expect(await at('2027-03-22T07:59:00Z')).toEqual([]);
    expect(await at('2027-03-22T08:00:30Z')).toEqual(['2027-03-22']);
    // Clocks go forward on 28 March: Monday 29 March, 09:00 CEST = 07:00 UTC.
    expect(await at('2027-03-29T06:59:00Z')).toEqual(['2027-03-22']);
    expect(await at('2027-03-29T07:00:30Z')).toEqual(['2027-03-22', '2027-03-29']);
    // Monday 25 October, 09:00 CEST = 07:00 UTC; clocks go back on 31 October: 1 November 09:00 CET = 08:00 UTC.
    expect(await at('2027-10-25T06:59:00Z')).toEqual(['2027-03-22', '2027-03-29']);
    expect(await at('2027-10-25T07:00:30Z')).toEqual(['2027-03-22', '2027-03-29', '2027-10-25']);
    expect(await at('2027-11-01T07:30:00Z')).toEqual(['2027-03-22', '2027-03-29', '2027-10-25']);
    expect(await at('2027-11-01T08:00:30Z')).toEqual(['2027-03-22', '2027-03-29', '2027-10-25', '2027-11-01']);
    // A second pass raises nothing new.
    await raiseDueReminders(ctx.deps);
    const received = push.to('/injection-1');
    expect(received).toHaveLength(4);
    for (const r of received) {
      const payload = JSON.parse(browser.decrypt(r.body)) as { body: string; url: string };
      expect(payload).toMatchObject({ body: TEXTS.en.injection_day.body, url: '/journal' });
      expect(healthTerms(JSON.stringify(payload))).toEqual([]);
    }
    // The same arithmetic, pure: 09:00 Berlin on the Monday after each change.
    expect(latestOccurrence(new Date('2027-03-29T07:00:00Z'), 'Europe/Berlin', 0, '09:00').at.toISOString()).toBe('2027-03-29T07:00:00.000Z');
    expect(latestOccurrence(new Date('2027-03-29T06:59:00Z'), 'Europe/Berlin', 0, '09:00').at.toISOString()).toBe('2027-03-22T08:00:00.000Z');
    expect(latestOccurrence(new Date('2027-11-01T08:00:00Z'), 'Europe/Berlin', 0, '09:00').at.toISOString()).toBe('2027-11-01T08:00:00.000Z');
    // On the change days themselves: 02:30 does not exist on 28 March (moved to 03:30 CEST = 01:30 UTC),
    // and exists twice on 31 October (the first, 02:30 CEST = 00:30 UTC).
    expect(latestOccurrence(new Date('2027-03-28T12:00:00Z'), 'Europe/Berlin', 6, '02:30').at.toISOString()).toBe('2027-03-28T01:30:00.000Z');
    expect(latestOccurrence(new Date('2027-10-31T12:00:00Z'), 'Europe/Berlin', 6, '02:30').at.toISOString()).toBe('2027-10-31T00:30:00.000Z');
  });

  it('stopping the plan, withdrawing consent or erasing the account stops pending reminders at once', async () => {
    const setUp = async (given?: Patient) => {
      const p = given ?? (await patient());
      await ctx.db.query("insert into consultations (user_id, category, status, plan, supply_days, decided_at) values ($1, 'weight_loss', 'approved', 'one_off', 800, $2)", [p.id, ctx.deps.clock.now()]);
      await call(ctx, 'PATCH', '/v1/users/journal/injection-plan/', { token: p.access, json: { anchor_weekday: 0, preferred_time: '09:00' } });
      await call(ctx, 'PATCH', '/v1/users/notifications/preferences/', { token: p.access, json: { events: { injection_day: { push: true } } } });
      await subscribe(p, `/stop-${p.id}`);
      await ctx.db.tx((q) => notify(q, { kind: 'injection_day', userId: p.id, key: `${p.id}:manual`, at: ctx.deps.clock.now() }));
      return p;
    };
    const stopped = await setUp();
    expect((await call(ctx, 'PATCH', '/v1/users/journal/injection-plan/', { token: stopped.access, json: { active: false } })).status).toBe(200);
    const withdrawn = await setUp();
    const consent = await call(ctx, 'POST', '/v1/users/me/consents/', { token: withdrawn.access, json: { kind: 'health_data_processing', version: '2026-01', granted: false } });
    expect(consent.status, consent.text).toBeLessThan(300);
    await dispatchDue(ctx.deps);
    expect(push.to(`/stop-${stopped.id}`)).toHaveLength(0);
    expect(push.to(`/stop-${withdrawn.id}`)).toHaveLength(0);
    expect((await deliveries(stopped.id))[0]).toMatchObject({ status: 'skipped', reason: 'plan_stopped' });
    expect((await deliveries(withdrawn.id))[0]).toMatchObject({ status: 'skipped', reason: 'consent_withdrawn' });

    // Erasure: the export showed the phone and subscriptions; afterwards nothing of them is left.
    // A password account: its erasure needs no recent sign-in (the test clock has moved on).
    const erased = await setUp(await newPatient(ctx, 'erased'));
    await ctx.db.query("insert into notification_phones (user_id, phone_e164, verified_at) values ($1, '+4915123456780', now())", [erased.id]);
    const exported = await call(ctx, 'GET', '/v1/users/me/export/', { token: erased.access });
    expect(exported.status, exported.text).toBe(200);
    expect(exported.body.notifications).toMatchObject({ push_subscriptions: 1, phone: { number: '+4915123456780', verified: true } });
    expect(exported.text).not.toContain(`/stop-${erased.id}`);
    const gone = await call(ctx, 'DELETE', '/v1/users/me/', { token: erased.access, json: { password: PASSWORD } });
    expect(gone.status, gone.text).toBe(204);
    await raiseDueReminders(ctx.deps);
    await dispatchDue(ctx.deps);
    expect(push.to(`/stop-${erased.id}`)).toHaveLength(0);
    for (const table of ['notification_deliveries', 'push_subscriptions', 'notification_phones', 'notification_preferences']) {
      expect(await ctx.db.query(`select 1 from ${table} where user_id = $1`, [erased.id]), table).toEqual([]);
    }
  });
});
