// The app sends the brand of the server that served it (the meta tag src/web.ts writes), not one
// fixed at build time: a deployment with another BRAND_SLUG must be able to sign in.
import { afterEach, describe, expect, it, vi } from 'vitest';

afterEach(() => {
  document.head.querySelectorAll('meta[name="brand-slug"]').forEach((m) => m.remove());
  vi.resetModules();
  vi.unstubAllGlobals();
});

describe('brand', () => {
  it("sends the served page's brand as X-Brand-Slug", async () => {
    const meta = document.createElement('meta');
    meta.name = 'brand-slug';
    meta.content = 'northwind-clinic';
    document.head.appendChild(meta);
    vi.resetModules();
    const client = await import('../src/api/client');
    expect(client.BRAND).toBe('northwind-clinic');
    const seen: string[] = [];
    vi.stubGlobal('fetch', async (request: Request) => {
      seen.push(request.headers.get('x-brand-slug') ?? '');
      return new Response(JSON.stringify({ detail: 'no' }), { status: 401, headers: { 'content-type': 'application/json' } });
    });
    await client.api.POST('/v1/users/token/', { params: client.brandParams, body: { email: 'a@example.org', password: 'x' } });
    expect(seen).toEqual(['northwind-clinic']);
  });

  it('falls back to demo when the page names no brand', async () => {
    vi.resetModules();
    const client = await import('../src/api/client');
    expect(client.BRAND).toBe('demo');
  });
});
