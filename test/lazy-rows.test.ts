// Rows stored lazily at their first write (the patient's conversation, a questionnaire draft) must
// take parallel first writes: every request 2xx, one row (23505 on conversations_pkey).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestContext, seedPatient, type TestContext } from './support/harness.ts';
import { FIXTURES, v } from './questionnaires.fixtures.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => ctx?.close());

const N = 16;

describe('parallel first writes', () => {
  it('16 parallel messages to a conversation never stored: all 201, one conversation, 16 messages', async () => {
    const p = await seedPatient(ctx, { country_of_residence: 'DEU' });
    const other = await seedPatient(ctx, { country_of_residence: 'DEU' });
    const id = (await call(ctx, 'GET', '/v1/users/conversations/', { token: p.access })).body.results[0].id as string;
    expect(await ctx.db.query('select id from conversations where user_id = $1', [p.id])).toEqual([]);
    const answers = await Promise.all(
      Array.from({ length: N }, (_, i) => call(ctx, 'POST', `/v1/users/conversations/${id}/messages/`, { token: p.access, json: { content: `Question ${i}` } })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array.from({ length: N }, () => 201));
    expect(await ctx.db.query('select id from conversations where user_id = $1', [p.id])).toEqual([{ id }]);
    expect((await ctx.db.query('select count(*)::int as n from messages where conversation_id = $1', [id]))[0]?.n).toBe(N);
    // Another account posting to this (real) conversation id: the same 404 as a missing one.
    const theirs = await call(ctx, 'POST', `/v1/users/conversations/${id}/messages/`, { token: other.access, json: { content: 'hello' } });
    expect(theirs.status).toBe(404);
  });

  it('16 parallel first saves of a draft: all 200, one draft under the id it was shown with', async () => {
    const p = await seedPatient(ctx, { first_name: 'Ada', last_name: 'Test', date_of_birth: '1985-04-12', country_of_residence: 'DEU', gender: FIXTURES.weight_loss.gender });
    const url = '/v1/users/questionnaires/weight_loss/progress/';
    const shown = (await call(ctx, 'GET', url, { token: p.access })).body.progress.id as string;
    const answers = await Promise.all(
      Array.from({ length: N }, (_, i) => call(ctx, 'PATCH', url, { token: p.access, json: { data: [v(2, 'height_cm', 180), v(2, 'weight_kg', 80 + i)] } })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array.from({ length: N }, () => 200));
    expect(new Set(answers.map((a) => a.body.progress.id as string))).toEqual(new Set([shown]));
    expect(await ctx.db.query('select id from questionnaire_drafts where user_id = $1', [p.id])).toEqual([{ id: shown }]);
    // Later parallel saves (the row exists) still all succeed.
    const again = await Promise.all(Array.from({ length: 4 }, () => call(ctx, 'PATCH', url, { token: p.access, json: { data: [v(2, 'weight_kg', 70)] } })));
    expect(again.map((a) => a.status)).toEqual([200, 200, 200, 200]);
  });
});
