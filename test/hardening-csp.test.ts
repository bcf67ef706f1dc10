// Issue 43: the HTML pages the API serves itself carry a strict Content-Security-Policy (src/http/csp.ts;
// docs/hardening.md). The interactive docs (/v1/docs/) allow only their own scripts and styles; the
// sandbox checkout page and billing portal allow their one inline style by its hash, nothing else,
// and their forms only to this origin and the session's return pages. Each test reads the page it
// guards: an inline script or style the policy does not allow fails it.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readyPatient } from './billing-fixtures.ts';
import { call, createTestContext, TEST_BASE_URL, type TestContext } from './support/harness.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => ctx?.close());

function directives(header: unknown): Map<string, string[]> {
  expect(typeof header, 'a Content-Security-Policy header').toBe('string');
  return new Map(String(header).split(';').map((d) => d.trim()).filter(Boolean).map((d) => { const [name, ...sources] = d.split(/\s+/); return [name!, sources]; }));
}

const hashOf = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/** Every inline <script> and <style> of a page must be allowed by the policy's hashes; no style/on* attribute. */
function expectPageWithin(html: string, csp: Map<string, string[]>) {
  const inlineScripts = [...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/gi)].map((m) => m[1]!);
  for (const s of inlineScripts) expect(csp.get('script-src') ?? [], 'inline script allowed by hash').toContain(hashOf(s));
  const styles = [...html.matchAll(/<style[^>]*>([\s\S]*?)<\/style>/gi)].map((m) => m[1]!);
  for (const s of styles) expect(csp.get('style-src') ?? [], 'inline style allowed by hash').toContain(hashOf(s));
  expect(html).not.toMatch(/\sstyle="/i);
  expect(html).not.toMatch(/\son[a-z]+="/i);
}

describe('Content-Security-Policy', () => {
  it('/v1/docs/: nothing but its own files; no unsafe-inline, no eval, no framing', async () => {
    const res = await call(ctx, 'GET', '/v1/docs/');
    expect(res.status).toBe(200);
    const csp = directives(res.headers['content-security-policy']);
    expect(csp.get('default-src')).toEqual(["'none'"]);
    expect(csp.get('script-src')).toEqual(["'self'"]);
    expect(csp.get('style-src')).toEqual(["'self'"]);
    expect(csp.get('frame-ancestors')).toEqual(["'none'"]);
    expect(csp.get('object-src')).toEqual(["'none'"]);
    expect(csp.get('connect-src')).toEqual(expect.arrayContaining(["'self'", new URL(TEST_BASE_URL).origin]));
    expect(String(res.headers['content-security-policy'])).not.toMatch(/unsafe-(inline|eval)|\*/);
    expectPageWithin(res.text, csp);
    // The page's scripts and styles are served from here, under the same policy.
    for (const src of [...res.text.matchAll(/(?:src|href)="\.\/(static\/[^"]+)"/g)].map((m) => m[1]!)) {
      const file = await call(ctx, 'GET', `/v1/docs/${src}`);
      expect(file.status, src).toBe(200);
      expect(file.headers['content-security-policy'], src).toBe(res.headers['content-security-policy']);
    }
  });

  it('the sandbox checkout page: its inline style by hash, no script, forms to here and the return pages', async () => {
    const p = await readyPatient(ctx);
    const co = await call(ctx, 'POST', '/v1/users/checkout/', { token: p.access, json: { category: 'weight_loss', plan: 'subscription' } });
    expect(co.status, co.text).toBe(200);
    const res = await call(ctx, 'GET', new URL(co.body.checkout_url).pathname);
    expect(res.status).toBe(200);
    expect(res.text).toContain('<form method="post" action="pay/">');
    const csp = directives(res.headers['content-security-policy']);
    expect(csp.get('default-src')).toEqual(["'none'"]);
    expect(csp.has('script-src')).toBe(false); // falls back to 'none'
    expect(csp.get('style-src')).toHaveLength(1);
    expect(csp.get('frame-ancestors')).toEqual(["'none'"]);
    expect(csp.get('base-uri')).toEqual(["'none'"]);
    expect(csp.get('form-action')![0]).toBe("'self'");
    expect(String(res.headers['content-security-policy'])).not.toMatch(/unsafe-|\*/);
    expectPageWithin(res.text, csp);
    // The return pages' origin may receive the form's redirect; no other.
    const session = await ctx.db.query<{ success_url: string; cancel_url: string }>('select success_url, cancel_url from checkout_sessions where id = $1', [co.body.session_id]);
    const allowed = new Set(csp.get('form-action')!.slice(1));
    for (const u of [session[0]?.success_url, session[0]?.cancel_url]) if (u && new URL(u).origin !== new URL(TEST_BASE_URL).origin) expect(allowed).toContain(new URL(u).origin);
    // An unknown session's page and the default return pages carry a policy too.
    const missing = await call(ctx, 'GET', '/sandbox/checkout/cs_sandbox_00000000000000000000000000000000/');
    expect(missing.status).toBe(404);
    expectPageWithin(missing.text, directives(missing.headers['content-security-policy']));
    const done = await call(ctx, 'GET', '/checkout/complete/');
    expectPageWithin(done.text, directives(done.headers['content-security-policy']));
  });

  it('the sandbox billing portal: the same kind of policy', async () => {
    const res = await call(ctx, 'GET', '/sandbox/portal/not-a-token/');
    expect(res.status).toBe(404);
    const csp = directives(res.headers['content-security-policy']);
    expect(csp.get('default-src')).toEqual(["'none'"]);
    expect(csp.get('form-action')).toEqual(["'self'"]);
    expectPageWithin(res.text, csp);
  });
});
