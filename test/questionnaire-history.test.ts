// "A not-suitable result ... afterwards the consultation list shows nothing": the patient's
// questionnaire history (GET /v1/users/questionnaires/submissions/) keeps every outcome, with the
// reasons as stable codes worded in the language asked for, never the answers, and only the account's own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestContext, seedPatient, type Patient, type TestContext } from './support/harness.ts';
import { FIXTURES, v, withAnswers } from './questionnaires.fixtures.ts';
import { withPhotos } from './support/photo-answers.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => {
  await ctx?.close();
});

const patient = () => seedPatient(ctx, { first_name: 'Ada', last_name: 'Test', date_of_birth: '1985-04-12', country_of_residence: 'DEU', gender: '0' });
const wl = (kg: number) => withAnswers(FIXTURES.weight_loss.eligible, v(2, 'weight_kg', kg));
const URL = '/v1/users/questionnaires/submissions/';

async function submit(p: Patient, slug: string, data: unknown[], locale = 'en') {
  const saved = await call(ctx, 'PATCH', `/v1/users/questionnaires/${slug}/progress/`, { token: p.access, json: { data: await withPhotos(ctx, p.access, slug, data) } });
  expect(saved.status, saved.text).toBe(200);
  const r = await call(ctx, 'POST', `/v1/users/questionnaires/${slug}/submit/?locale=${locale}`, { token: p.access });
  expect(r.status, r.text).toBe(200);
  return r.body as { id: string; outcome: string; reasons: { code: string; message: string }[]; alternative: { code: string; message: string } | null };
}

type Item = { id: string; category: string; outcome: string; treatments: string[]; reasons: { code: string; message: string }[]; alternative: { code: string; message: string } | null; created_at: string };

describe('questionnaire history', () => {
  it('keeps a not-suitable outcome with its reason codes, worded in the language asked for', async () => {
    const p = await patient();
    const first = await submit(p, 'weight_loss', wl(62));
    expect(first.outcome).toBe('ineligible');
    expect(first.reasons.length).toBeGreaterThan(0);

    const en = await call(ctx, 'GET', `${URL}?locale=en`, { token: p.access });
    expect(en.status, en.text).toBe(200);
    expect(en.headers['cache-control']).toContain('no-store');
    expect(en.body.count).toBe(1);
    const item = en.body.results[0] as Item;
    expect(item).toMatchObject({ id: first.id, category: 'weight_loss', outcome: 'ineligible' });
    expect(item.reasons.map((r) => r.code)).toEqual(first.reasons.map((r) => r.code));
    expect(item.alternative?.code ?? null).toBe(first.alternative?.code ?? null);
    expect(item.treatments).toEqual([]);
    // Never the answers.
    expect(JSON.stringify(item)).not.toContain('weight_kg');

    // Submitted in English, read in German: the same codes, other words.
    const de = await call(ctx, 'GET', `${URL}?locale=de`, { token: p.access });
    const deItem = de.body.results[0] as Item;
    expect(deItem.reasons.map((r) => r.code)).toEqual(item.reasons.map((r) => r.code));
    expect(deItem.reasons[0]!.message).not.toBe(item.reasons[0]!.message);
    if (item.alternative) expect(deItem.alternative!.message).not.toBe(item.alternative.message);
  });

  it('newest first, every category, paginated', async () => {
    const p = await patient();
    const a = await submit(p, 'weight_loss', wl(62));
    const b = await submit(p, 'hair_growth', FIXTURES.hair_growth.eligible);
    const c = await submit(p, 'weight_loss', wl(105));
    expect(c.outcome).toBe('held_for_review'); // the deciding answer changed: the anti-gaming hold
    const all = await call(ctx, 'GET', URL, { token: p.access });
    expect((all.body.results as Item[]).map((x) => x.id)).toEqual([c.id, b.id, a.id]);
    expect((all.body.results as Item[]).map((x) => x.outcome)).toEqual(['held_for_review', b.outcome, 'ineligible']);
    // Held for a doctor: checkout stays open, with the treatments it allows.
    expect((all.body.results[0] as Item).treatments.length).toBeGreaterThan(0);
    const page = await call(ctx, 'GET', `${URL}?limit=1&offset=1`, { token: p.access });
    expect(page.body.count).toBe(3);
    expect((page.body.results as Item[]).map((x) => x.id)).toEqual([b.id]);
    expect(page.body.next).toContain('offset=2');
  });

  it("another account sees none of it (asked with the other account's real submission id in view) and 401 without a token", async () => {
    const owner = await patient();
    const other = await patient();
    const mine = await submit(owner, 'weight_loss', wl(62));
    const theirs = await call(ctx, 'GET', URL, { token: other.access });
    expect(theirs.status).toBe(200);
    expect(theirs.body.count).toBe(0);
    expect(JSON.stringify(theirs.body)).not.toContain(mine.id);
    const anon = await call(ctx, 'GET', URL);
    expect(anon.status).toBe(401);
  });
});
