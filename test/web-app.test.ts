// The web app: every link in a mail opens a page the app routes (web/src/routes.json), under
// WEB_APP_URL; the service serves the built app at `/` with a fallback to index.html for the app's
// pages, and leaves the API and operational paths alone.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { installErrorHandling } from '../src/http/errors.ts';
import { appLinks } from '../src/mail/links.ts';
import { registerWebApp } from '../src/web.ts';
import { paySandbox, readyPatient, staff } from './billing-fixtures.ts';
import { call, createTestContext, type TestContext } from './support/harness.ts';

const routes = JSON.parse(readFileSync(new URL('../web/src/routes.json', import.meta.url), 'utf8')) as Record<string, string[] | string>;
const PATTERNS = Object.entries(routes)
  .filter(([k]) => k !== '//')
  .flatMap(([, v]) => v as string[]);

/** The app pattern a URL's path lands on (trailing slash ignored, as the app's router does). */
function routeOf(url: string): string | undefined {
  const path = new URL(url).pathname.replace(/\/+$/, '') || '/';
  return PATTERNS.find((p) => {
    const a = p.split('/');
    const b = path.split('/');
    return a.length === b.length && a.every((seg, i) => (seg.startsWith(':') ? (b[i] ?? '').length > 0 : seg === b[i]));
  });
}

const WEB = 'https://app.example.test';
let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext({ WEB_APP_URL: WEB });
});
afterAll(async () => {
  await ctx?.close();
});

describe('mail links', () => {
  it('WEB_APP_URL defaults to the service address (which serves the app)', () => {
    expect(loadConfig({ PUBLIC_BASE_URL: 'https://api.example.test/' }).WEB_APP_URL).toBe('https://api.example.test');
    expect(loadConfig({ PORT: '8123' }).WEB_APP_URL).toBe('http://localhost:8123');
    expect(loadConfig({ PUBLIC_BASE_URL: 'https://api.example.test', WEB_APP_URL: 'https://app.example.test/' }).WEB_APP_URL).toBe('https://app.example.test');
  });

  it('every link builder gives a page of the app', () => {
    const c = { WEB_APP_URL: WEB };
    expect(routeOf(appLinks.consultation(c, 'b9c4f5a2-0000-4000-8000-000000000001'))).toBe('/consultations/:id');
    expect(routeOf(appLinks.messages(c))).toBe('/messages');
    expect(routeOf(appLinks.renewal(c))).toBe('/renewal');
    expect(routeOf(appLinks.resetPassword(c, 'abc'))).toBe('/reset-password');
    expect(routeOf(appLinks.referral(c, 'ABC123'))).toBe('/r/:code');
    expect(new URL(appLinks.resetPassword(c, 'a b')).searchParams.get('token')).toBe('a b');
    expect(routeOf(appLinks.verifyPrescription(c, 'b9c4f5a2-0000-4000-8000-000000000001'))).toBe('/verify');
    expect(new URL(appLinks.verifyPrescription(c, 'b9c4f5a2-0000-4000-8000-000000000001')).searchParams.get('code')).toBe('b9c4f5a2-0000-4000-8000-000000000001');
  });

  it('the reset mail, the referral share link and the decision mail open app pages under WEB_APP_URL', async () => {
    const p = await readyPatient(ctx, 'weight_loss');
    await call(ctx, 'POST', '/v1/users/forgot-password/', { brand: true, json: { email: p.email } });
    const doctor = await staff(ctx, 'doctor');
    const { session } = await paySandbox(ctx, p, { category: 'weight_loss', plan: 'one_off' });
    const approve = await call(ctx, 'POST', `/v1/clinician/consultations/${session.consultation_id}/approve/`, { token: doctor.access, json: {} });
    expect(approve.status).toBe(200);
    await ctx.flushMail();
    const links = ctx.mails.filter((m) => m.to === p.email).flatMap((m) => m.text.match(/https?:\/\/\S+/g) ?? []);
    const reset = links.find((l) => l.includes('reset-password'));
    expect(reset?.startsWith(`${WEB}/reset-password?token=`)).toBe(true);
    expect(routeOf(reset!)).toBe('/reset-password');
    const decision = links.find((l) => l.includes('/consultations/'));
    expect(decision).toBe(`${WEB}/consultations/${session.consultation_id}`);
    for (const l of links.filter((x) => x.startsWith(WEB))) expect(routeOf(l), l).toBeDefined();

    const me = await call(ctx, 'GET', '/v1/users/referrals/me/', { token: p.access });
    expect(me.body.share_url.startsWith(`${WEB}/r/`)).toBe(true);
    expect(routeOf(me.body.share_url)).toBe('/r/:code');
  });
});

describe('serving the web app', () => {
  const dist = mkdtempSync(join(tmpdir(), 'pts-web-'));
  mkdirSync(join(dist, 'assets'));
  writeFileSync(join(dist, 'index.html'), '<!doctype html><title>app</title><div id="root"></div>');
  writeFileSync(join(dist, 'assets', 'app-1234.js'), 'console.log(1)');
  writeFileSync(join(dist, 'robots.txt'), 'User-agent: *');
  const html = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };

  async function server(root: string, googleClientId = '', brandSlug?: string) {
    const app = Fastify();
    installErrorHandling(app);
    app.get('/healthz', async () => ({ status: 'ok' }));
    app.get('/v1/users/profile/', async () => ({ id: 'x' }));
    const registered = await registerWebApp(app, root, { googleClientId, brandSlug });
    await app.ready();
    return { app, registered };
  }

  it('does nothing without a build', async () => {
    const { app, registered } = await server(join(dist, 'missing'));
    expect(registered).toBe(false);
    expect((await app.inject({ url: '/', headers: html })).statusCode).toBe(404);
    await app.close();
  });

  it('serves index.html at / and for the app pages a browser opens (mail links), with a content security policy', async () => {
    const { app } = await server(dist);
    for (const url of ['/', '/consultations/123', '/reset-password?token=abc', '/r/CODE', '/messages/', '/renewal']) {
      const r = await app.inject({ url, headers: html });
      expect(r.statusCode, url).toBe(200);
      expect(r.headers['content-type']).toContain('text/html');
      expect(r.body).toContain('<div id="root">');
      expect(r.headers['content-security-policy']).toContain("script-src 'self'");
      expect(r.headers['cache-control']).toBe('no-cache');
    }
    await app.close();
  });

  it("tells the app the server's brand at run time, so one build serves a deployment of any BRAND_SLUG", async () => {
    const other = await server(dist, '', 'acme-health');
    const page = await other.app.inject({ url: '/sign-in', headers: html });
    expect(page.body).toContain('<meta name="brand-slug" content="acme-health" />');
    await other.app.close();
    const plain = await server(dist);
    expect((await plain.app.inject({ url: '/', headers: html })).body).toContain('<meta name="brand-slug" content="demo" />');
    await plain.app.close();
  });

  it('tells the app the Google client ID (a meta tag) and allows Google Identity Services only when Google is configured', async () => {
    const off = await server(dist);
    const plain = await off.app.inject({ url: '/sign-in', headers: html });
    expect(plain.body).not.toContain('google-signin-client-id');
    expect(plain.headers['content-security-policy']).not.toContain('accounts.google.com');
    await off.app.close();
    const on = await server(dist, '123-abc.apps.googleusercontent.com');
    const page = await on.app.inject({ url: '/sign-in', headers: html });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<meta name="google-signin-client-id" content="123-abc.apps.googleusercontent.com" />');
    expect(page.body).toContain('<div id="root">');
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self' https://accounts.google.com/gsi/client");
    expect(csp).toContain('frame-src https://accounts.google.com/gsi/');
    expect(csp).toContain("frame-ancestors 'none'");
    expect(page.headers['cross-origin-opener-policy']).toBe('same-origin-allow-popups');
    await on.app.close();
  });

  it('serves the build files; hashed assets are cached for a year; a missing asset is a 404', async () => {
    const { app } = await server(dist);
    const js = await app.inject({ url: '/assets/app-1234.js' });
    expect(js.statusCode).toBe(200);
    expect(js.headers['content-type']).toContain('javascript');
    expect(js.headers['cache-control']).toContain('immutable');
    expect((await app.inject({ url: '/robots.txt' })).statusCode).toBe(200);
    expect((await app.inject({ url: '/assets/missing-9999.js', headers: html })).statusCode).toBe(404);
    await app.close();
  });

  it('leaves the API and the operational paths alone, refuses traversal and non-HTML requests', async () => {
    const { app } = await server(dist);
    expect((await app.inject({ url: '/v1/users/profile/', headers: html })).json()).toEqual({ id: 'x' });
    expect((await app.inject({ url: '/healthz', headers: html })).json()).toEqual({ status: 'ok' });
    for (const url of ['/v1/nothing/', '/v1', '/metrics', '/mcp', '/.well-known/openid-configuration', '/readyz/x']) {
      const r = await app.inject({ url, headers: html });
      expect(r.statusCode, url).toBe(404);
      expect(r.json(), url).toEqual({ detail: 'Not found.' });
    }
    // An API client (no HTML) asking for an unknown path gets the JSON 404, not the page.
    expect((await app.inject({ url: '/consultations/1', headers: { accept: 'application/json' } })).statusCode).toBe(404);
    for (const url of ['/..%2f..%2fetc%2fpasswd', '/%2e%2e/%2e%2e/etc/passwd', '/assets/..%2f..%2fpackage.json', '/%E0%A4%A']) {
      const r = await app.inject({ url, headers: html });
      expect(r.body, url).not.toContain('root:');
      expect([200, 400, 404], url).toContain(r.statusCode);
      if (r.statusCode === 200) expect(r.body).toContain('<div id="root">');
    }
    await app.close();
  });
});
