// Red flags and the patient's privacy rights (docs/privacy.md, "Red flags"): the data export lists the
// account's flags; erasure empties their excerpts (the patient's words), keeps the clinical record of
// what was raised and done, and closes the open ones so that they leave the desk.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../src/modules/accounts/passwords.ts';
import { call, createTestContext, firstRow, newStaff, PASSWORD, seedPatient, type Patient, type TestContext } from './support/harness.ts';

let ctx: TestContext;
let doctor: Patient;
beforeAll(async () => {
  ctx = await createTestContext();
  doctor = await newStaff(ctx, 'doctor');
});
afterAll(async () => ctx?.close());

/** A patient with a password and an approved consultation (the journal is open to them). */
async function flagged(_tag: string) {
  const p = await seedPatient(ctx, { password_hash: await hashPassword(PASSWORD), country_of_residence: 'DEU', locale: 'de' });
  await ctx.db.query("insert into consultations (user_id, category, status, plan, supply_days, decided_at) values ($1, 'weight_loss', 'approved', 'one_off', 28, now())", [p.id]);
  const note = await call(ctx, 'POST', '/v1/users/journal/notes/', { token: p.access, json: { content: 'I want to kill myself' } });
  const flags = await ctx.db.query('select id from red_flags where user_id = $1', [p.id]);
  return { p, note, flags };
}

describe('red flags in the export and at erasure', () => {
  it('are exported with the words that raised them', async () => {
    const { p, flags } = await flagged('rfexport');
    if (flags.length === 0) return expect.fail('the note raised no flag (a journal needs an active plan?)');
    const res = await call(ctx, 'GET', '/v1/users/me/export/', { token: p.access });
    expect(res.status, res.text).toBe(200);
    const body = JSON.parse(res.text);
    expect(body.red_flags).toEqual([expect.objectContaining({ id: flags[0]!.id, kind: 'emergency', excerpt: expect.stringContaining('kill myself'), resolved_at: null })]);
  });

  it('lose their excerpt and leave the desk when the account is erased; the record of what was raised stays', async () => {
    const { p, flags } = await flagged('rferase');
    expect(flags).toHaveLength(1);
    const onDesk = async () => (await call(ctx, 'GET', '/v1/clinician/red-flags/?limit=200', { token: doctor.access })).body.results.map((f: { id: string }) => f.id);
    expect(await onDesk()).toContain(flags[0]!.id);
    const erased = await call(ctx, 'DELETE', '/v1/users/me/', { token: p.access, json: { password: PASSWORD } });
    expect(erased.status, erased.text).toBe(204);
    const row = firstRow(await ctx.db.query('select excerpt, excerpt_enc, excerpt_hash, evidence, evidence_enc, kind, categories, resolved_at, resolution from red_flags where id = $1', [flags[0]!.id]));
    expect(row).toMatchObject({ excerpt: null, excerpt_enc: null, excerpt_hash: null, evidence: null, evidence_enc: null, kind: 'emergency', resolved_at: expect.any(Date), resolution: expect.stringMatching(/erased/) });
    expect(row.categories.length).toBeGreaterThan(0);
    expect(await onDesk()).not.toContain(flags[0]!.id);
  });
});
