// A typed client generated from the served document (openapi-typescript 7 + openapi-fetch):
// test/client/journey.ts walks the patient journey with it and no casts. The test generates the
// types, typechecks the journey with tsc (and checks that a wrong document makes it fail), then
// runs the journey against the app through the generated client.
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import createClient from 'openapi-fetch';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestContext, latestCode, PASSWORD, TEST_BASE_URL, TEST_BRAND, uniqueEmail, type TestContext } from './support/harness.ts';

const run = promisify(execFile);
const ROOT = process.cwd();
const BLOB = ts.factory.createTypeReferenceNode(ts.factory.createIdentifier('Blob'));
const NULL = ts.factory.createLiteralTypeNode(ts.factory.createNull());

/** The TypeScript declarations of a document (binary bodies as Blob, as openapi-fetch sends them). */
export async function generateTypes(doc: unknown): Promise<string> {
  const ast = await openapiTS(JSON.parse(JSON.stringify(doc)), {
    transform(schema) {
      if (schema.format === 'binary') return 'nullable' in schema && schema.nullable ? ts.factory.createUnionTypeNode([BLOB, NULL]) : BLOB;
      return undefined;
    },
  });
  return astToString(ast);
}

/** Writes the generated types and the journey into a fresh folder and runs tsc on it. */
async function typecheck(doc: unknown, name: string): Promise<{ ok: boolean; output: string }> {
  const dir = join(ROOT, '.tmp', `client-${name}-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'api.d.ts'), await generateTypes(doc));
  copyFileSync(join(ROOT, 'test/client/journey.ts'), join(dir, 'journey.ts'));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({ extends: '../../tsconfig.json', compilerOptions: { noEmit: true, skipLibCheck: true, lib: ['ES2022', 'DOM'] }, include: ['journey.ts', 'api.d.ts'] }),
  );
  try {
    const { stdout } = await run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(dir, 'tsconfig.json')], { cwd: ROOT });
    return { ok: true, output: stdout };
  } catch (err: any) {
    return { ok: false, output: `${err.stdout ?? ''}${err.stderr ?? ''}` };
  }
}

let ctx: TestContext;
let doc: any;
beforeAll(async () => {
  ctx = await createTestContext();
  doc = (await call(ctx, 'GET', '/v1/schema/')).body;
});
afterAll(async () => {
  await ctx?.close();
  rmSync(join(ROOT, '.tmp', `client-good-${process.pid}`), { recursive: true, force: true });
  rmSync(join(ROOT, '.tmp', `client-wrong-${process.pid}`), { recursive: true, force: true });
});

describe('a client generated from the document', () => {
  it('typechecks the patient journey with no casts', async () => {
    const source = readFileSync(join(ROOT, 'test/client/journey.ts'), 'utf8');
    // No casts, no non-null assertions, no any.
    expect(source).not.toMatch(/\bas\s+(any|unknown|never|[A-Z][A-Za-z]*)\b|!\.|!\)|: any\b|@ts-/);
    const result = await typecheck(doc, 'good');
    expect(result.output).toBe('');
    expect(result.ok).toBe(true);
  }, 180_000);

  it('stops compiling when the document is wrong', async () => {
    // A document without the X-Brand-Slug header and with the token pair's `refresh` renamed.
    const wrong = structuredClone(doc);
    const signIn = wrong.paths['/v1/users/token/'].post;
    signIn.parameters = [];
    const pair = signIn.responses['200'].content['application/json'].schema;
    const target = pair.$ref ? wrong.components.schemas[pair.$ref.split('/').pop()] : pair;
    target.properties.refresh_token = target.properties.refresh;
    delete target.properties.refresh;
    target.required = target.required.map((k: string) => (k === 'refresh' ? 'refresh_token' : k));
    const result = await typecheck(wrong, 'wrong');
    expect(result.ok).toBe(false);
    expect(result.output).toMatch(/journey\.ts.*X-Brand-Slug|journey\.ts[\s\S]*'header'/);
    expect(result.output).toMatch(/Property 'refresh' does not exist/);
  }, 180_000);

  it('walks the journey against the service through the generated client', async () => {
    // (A computed path: the root typecheck skips the journey, whose types exist only once generated.)
    const { patientJourney } = await import(pathToFileURL(join(ROOT, 'test/client/journey.ts')).href);
    // fetch -> fastify.inject, so the generated client talks to the real app.
    const fetchViaInject = async (request: Request): Promise<Response> => {
      const url = new URL(request.url);
      const payload = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
      const res = await ctx.app.inject({ method: request.method as any, url: url.pathname + url.search, headers: Object.fromEntries(request.headers), payload });
      const headers = new Headers();
      for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : String(v));
      return new Response([204, 304].includes(res.statusCode) ? null : new Uint8Array(res.rawPayload), { status: res.statusCode, headers });
    };
    const client = createClient<any>({ baseUrl: TEST_BASE_URL, fetch: fetchViaInject });
    const result = await patientJourney(client, uniqueEmail('client'), PASSWORD, {
      brand: TEST_BRAND,
      readCode: (email: string) => latestCode(ctx, email),
      pay: async (checkoutUrl: string) => {
        const pay = await call(ctx, 'POST', `${new URL(checkoutUrl).pathname}pay/`, { payload: '', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
        expect(pay.status).toBe(303);
      },
    });
    expect(result.outcome).toBe('eligible');
    expect(result.consultationStatus).toBe('pending_review');
    expect(result.invoiceBytes).toBeGreaterThan(500);
    expect(result.messages).toBe(2);
    expect(result.subscriptions).toBeGreaterThanOrEqual(0);
  }, 120_000);
});
