// Property-based bad input: random JSON at every account and profile endpoint never yields a 5xx.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestContext, seedPatient, type Patient, type TestContext } from './support/harness.ts';

let ctx: TestContext;
let patient: Patient;
beforeAll(async () => {
  ctx = await createTestContext({ REGISTRATIONS_PER_IP: '100000', SIGNIN_FAILURES_PER_IP: '100000', SIGNIN_FAILURES_PER_ACCOUNT: '100000' });
  patient = await seedPatient(ctx);
});
afterAll(async () => ctx?.close());

const ENDPOINTS: [string, string, boolean][] = [
  ['POST', '/v1/users/register/', false],
  ['POST', '/v1/users/verify-email/', false],
  ['POST', '/v1/users/token/', false],
  ['POST', '/v1/users/token/refresh/', false],
  ['POST', '/v1/users/google-login/', false],
  ['POST', '/v1/users/forgot-password/', false],
  ['POST', '/v1/users/reset-password/', false],
  ['POST', '/v1/users/logout/', true],
  ['PATCH', '/v1/users/profile/me/', true],
];

const FIELDS = ['email', 'password', 'otp', 'refresh', 'credential', 'token', 'first_name', 'last_name', 'locale', 'date_of_birth', 'gender',
  'country_of_residence', 'timezone', 'city', 'postal_code', 'addresses', 'document_type', 'document_number', 'referral_code'];

// Objects biased toward the real field names, with values of every JSON type.
const body = fc.oneof(
  fc.jsonValue(),
  fc.dictionary(fc.constantFrom(...FIELDS), fc.jsonValue(), { maxKeys: 6 }),
  fc.dictionary(fc.constantFrom(...FIELDS), fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.boolean()), { maxKeys: 6 }),
);

describe('random JSON', () => {
  for (const [method, path, auth] of ENDPOINTS) {
    it(`${method} ${path} never answers 5xx`, async () => {
      await fc.assert(
        fc.asyncProperty(body, async (json) => {
          const r = await call(ctx, method, path, { brand: true, token: auth ? patient.access : undefined, json });
          expect(r.status, `${JSON.stringify(json)} -> ${r.text}`).toBeLessThan(500);
        }),
        { numRuns: 60 },
      );
    });
  }

  it('malformed JSON bodies are a 400, not a 5xx', async () => {
    for (const payload of ['{', '[1,', 'null', '"x"', '{"email": }']) {
      const r = await call(ctx, 'POST', '/v1/users/register/', { brand: true, payload, headers: { 'content-type': 'application/json' } });
      expect(r.status, payload).toBe(400);
    }
  });
});
