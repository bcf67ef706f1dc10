// The OpenAPI document: served at /v1/schema/, valid OpenAPI 3.1 (swagger-parser), lint-clean
// (redocly, zero errors), version 1.0.0, and every registered route documented.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestContext, type TestContext } from './support/harness.ts';

let ctx: TestContext;
let doc: any;
beforeAll(async () => {
  ctx = await createTestContext();
  doc = (await call(ctx, 'GET', '/v1/schema/')).body;
});
afterAll(async () => ctx?.close());

// Routes that are not API operations: the interactive docs' own assets and the document itself.
const UNDOCUMENTED = [/^\/v1\/docs/, /^\/v1\/schema\/$/];

describe('OpenAPI document', () => {
  it('is OpenAPI 3.1 with version 1.0.0', () => {
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(doc.info.version).toBe('1.0.0');
  });

  it('validates with swagger-parser', async () => {
    await expect(SwaggerParser.validate(structuredClone(doc))).resolves.toBeTruthy();
  });

  it('lints with redocly with zero errors', () => {
    const dir = mkdtempSync(join(tmpdir(), 'openapi-'));
    const file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(doc));
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
    for (const [path, ops] of Object.entries<any>(doc.paths)) for (const m of Object.keys(ops)) documented.add(`${m.toUpperCase()} ${path}`);
    const missing = ctx.app.registeredRoutes
      .filter((r) => !r.hidden && !UNDOCUMENTED.some((re) => re.test(r.url)))
      .map((r) => `${r.method} ${r.url.replace(/:([A-Za-z_]+)/g, '{$1}')}`)
      .filter((key) => !documented.has(key));
    expect(missing).toEqual([]);
  });

  it('declares the two bearer security schemes', () => {
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['bearerAuth', 'jwtAuth']);
  });
});
