// Profile over HTTP: every field, validation, read-only fields, encryption at rest, account scoping.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestContext, newPatient, seedPatient, type TestContext, firstRow } from './support/harness.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => ctx?.close());

const patch = (token: string, json: unknown) => call(ctx, 'PATCH', '/v1/users/profile/me/', { token, json });
const yearsAgo = (years: number, days = 0) => {
  const d = new Date();
  d.setUTCFullYear(d.getUTCFullYear() - years);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
};

describe('profile', () => {
  it('answers every field of spec 2.2 on both paths, with defaults for a new patient', async () => {
    const p = await newPatient(ctx, 'fields');
    const a = await call(ctx, 'GET', '/v1/users/profile/', { token: p.access });
    const b = await call(ctx, 'GET', '/v1/users/profile/me/', { token: p.access });
    expect(a.status).toBe(200);
    expect(b.body).toEqual(a.body);
    expect(a.body).toEqual({
      id: p.id, email: p.email, first_name: 'Ada', last_name: 'Lovelace', date_of_birth: null, gender: null,
      country_of_residence: null, timezone: '', locale: 'en', city: null, postal_code: null, issuing_state: '',
      document_number: '', document_type: null, addresses: [], is_doctor: false, is_backoffice_admin: false,
      is_marketer: false, is_referrer: false,
      forms_completed: { hair_growth: false, weight_loss: false, sexual_health: false, premature_ejaculation: false, chlamydia: false,
        urinary_tract_infection: false, emergency_contraception: false, hiv_prep: false },
      orders: [],
      // The one field beyond spec 2.2: the patient's own doctor, a documented extension (docs/profile.md).
      gp: null,
    });
    expect(a.headers['cache-control']).toBe('no-store');
  });

  it('saves valid fields, normalises the country code and keeps the others', async () => {
    const p = await seedPatient(ctx);
    const r = await patch(p.access, {
      date_of_birth: yearsAgo(18), gender: 1, country_of_residence: 'deu', timezone: 'Europe/Berlin', locale: 'de', city: 'Berlin',
      postal_code: '10115', issuing_state: 'Germany', document_number: 'C01X00T47', document_type: 'ID_CARD',
      addresses: [{ line1: 'Unter den Linden 1', city: 'Berlin', postal_code: '10117', country: 'DEU', is_default: true }],
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ gender: '1', country_of_residence: 'DEU', timezone: 'Europe/Berlin', document_number: 'C01X00T47', first_name: 'Ada' });
    expect(r.body.addresses).toEqual([{ label: '', line1: 'Unter den Linden 1', line2: '', city: 'Berlin', postal_code: '10117', country: 'DEU', is_default: true }]);
    const again = await patch(p.access, { city: null });
    expect(again.body).toMatchObject({ city: null, postal_code: '10115', locale: 'de' });
  });

  it('stores the identity document number encrypted', async () => {
    const p = await seedPatient(ctx);
    await patch(p.access, { document_number: 'X1234567' });
    const row = firstRow(await ctx.db.query('select document_number_enc from users where id = $1', [p.id]));
    expect(row.document_number_enc).toMatch(/^v2\.db\./);
    expect(row.document_number_enc).not.toContain('X1234567');
  });

  it('answers field-keyed 400s for every rule', async () => {
    const p = await seedPatient(ctx);
    const cases: [Record<string, unknown>, string][] = [
      [{ date_of_birth: '12/04/1985' }, 'date_of_birth'],
      [{ date_of_birth: '1985-02-30' }, 'date_of_birth'],
      [{ date_of_birth: yearsAgo(18, 1) }, 'date_of_birth'],
      [{ date_of_birth: yearsAgo(-1) }, 'date_of_birth'],
      [{ gender: '7' }, 'gender'],
      [{ country_of_residence: 'XXX' }, 'country_of_residence'],
      [{ country_of_residence: 'USA' }, 'country_of_residence'],
      [{ locale: 'ru' }, 'locale'],
      [{ timezone: 'Mars/Olympus' }, 'timezone'],
      [{ timezone: 'x'.repeat(65) }, 'timezone'],
      [{ first_name: 'x'.repeat(151) }, 'first_name'],
      [{ last_name: 'x'.repeat(151) }, 'last_name'],
      [{ city: 'x'.repeat(121) }, 'city'],
      [{ postal_code: '1'.repeat(21) }, 'postal_code'],
      [{ issuing_state: 'x'.repeat(201) }, 'issuing_state'],
      [{ document_number: 'x'.repeat(51) }, 'document_number'],
      [{ document_type: 'DRIVING_LICENCE' }, 'document_type'],
      [{ addresses: [{ line1: '', city: 'Berlin', postal_code: '1', country: 'DEU' }] }, 'addresses.0.line1'],
      [{ addresses: [{ line1: 'a', city: 'b', postal_code: '1', country: 'USA' }] }, 'addresses.0.country'],
    ];
    for (const [json, field] of cases) {
      const r = await patch(p.access, json);
      expect(r.status, JSON.stringify(json)).toBe(400);
      expect(r.body[field], `${JSON.stringify(json)} -> ${r.text}`).toEqual([expect.any(String)]);
    }
    expect((await patch(p.access, { date_of_birth: '12/04/1985' })).body.date_of_birth[0]).toBe(
      'Date has wrong format. Use one of these formats instead: YYYY-MM-DD.',
    );
  });

  it('ignores read-only fields', async () => {
    const p = await seedPatient(ctx);
    const r = await patch(p.access, { is_doctor: true, is_backoffice_admin: true, email: 'other@example.org', id: '00000000-0000-4000-8000-000000000000', forms_completed: { weight_loss: true } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: p.id, email: p.email, is_doctor: false, is_backoffice_admin: false });
    expect(r.body.forms_completed.weight_loss).toBe(false);
  });

  it('reflects submitted questionnaire categories in forms_completed', async () => {
    const p = await seedPatient(ctx);
    await ctx.db.query("insert into questionnaire_submissions (user_id, category, version_id, answers, outcome) values ($1, 'hiv_prep', gen_random_uuid(), '[]', 'ineligible')", [p.id]);
    const r = await call(ctx, 'GET', '/v1/users/profile/', { token: p.access });
    expect(r.body.forms_completed).toMatchObject({ hiv_prep: true, weight_loss: false });
  });

  it('answers a PATCH with the profile as written, the same as the next GET (forms and orders included)', async () => {
    const p = await seedPatient(ctx);
    const other = await seedPatient(ctx);
    await ctx.db.query("insert into questionnaire_submissions (user_id, category, version_id, answers, outcome) values ($1, 'chlamydia', gen_random_uuid(), '[]', 'ineligible')", [p.id]);
    await ctx.db.query("insert into questionnaire_submissions (user_id, category, version_id, answers, outcome) values ($1, 'hair_growth', gen_random_uuid(), '[]', 'ineligible')", [other.id]);
    const r = await patch(p.access, { city: 'Porto', document_number: 'P7654321' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: p.id, city: 'Porto', document_number: 'P7654321', forms_completed: { chlamydia: true, hair_growth: false } });
    const g = await call(ctx, 'GET', '/v1/users/profile/me/', { token: p.access });
    expect(r.body).toEqual(g.body);
  });

  it('only ever shows and changes the caller’s own profile', async () => {
    const a = await seedPatient(ctx);
    const b = await seedPatient(ctx);
    await patch(a.access, { city: 'Lisbon' });
    const rb = await call(ctx, 'GET', '/v1/users/profile/', { token: b.access });
    expect(rb.body.id).toBe(b.id);
    expect(rb.body.city).toBeNull();
  });

  it('never answers 5xx to random PATCH bodies', async () => {
    const p = await seedPatient(ctx);
    const keys = ['date_of_birth', 'gender', 'country_of_residence', 'timezone', 'locale', 'addresses', 'document_type', 'city'];
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.jsonValue(), fc.dictionary(fc.constantFrom(...keys), fc.jsonValue(), { maxKeys: 4 })), async (json) => {
        const r = await patch(p.access, json);
        expect(r.status, `${JSON.stringify(json)} -> ${r.text}`).toBeLessThan(500);
      }),
      { numRuns: 150 },
    );
  });
});
