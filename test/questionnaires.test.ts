// HTTP tests of the questionnaires module: public catalogue, drafts, submission outcomes, cross-account.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, completeProfile, createTestContext, seedPatient, type TestContext } from './support/harness.ts';
import { CATEGORY_SLUGS } from '../src/modules/questionnaires/catalogue.ts';
import { FIXTURES, m, v, withAnswers } from './questionnaires.fixtures.ts';
import { withPhotos } from './support/photo-answers.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => {
  await ctx?.close();
});

const patient = async (columns: Record<string, unknown> = {}) =>
  seedPatient(ctx, { first_name: 'Ada', last_name: 'Test', date_of_birth: '1985-04-12', country_of_residence: 'DEU', gender: '0', ...columns });

describe('public catalogue', () => {
  it('lists the eight categories without a token, localised and cacheable', async () => {
    const res = await call(ctx, 'GET', '/v1/users/questionnaires/categories/?locale=de');
    expect(res.status).toBe(200);
    expect(res.body.locale).toBe('de');
    expect(res.body.categories.map((c: any) => c.slug)).toEqual([...CATEGORY_SLUGS]);
    expect(res.body.categories.find((c: any) => c.slug === 'weight_loss').title).toBe('Gewichtsabnahme');
    expect(res.headers['cache-control']).toMatch(/public/);
    const again = await call(ctx, 'GET', '/v1/users/questionnaires/categories/?locale=de', { headers: { 'if-none-match': String(res.headers.etag) } });
    expect(again.status).toBe(304);
  });

  it("serves each treatment's name in the page's locale (English by default)", async () => {
    const names = async (query: string, headers: Record<string, string> = {}) =>
      Object.fromEntries((await call(ctx, 'GET', `/v1/users/questionnaires/hair_growth/schema/${query}`, { headers })).body.treatments.map((t: any) => [t.treatment_id, t.name]));
    expect(await names('?locale=de')).toEqual({ finasteride: 'Finasterid 1 mg Tabletten', minoxidil: 'Minoxidil 5 % Lösung' });
    expect((await names('?locale=fr')).finasteride).toBe('Finastéride 1 mg comprimés');
    expect((await names('', { 'accept-language': 'es-ES, en;q=0.5' })).finasteride).toBe('Finasterida 1 mg comprimidos');
    expect((await names('')).finasteride).toBe('Finasteride 1 mg tablets');
  });

  it("gives each category's lowest one-off and plan prices, the ones its schema's treatments carry", async () => {
    const res = await call(ctx, 'GET', '/v1/users/questionnaires/categories/?locale=en');
    for (const c of res.body.categories) {
      const schema = await call(ctx, 'GET', `/v1/users/questionnaires/${c.slug}/schema/`);
      const treatments: { one_off_price_cents: number; plan_price_cents: number | null; currency: string }[] = schema.body.treatments;
      const plans = treatments.map((t) => t.plan_price_cents).filter((p): p is number => p !== null);
      expect(c.price_from, c.slug).toEqual({
        currency: treatments[0]!.currency,
        one_off_cents: Math.min(...treatments.map((t) => t.one_off_price_cents)),
        plan_cents: plans.length ? Math.min(...plans) : null,
      });
    }
  });

  it('serves every schema publicly, by Accept-Language, with ETag and 304', async () => {
    for (const slug of CATEGORY_SLUGS) {
      const res = await call(ctx, 'GET', `/v1/users/questionnaires/${slug}/schema/`);
      expect(res.status, slug).toBe(200);
      expect(res.body.slug).toBe(slug);
      expect(res.body.steps.length).toBeGreaterThan(0);
      expect(res.body.treatments.length).toBeGreaterThan(0);
      expect(res.body).not.toHaveProperty('rules');
    }
    const fr = await call(ctx, 'GET', '/v1/users/questionnaires/weight_loss/schema/', { headers: { 'accept-language': 'fr-CH, en;q=0.5' } });
    expect(fr.body.locale).toBe('fr');
    expect(fr.body.title).toBe('Perte de poids');
    const etag = String(fr.headers.etag);
    expect(etag).toBeTruthy();
    const cached = await call(ctx, 'GET', '/v1/users/questionnaires/weight_loss/schema/', { headers: { 'accept-language': 'fr-CH, en;q=0.5', 'if-none-match': etag } });
    expect(cached.status).toBe(304);
    const other = await call(ctx, 'GET', '/v1/users/questionnaires/weight_loss/schema/?locale=it', { headers: { 'if-none-match': etag } });
    expect(other.status).toBe(200);
    const unknown = await call(ctx, 'GET', '/v1/users/questionnaires/astrology/schema/');
    expect(unknown.status).toBe(404);
    expect(unknown.body.detail).toMatch(/astrology/);
  });
});

describe('drafts', () => {
  it('needs a token; empty draft first; unknown category 404 naming it', async () => {
    expect((await call(ctx, 'GET', '/v1/users/questionnaires/weight_loss/progress/')).status).toBe(401);
    const p = await patient();
    const res = await call(ctx, 'GET', '/v1/users/questionnaires/weight_loss/progress/', { token: p.access });
    expect(res.status).toBe(200);
    expect(res.body.progress.data).toEqual([]);
    const schema = await call(ctx, 'GET', '/v1/users/questionnaires/weight_loss/schema/');
    expect(res.body.progress.category).toBe(schema.body.id);
    expect(res.body.progress.version).toBe(schema.body.version);
    const unknown = await call(ctx, 'PATCH', '/v1/users/questionnaires/astrology/progress/', { token: p.access, json: { data: [] } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.detail).toMatch(/astrology/);
  });

  it('reading a draft writes nothing: the empty draft has a stable id that the first save keeps, and a new one after submitting', async () => {
    const p = await patient({ gender: FIXTURES.weight_loss.gender });
    const url = '/v1/users/questionnaires/weight_loss/progress/';
    const first = await call(ctx, 'GET', url, { token: p.access });
    const again = await call(ctx, 'GET', url, { token: p.access });
    expect(first.status).toBe(200);
    expect(again.text).toBe(first.text);
    const rows = await ctx.db.query('select id from questionnaire_drafts where user_id = $1', [p.id]);
    expect(rows).toEqual([]);
    const saved = await call(ctx, 'PATCH', url, { token: p.access, json: { data: FIXTURES.weight_loss.eligible } });
    expect(saved.body.progress.id).toBe(first.body.progress.id);
    expect((await call(ctx, 'POST', '/v1/users/questionnaires/weight_loss/submit/', { token: p.access })).body.outcome).toBe('eligible');
    const next = await call(ctx, 'GET', url, { token: p.access });
    expect(next.body.progress.data).toEqual([]);
    expect(next.body.progress.id).not.toBe(first.body.progress.id);
    const nextSave = await call(ctx, 'PATCH', url, { token: p.access, json: { data: [v(2, 'weight_kg', 91)] } });
    expect(nextSave.body.progress.id).toBe(next.body.progress.id);
  });

  it('replaces the whole answer array', async () => {
    const p = await patient();
    const url = '/v1/users/questionnaires/weight_loss/progress/';
    const first = await call(ctx, 'PATCH', url, { token: p.access, json: { data: [v(2, 'height_cm', 180), v(2, 'weight_kg', 90)] } });
    expect(first.status).toBe(200);
    expect(first.body.progress.data).toHaveLength(2);
    const second = await call(ctx, 'PATCH', url, { token: p.access, json: { data: [v(2, 'weight_kg', 91)] } });
    expect(second.body.progress.data).toEqual([v(2, 'weight_kg', 91)]);
    expect(second.body.progress.id).toBe(first.body.progress.id);
    const got = await call(ctx, 'GET', url, { token: p.access });
    expect(got.body.progress.data).toEqual([v(2, 'weight_kg', 91)]);
  });

  it.each([
    [[v(2, 'shoe_size', 42)], 'data[0].question_key'],
    [[v(3, 'height_cm', 180)], 'data[0].step_id'],
    [[v(2, 'height_cm', 180), v(2, 'weight_kg', 'heavy')], 'data[1].value'],
    [[v(2, 'height_cm', 20)], 'data[0].value'],
    [[v(3, 'pancreatitis_history', 'no')], 'data[0].value'],
    [[m(2, 'weight_conditions', ['unicorn'])], 'data[0].values'],
    [[m(2, 'weight_conditions', ['none', 'hypertension'])], 'data[0].values'],
    [[v(2, 'height_cm', 180), v(2, 'height_cm', 181)], 'data[1].question_key'],
    [[{ step_id: 2, question_key: 'weight_conditions', value: 'hypertension' }], 'data[0].values'],
  ])('refuses invalid answers with a field-keyed 400 (%#)', async (data, key) => {
    const p = await patient();
    const res = await call(ctx, 'PATCH', '/v1/users/questionnaires/weight_loss/progress/', { token: p.access, json: { data } });
    expect(res.status).toBe(400);
    expect(res.body[key as string], JSON.stringify(res.body)).toBeTruthy();
  });

  it('refuses unknown fields in an item and a missing data array', async () => {
    const p = await patient();
    const bad = await call(ctx, 'PATCH', '/v1/users/questionnaires/weight_loss/progress/', { token: p.access, json: { data: [{ ...v(2, 'height_cm', 180), extra: 1 }] } });
    expect(bad.status).toBe(400);
    const missing = await call(ctx, 'PATCH', '/v1/users/questionnaires/weight_loss/progress/', { token: p.access, json: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.data).toBeTruthy();
  });

  it('reports a red flag on draft save with the country’s emergency number', async () => {
    const p = await patient({ country_of_residence: 'GBR' });
    const res = await call(ctx, 'PATCH', '/v1/users/questionnaires/hair_growth/progress/', { token: p.access, json: { data: [m(1, 'urgent_symptoms', ['chest_pain'])] } });
    expect(res.status).toBe(200);
    expect(res.body.emergency.number).toBe('999');
    expect(res.body.emergency.codes).toContain('RED_FLAG_CHEST_PAIN');
    const get = await call(ctx, 'GET', '/v1/users/questionnaires/hair_growth/progress/', { token: p.access });
    expect(get.body.emergency.number).toBe('999');
    const ok = await call(ctx, 'PATCH', '/v1/users/questionnaires/hair_growth/progress/', { token: p.access, json: { data: [m(1, 'urgent_symptoms', ['none'])] } });
    expect(ok.body.emergency).toBeNull();
  });

  it('a token only ever sees its own draft', async () => {
    const a = await patient();
    const b = await patient();
    await call(ctx, 'PATCH', '/v1/users/questionnaires/chlamydia/progress/', { token: a.access, json: { data: [v(2, 'positive_naat', true)] } });
    const seen = await call(ctx, 'GET', '/v1/users/questionnaires/chlamydia/progress/', { token: b.access });
    expect(seen.body.progress.data).toEqual([]);
    const submitB = await call(ctx, 'POST', '/v1/users/questionnaires/chlamydia/submit/', { token: b.access });
    expect(submitB.status).toBe(400);
    expect(submitB.body.error_name).toBe('QUESTIONNAIRE_INCOMPLETE');
  });
});

async function submitWith(slug: string, data: unknown[], token: string) {
  const saved = await call(ctx, 'PATCH', `/v1/users/questionnaires/${slug}/progress/`, { token, json: { data: await withPhotos(ctx, token, slug, data) } });
  expect(saved.status, saved.text).toBe(200);
  return call(ctx, 'POST', `/v1/users/questionnaires/${slug}/submit/`, { token });
}

describe('submit: all three outcomes for every category', () => {
  for (const slug of CATEGORY_SLUGS) {
    it(slug, async () => {
      const fx = FIXTURES[slug];
      const p = await patient({ gender: fx.gender });
      const ok = await submitWith(slug, fx.eligible, p.access);
      expect(ok.status, ok.text).toBe(200);
      expect(ok.body.outcome, ok.text).toBe('eligible');
      expect(ok.body.next_step).toBe('checkout');
      expect(ok.body.treatments.length).toBeGreaterThan(0);
      const draftAfter = await call(ctx, 'GET', `/v1/users/questionnaires/${slug}/progress/`, { token: p.access });
      expect(draftAfter.body.progress.data).toEqual([]);

      const q = await patient({ gender: fx.gender });
      const no = await submitWith(slug, fx.ineligible, q.access);
      expect(no.body.outcome, no.text).toBe('ineligible');
      expect(no.body.reasons.length).toBeGreaterThan(0);
      expect(no.body.reasons[0].source).toBeTruthy();
      expect(no.body.alternative.message).toBeTruthy();
      expect(no.body.treatments).toEqual([]);

      const r = await patient({ gender: fx.gender, country_of_residence: 'IRL' });
      const em = await submitWith(slug, fx.emergency, r.access);
      expect(em.body.outcome, em.text).toBe('emergency');
      expect(em.body.emergency.numbers).toEqual(expect.arrayContaining(['112']));
      expect(em.body.treatments).toEqual([]);

      const profile = await call(ctx, 'GET', '/v1/users/profile/me/', { token: p.access });
      expect(profile.body.forms_completed[slug]).toBe(true);
    });
  }
});

describe('submit rules', () => {
  it('refuses an incomplete profile with PROFILE_INCOMPLETE', async () => {
    const p = await seedPatient(ctx, { first_name: 'A', last_name: 'B', gender: '0' });
    const res = await call(ctx, 'POST', '/v1/users/questionnaires/hair_growth/submit/', { token: p.access });
    expect(res.status).toBe(400);
    expect(res.body.error_name).toBe('PROFILE_INCOMPLETE');
    expect(res.body.missing_fields).toEqual(expect.arrayContaining(['date_of_birth', 'country_of_residence']));
    await completeProfile(ctx, p);
    const after = await call(ctx, 'POST', '/v1/users/questionnaires/hair_growth/submit/', { token: p.access });
    expect(after.body.error_name).toBe('QUESTIONNAIRE_INCOMPLETE');
  });

  it('refuses a draft missing required visible answers, naming them', async () => {
    const p = await patient();
    const res = await submitWith('hair_growth', FIXTURES.hair_growth.eligible.slice(0, 2), p.access);
    expect(res.status).toBe(400);
    expect(res.body.missing_answers).toEqual(['bph_5ari', 'depression_history', 'prostate_testing', 'hypersensitivity', 'pregnant_contact']);
  });

  it('hidden questions are not required (pregnancy questions for a man)', async () => {
    const p = await patient({ gender: '1' });
    const res = await submitWith('weight_loss', FIXTURES.weight_loss.eligible, p.access);
    expect(res.status).toBe(400);
    expect(res.body.missing_answers).toEqual(['pregnant_or_planning', 'oral_contraceptive']);
  });

  it('holds for review a resubmission that changes the deciding answer', async () => {
    const p = await patient();
    const no = await submitWith('weight_loss', FIXTURES.weight_loss.ineligible, p.access);
    expect(no.body.outcome).toBe('ineligible');
    const again = await submitWith('weight_loss', FIXTURES.weight_loss.eligible, p.access);
    expect(again.body.outcome).toBe('held_for_review');
    expect(again.body.next_step).toBe('checkout');
    expect(again.body.message).toMatch(/doctor/i);
  });

  it('a BMI-based refusal cannot be undone by changing the weight', async () => {
    const p = await patient();
    const low = await submitWith('weight_loss', withAnswers(FIXTURES.weight_loss.eligible, v(2, 'weight_kg', 70)), p.access);
    expect(low.body.outcome).toBe('ineligible');
    expect(low.body.reasons.map((r: any) => r.code)).toContain('BMI_BELOW_27');
    const high = await submitWith('weight_loss', FIXTURES.weight_loss.eligible, p.access);
    expect(high.body.outcome).toBe('held_for_review');
  });

  it('holds for review a resubmission that withdraws a red-flag answer', async () => {
    const p = await patient();
    const em = await submitWith('sexual_health', FIXTURES.sexual_health.emergency, p.access);
    expect(em.body.outcome).toBe('emergency');
    const again = await submitWith('sexual_health', FIXTURES.sexual_health.eligible, p.access);
    expect(again.body.outcome).toBe('held_for_review');
    const third = await submitWith('sexual_health', FIXTURES.sexual_health.eligible, p.access);
    expect(third.body.outcome).toBe('held_for_review');
  });

  it('an unchanged deciding answer stays ineligible; unrelated changes do not hold an eligible patient', async () => {
    const p = await patient();
    expect((await submitWith('hiv_prep', FIXTURES.hiv_prep.ineligible, p.access)).body.outcome).toBe('ineligible');
    const same = await submitWith('hiv_prep', withAnswers(FIXTURES.hiv_prep.ineligible, v(2, 'nephrotoxic_drugs', true)), p.access);
    expect(same.body.outcome).toBe('ineligible');
    const q = await patient();
    expect((await submitWith('hiv_prep', FIXTURES.hiv_prep.eligible, q.access)).body.outcome).toBe('eligible');
    expect((await submitWith('hiv_prep', withAnswers(FIXTURES.hiv_prep.eligible, v(2, 'nephrotoxic_drugs', true)), q.access)).body.outcome).toBe('eligible');
  });

  it('parallel submissions of one draft store one submission', async () => {
    const p = await patient();
    await call(ctx, 'PATCH', '/v1/users/questionnaires/hiv_prep/progress/', { token: p.access, json: { data: FIXTURES.hiv_prep.eligible } });
    const results = await Promise.all(Array.from({ length: 5 }, () => call(ctx, 'POST', '/v1/users/questionnaires/hiv_prep/submit/', { token: p.access })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    const rows = await ctx.db.query('select count(*)::int as n from questionnaire_submissions where user_id = $1', [p.id]);
    expect(rows[0]?.n).toBe(1);
  });

  it('submit needs a token and names an unknown category', async () => {
    expect((await call(ctx, 'POST', '/v1/users/questionnaires/hiv_prep/submit/')).status).toBe(401);
    const p = await patient();
    const res = await call(ctx, 'POST', '/v1/users/questionnaires/tarot/submit/', { token: p.access });
    expect(res.status).toBe(404);
    expect(res.body.detail).toMatch(/tarot/);
  });
});

describe('robustness', () => {
  it('never answers 5xx to random PATCH bodies, and submit after them never 5xx', async () => {
    const p = await patient();
    const item = fc.record(
      {
        step_id: fc.oneof(fc.integer({ min: -2, max: 4 }), fc.jsonValue()),
        question_key: fc.oneof(fc.constantFrom('height_cm', 'weight_kg', 'urgent_symptoms', 'weight_conditions', 'glp1_allergy', 'x'), fc.jsonValue()),
        value: fc.jsonValue(),
        values: fc.oneof(fc.dictionary(fc.constantFrom('none', 'chest_pain', 'hypertension', 'zzz'), fc.jsonValue()), fc.jsonValue()),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.jsonValue(), fc.record({ data: fc.array(item, { maxLength: 6 }) })), async (json) => {
        const res = await call(ctx, 'PATCH', '/v1/users/questionnaires/weight_loss/progress/', { token: p.access, json });
        expect(res.status, res.text).toBeLessThan(500);
        if (res.status === 200) {
          const sub = await call(ctx, 'POST', '/v1/users/questionnaires/weight_loss/submit/', { token: p.access });
          expect(sub.status, sub.text).toBeLessThan(500);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('latestEligibleSubmission returns the latest payable submission only', async () => {
    const { latestEligibleSubmission } = await import('../src/modules/questionnaires/service.ts');
    const p = await patient();
    expect(await latestEligibleSubmission(ctx.db, p.id, 'hiv_prep')).toBeNull();
    const ok = await submitWith('hiv_prep', FIXTURES.hiv_prep.eligible, p.access);
    const got = await latestEligibleSubmission(ctx.db, p.id, 'hiv_prep');
    expect(got?.id).toBe(ok.body.id);
    expect(got?.answers).toEqual(FIXTURES.hiv_prep.eligible);
    await submitWith('hiv_prep', FIXTURES.hiv_prep.emergency, p.access);
    expect(await latestEligibleSubmission(ctx.db, p.id, 'hiv_prep')).toBeNull();
    const other = await patient();
    expect(await latestEligibleSubmission(ctx.db, other.id, 'hiv_prep')).toBeNull();
  });
});

describe('checkout integration', () => {
  it('an eligible or held submission can be paid for; ineligible and emergency cannot', async () => {
    const p = await patient();
    await submitWith('weight_loss', FIXTURES.weight_loss.eligible, p.access);
    const ok = await call(ctx, 'POST', '/v1/users/checkout/', { token: p.access, json: { category: 'weight_loss', plan: 'subscription' } });
    expect(ok.status, ok.text).toBe(200);
    for (const kind of ['ineligible', 'emergency'] as const) {
      const q = await patient();
      await submitWith('hair_growth', FIXTURES.hair_growth[kind], q.access);
      const no = await call(ctx, 'POST', '/v1/users/checkout/', { token: q.access, json: { category: 'hair_growth', plan: 'one_off' } });
      expect(no.status).toBe(400);
      expect(no.body).toMatchObject({ error_name: 'SUBMISSION_NOT_ELIGIBLE', outcome: kind });
    }
  });
});

describe('prototype-named fields', () => {
  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty'])('an unknown body field "%s" is a field-keyed 400', async (key) => {
    const p = await patient();
    const res = await ctx.app.inject({
      method: 'PATCH',
      url: '/v1/users/questionnaires/weight_loss/progress/',
      headers: { authorization: `Bearer ${p.access}`, 'content-type': 'application/json' },
      payload: `{"data": [], "${key}": 1}`,
    });
    expect(res.statusCode, res.body).toBe(400);
  });
});
