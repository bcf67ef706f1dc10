// The OpenAPI documents: the patient one served at /v1/schema/, the staff and operations one at
// /v1/schema/staff/; each valid OpenAPI 3.1 (swagger-parser), lint-clean (redocly, zero errors),
// version 1.0.0; every registered route documented in exactly one of them. As a product:
// operationIds, response descriptions, valid examples, integer paging, X-Brand-Slug, error codes
// enumerated, Retry-After; served with an ETag and compression; the docs page names the service.
// (test/openapi-walk.test.ts checks it against the service's answers.)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import SwaggerParser from '@apidevtools/swagger-parser';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE } from '../src/http/error-catalogue.ts';
import { collectOperations } from '../src/http/openapi-registry.ts';
import { audienceOf, mergeDocuments, pickEncoding } from '../src/http/openapi.ts';
import { call, createTestContext, latestCode, TEST_BRAND, type TestContext } from './support/harness.ts';
import { documentAjv, operations } from './support/openapi.ts';

let ctx: TestContext;
let doc: any;
let staffDoc: any;
/** Both published documents merged: the checks that hold for every operation. */
let all: any;
beforeAll(async () => {
  ctx = await createTestContext();
  doc = (await call(ctx, 'GET', '/v1/schema/')).body;
  staffDoc = (await call(ctx, 'GET', '/v1/schema/staff/')).body;
  all = mergeDocuments(doc, staffDoc);
});
afterAll(async () => ctx?.close());

// Routes that are not API operations: the interactive docs' own assets and the document itself.
// The assistant connector's protocol endpoints describe themselves (docs/mcp.md).
const UNDOCUMENTED = [/^\/v1\/docs/, /^\/v1\/schema\/(staff\/)?$/, /^\/mcp$/, /^\/oauth\//, /^\/\.well-known\//];

describe('OpenAPI document', () => {
  it('is OpenAPI 3.1 with version 1.0.0 (both documents)', () => {
    for (const d of [doc, staffDoc]) {
      expect(d.openapi).toMatch(/^3\.1\./);
      expect(d.info.version).toBe('1.0.0');
    }
    expect(doc.info.title).toBe('Patient Treatment Service API');
    expect(staffDoc.info.title).toBe('Patient Treatment Service staff and operations API');
  });

  it('validates with swagger-parser (both documents)', async () => {
    await expect(SwaggerParser.validate(structuredClone(doc))).resolves.toBeTruthy();
    await expect(SwaggerParser.validate(structuredClone(staffDoc))).resolves.toBeTruthy();
  });

  it.each([['patient'], ['staff']])('lints the %s document with redocly with zero errors', (which) => {
    const target = which === 'patient' ? doc : staffDoc;
    const dir = mkdtempSync(join(tmpdir(), 'openapi-'));
    const file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(target));
    let output = '';
    try {
      output = execFileSync(join(process.cwd(), 'node_modules/.bin/redocly'), ['lint', file, '--format=json', `--config=${join(process.cwd(), 'redocly.yaml')}`], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      });
    } catch (err: any) {
      output = String(err.stdout ?? '');
    }
    const report = JSON.parse(output.slice(output.indexOf('{')));
    const errors = report.problems.filter((p: any) => p.severity === 'error').map((p: any) => `${p.ruleId}: ${p.message} @ ${p.location?.[0]?.pointer}`);
    expect(errors).toEqual([]);
  }, 120_000);

  it('documents every registered route', () => {
    const documented = new Set<string>();
    for (const [path, ops] of Object.entries<any>(all.paths)) for (const m of Object.keys(ops)) documented.add(`${m.toUpperCase()} ${path}`);
    const missing = ctx.app.registeredRoutes
      .filter((r) => !r.hidden && !UNDOCUMENTED.some((re) => re.test(r.url)))
      .map((r) => `${r.method} ${r.url.replace(/:([A-Za-z_]+)/g, '{$1}')}`)
      .filter((key) => !documented.has(key));
    expect(missing).toEqual([]);
  });

  it('declares the two bearer schemes of the specification (JWT), and every scheme it declares is used by an operation (both documents)', () => {
    for (const d of [doc, staffDoc]) {
      expect(Object.keys(d.components.securitySchemes)).toEqual(['bearerAuth', 'jwtAuth']);
      for (const scheme of Object.values<{ type: string; scheme: string; bearerFormat: string }>(d.components.securitySchemes)) {
        expect(scheme).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
      }
      const used = new Set<string>();
      for (const item of Object.values(d.paths as Record<string, Record<string, { security?: Record<string, unknown>[] }>>)) {
        for (const op of Object.values(item)) for (const req of op.security ?? []) for (const name of Object.keys(req)) used.add(name);
      }
      expect([...used].sort()).toEqual(Object.keys(d.components.securitySchemes).sort());
    }
  });

  it('holds the patient surface only in the patient document, and every staff and operations route in the staff one', () => {
    const staffPrefixes = /^\/(v1\/(clinician|backoffice|pharmacy|webhooks)\/|healthz$|readyz$)/;
    const patientPaths = Object.keys(doc.paths);
    const staffPaths = Object.keys(staffDoc.paths);
    expect(patientPaths.filter((p) => staffPrefixes.test(p))).toEqual([]);
    expect(staffPaths.filter((p) => !staffPrefixes.test(p))).toEqual([]);
    expect(patientPaths.filter((p) => staffPaths.includes(p))).toEqual([]);
    // Every registered staff route, including the test clock and the payment webhook, is in the staff document.
    const staffRoutes = ctx.app.registeredRoutes
      .filter((r) => !r.hidden && !UNDOCUMENTED.some((re) => re.test(r.url)))
      .map((r) => ({ method: r.method.toLowerCase(), path: r.url.replace(/:([A-Za-z_]+)/g, '{$1}'), access: r.access }))
      .filter((r) => r.access === 'doctor' || r.access === 'backoffice_admin' || r.access === 'pharmacist' || staffPrefixes.test(r.path));
    expect(staffRoutes.length).toBeGreaterThan(15);
    expect(staffRoutes.filter((r) => !staffDoc.paths[r.path]?.[r.method]).map((r) => `${r.method} ${r.path}`)).toEqual([]);
    for (const path of ['/v1/backoffice/test-clock/', '/v1/backoffice/test-clock/advance/', '/v1/webhooks/stripe/', '/v1/clinician/consultations/', '/healthz']) {
      expect(audienceOf(path), path).toBe('staff');
      expect(staffDoc.paths[path], path).toBeDefined();
    }
    // Each document carries only the components it refers to, and the servers say who they are for.
    expect(staffDoc.components.parameters?.BrandSlug).toBeUndefined();
    expect(doc.components.schemas.ClinicianConsultation).toBeUndefined();
    expect(doc.servers.every((s: any) => s['x-internal'] === false)).toBe(true);
    expect(staffDoc.servers.every((s: any) => s['x-internal'] === true)).toBe(true);
  });
});

const BRAND_OPERATIONS = [
  'POST /v1/users/register/',
  'POST /v1/users/verify-email/',
  'POST /v1/users/token/',
  'POST /v1/users/token/refresh/',
  'POST /v1/users/google-login/',
  'POST /v1/users/forgot-password/',
  'POST /v1/users/reset-password/',
  'POST /v1/users/token/mfa/',
  'POST /v1/users/token/mfa/enrol/',
  'POST /v1/users/token/mfa/enrol/confirm/',
  'POST /v1/users/token/mfa/webauthn/options/',
  'POST /v1/users/token/mfa/enrol/passkey/options/',
  'POST /v1/users/token/mfa/enrol/passkey/',
];

describe('OpenAPI document as a product', () => {
  // Every operation of both published documents.
  const ops = () => operations(all);

  it('gives every operation a unique, camelCase operationId, declared on its own route', () => {
    const ids = ops().map((o) => o.op.operationId);
    expect(ids.filter((id) => typeof id !== 'string' || !/^[a-z][a-zA-Z0-9]*$/.test(id))).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
    const keys = new Set(ops().map((o) => `${o.method.toUpperCase()} ${o.path}`));
    const collected = ctx.app.apiOperations;
    // The registry is the routes' declarations: exactly the documented operations, each with its id.
    expect([...collected.keys()].filter((k) => !keys.has(k))).toEqual([]);
    expect(ops().filter((o) => collected.get(`${o.method.toUpperCase()} ${o.path}`)?.doc.id !== o.op.operationId).map((o) => `${o.method} ${o.path}`)).toEqual([]);
    // Stable: the names generated clients use.
    expect(doc.paths['/v1/users/token/'].post.operationId).toBe('signIn');
    expect(doc.paths['/v1/users/register/'].post.operationId).toBe('register');
  });

  it('refuses to start with a route of the document that declares no operation, or an operationId used twice', async () => {
    const undocumented = Fastify();
    collectOperations(undocumented);
    undocumented.get('/v1/users/undocumented/:id/', () => Promise.resolve({}));
    // A hidden route is not in the document and needs no declaration.
    undocumented.get('/v1/users/hidden/', { schema: { hide: true } }, () => Promise.resolve({}));
    await expect(undocumented.ready()).rejects.toThrow(/without an operation declaration .*: GET \/v1\/users\/undocumented\/\{id\}\/$/);
    await undocumented.close();

    const twice = Fastify();
    collectOperations(twice);
    const register = async () => {
      twice.get('/v1/users/first/', { config: { operation: { id: 'sameId' } } }, () => Promise.resolve({}));
      twice.get('/v1/users/second/', { config: { operation: { id: 'sameId' } } }, () => Promise.resolve({}));
      await twice.ready();
    };
    await expect(register()).rejects.toThrow(/operationId sameId of GET \/v1\/users\/second\/ is already used by GET \/v1\/users\/first\//);
    await twice.close();

    const documented = Fastify();
    const collected = collectOperations(documented);
    documented.get('/v1/users/documented/:id/', { config: { operation: { id: 'getDocumented' } } }, () => Promise.resolve({}));
    documented.get('/v1/users/open/', { config: { access: 'public', operation: { id: 'getOpen' } } }, () => Promise.resolve({}));
    await documented.ready();
    expect(Object.fromEntries([...collected].map(([k, o]) => [k, [o.doc.id, o.access]]))).toEqual({
      'GET /v1/users/documented/{id}/': ['getDocumented', 'user'],
      'GET /v1/users/open/': ['getOpen', 'public'],
    });
    await documented.close();
  });

  it('declares security as the access rule enforces it (public: none; otherwise the bearer token)', () => {
    const wrong = ctx.app.registeredRoutes
      .filter((r) => !r.hidden && !UNDOCUMENTED.some((re) => re.test(r.url)))
      .flatMap((r) => {
        const op = all.paths[r.url.replace(/:([A-Za-z_]+)/g, '{$1}')]?.[r.method.toLowerCase()];
        if (!op) return [];
        const bearer = JSON.stringify(op.security) === JSON.stringify([{ bearerAuth: [] }, { jwtAuth: [] }]);
        const ok = r.access === 'public' ? JSON.stringify(op.security) === '[]' : bearer && Boolean(op.responses['401']);
        return ok ? [] : [`${r.method} ${r.url} (${r.access}): ${JSON.stringify(op.security)}`];
      });
    expect(wrong).toEqual([]);
  });

  it('describes every response (no "Default Response")', () => {
    const bad = ops().flatMap((o) =>
      Object.entries<any>(o.op.responses).filter(([, r]) => !r.description || r.description === 'Default Response').map(([s]) => `${o.method} ${o.path} ${s}`),
    );
    expect(bad).toEqual([]);
  });

  it('has an example on every JSON request body and every JSON 2xx answer, each valid against its schema', () => {
    const validator = documentAjv(all);
    const problems: string[] = [];
    for (const o of ops()) {
      const media: [string, any][] = [];
      const body = o.op.requestBody?.content?.['application/json'];
      if (body) media.push(['request', body]);
      for (const [status, r] of Object.entries<any>(o.op.responses)) if (status.startsWith('2') && r.content?.['application/json']) media.push([status, r.content['application/json']]);
      for (const [what, m] of media) {
        if (m.example === undefined) problems.push(`${o.method} ${o.path} ${what}: no example`);
        else if (!validator(m.schema)(m.example)) problems.push(`${o.method} ${o.path} ${what}: example invalid ${JSON.stringify(validator(m.schema).errors?.slice(0, 2))}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('types limit and offset as integers', () => {
    const params = ops().flatMap((o) => (o.op.parameters ?? []).filter((p: any) => p.in === 'query' && ['limit', 'offset'].includes(p.name)));
    expect(params.length).toBeGreaterThan(10);
    expect(params.filter((p: any) => p.schema.type !== 'integer')).toEqual([]);
  });

  it('declares X-Brand-Slug as a required header on the 13 unauthenticated account endpoints, with the brand as example', () => {
    const brandParam = doc.components.parameters.BrandSlug;
    expect(brandParam).toMatchObject({ name: 'X-Brand-Slug', in: 'header', required: true, example: TEST_BRAND });
    const withBrand = ops()
      .filter((o) => (o.op.parameters ?? []).some((p: any) => p.$ref === '#/components/parameters/BrandSlug'))
      .map((o) => `${o.method.toUpperCase()} ${o.path}`);
    expect(withBrand.sort()).toEqual([...BRAND_OPERATIONS].sort());
  });

  it('documents Retry-After on every 429, WWW-Authenticate on every bearer 401, and no body on 204/304', () => {
    const problems: string[] = [];
    for (const o of ops()) {
      for (const [status, r] of Object.entries<any>(o.op.responses)) {
        if (status === '429' && !r.headers?.['Retry-After']) problems.push(`${o.method} ${o.path} 429 without Retry-After`);
        if (status === '401' && (o.op.security ?? []).length > 0 && !r.headers?.['WWW-Authenticate']) problems.push(`${o.method} ${o.path} 401 without WWW-Authenticate`);
        if ((status === '204' || status === '304') && r.content) problems.push(`${o.method} ${o.path} ${status} with a body`);
      }
    }
    expect(problems).toEqual([]);
    expect(all.components.headers.RetryAfter.schema.type).toBe('integer');
  });

  it('documents every body route with the malformed-JSON 400, 413 and 415', () => {
    const missing = ops()
      .filter((o) => o.op.requestBody?.content?.['application/json'])
      .flatMap((o) => {
        const out: string[] = [];
        const s400 = JSON.stringify(o.op.responses['400'] ?? {});
        if (!s400.includes('#/components/schemas/MalformedJson')) out.push(`${o.method} ${o.path} 400`);
        if (!o.op.responses['413']) out.push(`${o.method} ${o.path} 413`);
        if (!o.op.responses['415']) out.push(`${o.method} ${o.path} 415`);
        return out;
      });
    expect(missing).toEqual([]);
  });

  it('enumerates every code and error_name an error body can carry', () => {
    // No error schema may leave `code` or `error_name` as a bare string.
    const bare: string[] = [];
    const visit = (node: any, where: string) => {
      if (!node || typeof node !== 'object') return;
      if (node.properties) {
        for (const key of ['code', 'error_name']) {
          const p = node.properties[key];
          if (p && !p.enum && p.const === undefined) bare.push(`${where}.${key}`);
        }
      }
      for (const [k, v] of Object.entries(node)) if (k !== 'example') visit(v, `${where}/${k}`);
    };
    for (const o of ops()) for (const [status, r] of Object.entries<any>(o.op.responses)) if (Number(status) >= 400) visit(r, `${o.method} ${o.path} ${status}`);
    for (const name of ['TokenNotValid', 'NotAuthenticated', 'PermissionDenied', 'PayloadTooLarge', 'UnsupportedMediaType', 'Throttled', 'ServerError']) visit(all.components.schemas[name], name);
    expect(bare).toEqual([]);

    // Every code the source can throw appears in the document.
    const documented = new Set<string>();
    const collect = (node: any) => {
      if (Array.isArray(node)) return node.forEach(collect);
      if (!node || typeof node !== 'object') return;
      for (const key of ['code', 'error_name']) if (node.properties?.[key]?.enum) node.properties[key].enum.forEach((c: string) => documented.add(c));
      Object.values(node).forEach(collect);
    };
    collect(all);
    // Every code of the catalogue (test/error-catalogue.test.ts checks each is thrown somewhere) but
    // GET /metrics', an operations endpoint outside the API document (docs/operations.md).
    const thrown = Object.keys(ERROR_CATALOGUE).filter((c) => c !== 'authentication_failed');
    expect(thrown.length).toBeGreaterThan(30);
    expect(thrown.filter((c) => !documented.has(c)).sort()).toEqual([]);
  });

  it('documents downloads as binary and the message upload as multipart/form-data', () => {
    expect(Object.keys(doc.paths['/v1/users/payments/{id}/invoice/'].get.responses['200'].content)).toEqual(['application/pdf']);
    expect(Object.keys(doc.paths['/v1/users/prescriptions/{id}/pdf/'].get.responses['200'].content)).toEqual(['application/pdf']);
    const file = doc.paths['/v1/users/conversations/{id}/messages/{message_id}/file/'].get.responses['200'].content;
    expect(Object.keys(file).sort()).toEqual(['application/pdf', 'image/heic', 'image/jpeg', 'image/png']);
    const upload = doc.paths['/v1/users/conversations/{id}/messages/'].post.requestBody.content;
    expect(upload['multipart/form-data'].schema.properties.file).toMatchObject({ type: 'string', format: 'binary' });
    expect(upload['application/json']).toBeDefined();
  });

  it('lets "Try it out" sign in with the documented header and example body', async () => {
    // Register and verify the account of the sign-in example, then send exactly what the document
    // describes: its declared parameters (with their examples) and its example body.
    const op = doc.paths['/v1/users/token/'].post;
    const example = op.requestBody.content['application/json'].example;
    await call(ctx, 'POST', '/v1/users/register/', { brand: true, json: doc.paths['/v1/users/register/'].post.requestBody.content['application/json'].example });
    const otp = await latestCode(ctx, example.email);
    expect((await call(ctx, 'POST', '/v1/users/verify-email/', { brand: true, json: { email: example.email, otp } })).status).toBe(200);
    const headers: Record<string, string> = {};
    for (const p of op.parameters) {
      const param = p.$ref ? doc.components.parameters[p.$ref.split('/').pop()] : p;
      if (param.in === 'header' && param.required) headers[param.name] = param.example;
    }
    const res = await call(ctx, 'POST', '/v1/users/token/', { headers, json: example });
    expect(res.status).toBe(200);
    expect(typeof res.body.access).toBe('string');
  });
});

describe('GET /v1/schema/ and GET /v1/schema/staff/', () => {
  it.each([['/v1/schema/'], ['/v1/schema/staff/']])('%s has a strong ETag and answers 304 with no body to If-None-Match', async (url) => {
    const first = await ctx.app.inject({ method: 'GET', url });
    expect(first.statusCode).toBe(200);
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{20,}"$/);
    expect(first.headers['content-type']).toMatch(/^application\/json/);
    const again = await ctx.app.inject({ method: 'GET', url, headers: { 'if-none-match': etag } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect(again.headers['content-length']).toBeUndefined();
    expect(again.headers.etag).toBe(etag);
    const other = await ctx.app.inject({ method: 'GET', url, headers: { 'if-none-match': '"stale"' } });
    expect(other.statusCode).toBe(200);
  });

  it('is compressed with br or gzip when the client accepts it, and identical once decoded', async () => {
    const plain = await ctx.app.inject({ method: 'GET', url: '/v1/schema/' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toMatch(/Accept-Encoding/i);
    const br = await ctx.app.inject({ method: 'GET', url: '/v1/schema/', headers: { 'accept-encoding': 'gzip, deflate, br' } });
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe(plain.body);
    expect(br.rawPayload.length).toBeLessThan(plain.rawPayload.length / 5);
    const gz = await ctx.app.inject({ method: 'GET', url: '/v1/schema/', headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.rawPayload).toString()).toBe(plain.body);
    // Other routes are not compressed.
    const health = await ctx.app.inject({ method: 'GET', url: '/healthz', headers: { 'accept-encoding': 'gzip, br' } });
    expect(health.headers['content-encoding']).toBeUndefined();
  });

  it('negotiates the encoding by q-values', () => {
    expect(pickEncoding(undefined)).toBe('identity');
    expect(pickEncoding('gzip;q=1, br;q=0.5')).toBe('gzip');
    expect(pickEncoding('br;q=0, gzip;q=0')).toBe('identity');
    expect(pickEncoding('*')).toBe('br');
    expect(pickEncoding('identity')).toBe('identity');
  });
});

describe('the docs page', () => {
  it('names the service, not the framework, and shows the service logo', async () => {
    const page = await call(ctx, 'GET', '/v1/docs/');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<title>Patient Treatment Service API</title>');
    expect(page.text).not.toContain('<title>Swagger UI</title>');
    expect(page.text).not.toContain('favicon-32x32.png');
    const init = await call(ctx, 'GET', '/v1/docs/static/swagger-initializer.js');
    const logo = /data:image\/svg\+xml;base64,([A-Za-z0-9+/=]+)/.exec(init.text);
    expect(logo).not.toBeNull();
    expect(Buffer.from(logo![1]!, 'base64').toString()).toContain('Patient Treatment Service');
  });
});
