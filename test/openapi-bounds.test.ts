// The bounds the OpenAPI documents publish (OWASP API4, .spectral.yaml; `npm run lint:openapi` runs
// Spectral itself): every string and array a request carries is bounded in both documents, every
// integer has a format, and a published limit is one the service enforces: a value one character
// over it is refused (400 with the field, or the operation's own refusal), one at it is not
// refused for its length.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestContext, seedPatient, type Patient, type TestContext } from './support/harness.ts';
import { operations, publishedDocuments } from './support/openapi.ts';

type Json = Record<string, any>;

let ctx: TestContext;
let docs: { patient: Json; staff: Json; all: Json };
let patient: Patient;
beforeAll(async () => {
  ctx = await createTestContext();
  docs = await publishedDocuments(ctx);
  patient = await seedPatient(ctx, { date_of_birth: '1985-04-12', country_of_residence: 'DEU', gender: '0' });
});
afterAll(async () => ctx?.close());

/** Every schema node under `node`, following $refs into the document's components (each once). */
function* schemaNodes(doc: Json, node: unknown, where: string, seen = new Set<string>()): Generator<{ node: Json; where: string }> {
  if (Array.isArray(node)) {
    for (const item of node) yield* schemaNodes(doc, item, where, seen);
    return;
  }
  if (!node || typeof node !== 'object') return;
  const n = node as Json;
  if (typeof n.$ref === 'string') {
    const name = n.$ref.split('/').pop() as string;
    if (seen.has(name)) return;
    seen.add(name);
    yield* schemaNodes(doc, doc.components.schemas[name], `${where} -> ${name}`, seen);
    return;
  }
  yield { node: n, where };
  for (const [key, value] of Object.entries(n)) if (!['example', 'examples', 'default', 'enum', 'const'].includes(key)) yield* schemaNodes(doc, value, `${where}.${key}`, seen);
}

const typesOf = (n: Json): unknown[] => (Array.isArray(n.type) ? n.type : [n.type]);

describe('bounds published in both documents', () => {
  it.each([['patient'], ['staff']] as const)('bounds every string and array of a %s request (parameters and bodies)', (which) => {
    const doc = docs[which];
    const unbounded: string[] = [];
    let strings = 0;
    for (const o of operations(doc)) {
      const roots: [string, unknown][] = [];
      for (const p of o.op.parameters ?? []) {
        const param = p.$ref ? doc.components.parameters[p.$ref.split('/').pop()] : p;
        roots.push([`param ${param.in}:${param.name}`, param.schema]);
      }
      for (const [type, media] of Object.entries<Json>(o.op.requestBody?.content ?? {})) roots.push([`body ${type}`, media.schema]);
      for (const [what, schema] of roots) {
        for (const { node, where } of schemaNodes(doc, schema, `${o.method} ${o.path} ${what}`)) {
          const types = typesOf(node);
          if (types.includes('string')) {
            strings++;
            if (node.maxLength === undefined && node.enum === undefined && node.const === undefined) unbounded.push(`${where}: string`);
          }
          if (types.includes('array') && node.maxItems === undefined) unbounded.push(`${where}: array`);
        }
      }
    }
    expect(strings).toBeGreaterThan(which === 'patient' ? 100 : 20);
    expect(unbounded).toEqual([]);
  });

  it('gives every integer a format, and a page at most the page size', () => {
    const missing: string[] = [];
    for (const { node, where } of schemaNodes(docs.all, docs.all, '#')) if (typesOf(node).includes('integer') && !['int32', 'int64'].includes(node.format)) missing.push(where);
    expect(missing).toEqual([]);
    const list = docs.patient.paths['/v1/users/payments/'].get.responses['200'].content['application/json'].schema;
    const page = list.$ref ? docs.patient.components.schemas[list.$ref.split('/').pop()] : list;
    expect(page.properties.results.maxItems).toBe(100);
  });

  it('declares RFC 8725 on the bearer scheme, the audience of each server, and the CORS header on every response', () => {
    for (const doc of [docs.patient, docs.staff]) {
      expect(doc.components.securitySchemes.bearerAuth.description).toContain('RFC8725');
      for (const o of operations(doc)) for (const [status, r] of Object.entries<Json>(o.op.responses)) expect(r.headers?.['Access-Control-Allow-Origin'], `${o.method} ${o.path} ${status}`).toBeDefined();
    }
  });
});

describe('a published request limit is enforced', () => {
  const over = (n: number, c = '1') => c.repeat(n + 1);
  const maxOf = (path: string, method: string, field: string): number => {
    const media = docs.patient.paths[path][method].requestBody.content['application/json'].schema;
    let schema = media.$ref ? docs.patient.components.schemas[media.$ref.split('/').pop()] : media;
    for (const key of field.split('.')) schema = schema.properties?.[key] ?? schema.items?.properties?.[key];
    const string = [schema, ...(schema.anyOf ?? [])].find((s: Json) => typesOf(s).includes('string'));
    return string.maxLength;
  };

  it('profile: date_of_birth, gender and an address country one over their maxLength answer 400 with the field', async () => {
    const path = '/v1/users/profile/me/';
    expect(maxOf(path, 'patch', 'date_of_birth')).toBe(10);
    const dob = await call(ctx, 'PATCH', path, { token: patient.access, json: { date_of_birth: `${'1985-04-12'}Z` } });
    expect(dob.status).toBe(400);
    expect(Object.keys(dob.body)).toEqual(['date_of_birth']);
    expect(maxOf(path, 'patch', 'gender')).toBe(1);
    const gender = await call(ctx, 'PATCH', path, { token: patient.access, json: { gender: '00' } });
    expect(gender.status).toBe(400);
    expect(gender.body.gender).toEqual(['Must be one of "0", "1", "2", "3".']);
    const address = { line1: 'Hauptstr. 1', city: 'Berlin', postal_code: '10115', country: 'DEUX' };
    const country = await call(ctx, 'PATCH', path, { token: patient.access, json: { addresses: [address] } });
    expect(country.status).toBe(400);
    expect(JSON.stringify(country.body)).toContain('ISO 3166 alpha-3');
    // At the limit: accepted.
    expect((await call(ctx, 'PATCH', path, { token: patient.access, json: { date_of_birth: '1985-04-12', gender: '1', addresses: [{ ...address, country: 'DEU' }] } })).status).toBe(200);
  });

  it('journal: a weight written as a string and a date one over their maxLength answer 400 with the field', async () => {
    const path = '/v1/users/journal/weight-entries/';
    const weight = await call(ctx, 'POST', path, { token: patient.access, json: { weight_kg: `80.${over(30, '0')}` } });
    expect(weight.status).toBe(400);
    expect(weight.body.weight_kg).toEqual(['A valid number is required.']);
    const day = await call(ctx, 'POST', path, { token: patient.access, json: { weight_kg: 80, logged_on: '2026-01-011' } });
    expect(day.status).toBe(400);
    expect(Object.keys(day.body)).toEqual(['logged_on']);
    const injection = await call(ctx, 'POST', '/v1/users/journal/injections/', {
      token: patient.access,
      json: { medication: 'semaglutide', dose: '0.25 mg', injected_at: `2026-01-01T08:00:00.${'1'.repeat(60)}+01:00` },
    });
    expect(injection.status).toBe(400);
    expect(injection.body.injected_at).toBeDefined();
  });

  it('questionnaire progress: an answer key one over its maxLength answers 400', async () => {
    const res = await call(ctx, 'PATCH', '/v1/users/questionnaires/weight_loss/progress/', {
      token: patient.access,
      json: { data: [{ step_id: 1, question_key: 'symptoms', values: { [over(100, 'k')]: true } }] },
    });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body).join()).toMatch(/^data/);
  });

  it('a checkout session id over its published maxLength is refused by the router (414); one at it is looked up (404)', async () => {
    const param = docs.patient.paths['/v1/users/sandbox/session/{id}/'].get.parameters.find((p: Json) => p.name === 'id');
    expect(param.schema.maxLength).toBe(100);
    expect((await call(ctx, 'GET', `/v1/users/sandbox/session/${over(100, 's')}/`, { token: patient.access })).status).toBe(414);
    expect((await call(ctx, 'GET', `/v1/users/sandbox/session/${'s'.repeat(100)}/`, { token: patient.access })).status).toBe(404);
  });
});
