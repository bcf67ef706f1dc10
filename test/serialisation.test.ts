// Production writes responses from the JSON schema (fast-json-stringify) instead of validating them
// with zod. The bytes must not change: the same requests, answered by an app in each mode
// over the same database, must give identical bodies.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../src/app.ts';
import { z } from 'zod';
import { defaultSerialisation, forSerialisation, responseSerializerCompiler } from '../src/http/serializer.ts';
import { pageSchema } from '../src/http/pagination.ts';
import { ConsultationSchema } from '../src/modules/consultations/index.ts';
import { call, createTestContext, newStaff, seedPatient, type Patient, type TestContext, firstRow } from './support/harness.ts';

let ctx: TestContext;
let schemaApp: App;
beforeAll(async () => {
  ctx = await createTestContext();
  schemaApp = await buildApp(ctx.deps, { logger: false, serialisation: 'schema' });
  await schemaApp.ready();
});
afterAll(async () => {
  await schemaApp?.close();
  await ctx?.close();
});

async function seed(p: Patient, doctorId: string) {
  for (let i = 0; i < 5; i++) {
    const c = firstRow(await ctx.db.query(
      `insert into consultations (user_id, doctor_id, category, status, plan, supply_days, treatment_id, dosage, form_snapshot, images, decided_at, created_at)
       values ($1, $2, 'weight_loss', $3, 'one_off', 28, 'wegovy', '0.25mg', $4::jsonb, $5::jsonb, $6, now() - make_interval(mins => $7)) returning id`,
      [
        p.id,
        i % 2 ? doctorId : null,
        i % 2 ? 'approved' : 'pending_review',
        JSON.stringify([{ step_id: 1, question_key: 'weight', value: 92.5 }, { step_id: 2, question_key: 'ok', value: true }, { step_id: 3, question_key: 'x', value: null }, { step_id: 4, question_key: 'm', values: { a: [1, 'b'] } }]),
        JSON.stringify(i === 2 ? [{ id: 'img_1', url: 'https://x.test/a.jpg', created_at: '2026-01-01T00:00:00.000Z' }] : []),
        i % 2 ? new Date() : null,
        i,
      ],
    ));
    await ctx.db.query(
      `insert into payments (user_id, consultation_id, provider, provider_payment_id, amount_cents, refunded_amount_cents, status, description, captured_at)
       values ($1, $2, 'sandbox', $3, $4, $5, $6, 'Wegovy "0.25mg" \u00e9 \\ end', now())`,
      [p.id, c.id, randomUUID(), 4999 + i, i === 3 ? 1000 : 0, i === 4 ? 'failed' : 'succeeded'],
    );
    if (i % 2) {
      await ctx.db.query(
        `insert into prescriptions (user_id, consultation_id, doctor_id, category, treatment_id, treatment_name, dosage, valid_until)
         values ($1, $2, $3, 'weight_loss', 'wegovy', 'Wegovy', '0.25mg', now() + interval '90 days')`,
        [p.id, c.id, doctorId],
      );
    }
  }
}

describe('response serialisation', () => {
  it('validates with zod outside production and writes from the schema in production', () => {
    expect(defaultSerialisation('production')).toBe('schema');
    expect(defaultSerialisation('test')).toBe('validate');
    expect(defaultSerialisation(undefined)).toBe('validate');
    // The modes really differ: only `validate` refuses a response that breaks its schema.
    const schema = z.object({ a: z.string(), n: z.number().int() });
    const route = { schema, method: 'GET', url: '/x', httpStatus: '200' };
    const validating = responseSerializerCompiler('validate')(route);
    const writing = responseSerializerCompiler('schema')(route);
    expect(writing({ n: 1, a: 'x', extra: true })).toBe('{"a":"x","n":1}');
    expect(validating({ n: 1, a: 'x', extra: true })).toBe('{"a":"x","n":1}');
    expect(() => validating({ a: 1, n: 1 })).toThrow();
    expect(writing({ a: 1, n: 1 })).toBe('{"a":"1","n":1}');
  });

  it('writes the same bytes in both modes on every parameterless GET route and the detail routes', async () => {
    const doctor = await newStaff(ctx, 'doctor');
    const p = await seedPatient(ctx, { city: 'Köln', date_of_birth: '1980-02-29', country_of_residence: 'DEU' });
    await seed(p, doctor.id);
    const c = firstRow(await ctx.db.query('select id from consultations where user_id = $1 and doctor_id is not null limit 1', [p.id]));
    const urls = [
      ...new Set(ctx.app.registeredRoutes.filter((r) => r.method === 'GET' && !r.url.includes(':') && !r.hidden && r.url.startsWith('/v1/')).map((r) => r.url)),
      `/v1/users/consultations/${c.id}/`,
      `/v1/users/consultations/${randomUUID()}/`,
      '/v1/users/consultations/?limit=2&offset=1',
    ];
    let compared = 0;
    for (const url of urls) {
      for (const token of [p.access, doctor.access, undefined]) {
        const a = await call(ctx, 'GET', url, { token, brand: true });
        const b = await call({ app: schemaApp }, 'GET', url, { token, brand: true });
        expect({ url, status: b.status }).toEqual({ url, status: a.status });
        if (String(a.headers['content-type']).startsWith('application/json')) {
          // The data export stamps the time it was made: the one field two requests cannot share.
          const stable = (text: string) => text.replace(/^\{"exported_at":"[^"]+"/, '{"exported_at":"-"');
          expect({ url, body: stable(b.text) }).toEqual({ url, body: stable(a.text) });
          compared++;
        }
      }
    }
    // The consultation list with its nested records is among them, as are errors (401, 404).
    expect(compared).toBeGreaterThan(40);
    const list = await call({ app: schemaApp }, 'GET', '/v1/users/consultations/', { token: p.access });
    expect(list.body.results).toHaveLength(5);
    expect(list.body.results.some((r: { prescriptions: unknown[] }) => r.prescriptions.length > 0)).toBe(true);
  });

  it('leaves fast-json-stringify no union to pick by validation on the consultation list (nullable and primitive unions are rewritten)', () => {
    const json = z.toJSONSchema(pageSchema(ConsultationSchema), { io: 'output', unrepresentable: 'any', target: 'draft-7' });
    expect(JSON.stringify(json)).toMatch(/"anyOf"/);
    expect(JSON.stringify(forSerialisation(json))).not.toMatch(/"(anyOf|oneOf)"/);
    // A union of objects still needs its choice and is kept.
    const objects = { anyOf: [{ type: 'object', properties: { a: { type: 'string' } } }, { type: 'object', properties: { b: { type: 'number' } } }] };
    expect(forSerialisation(objects)).toEqual(objects);
  });
});
