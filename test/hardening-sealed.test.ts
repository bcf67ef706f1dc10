// Issue 43, second round: what is sealed at rest besides the answers and messages (docs/privacy.md,
// "Encryption at rest"; docs/hardening.md threat model). Red-flag excerpts and evidence (the patient's
// own words), the reasons of prescription reissues and the doctors' decision notes hold no plaintext
// in their rows; the desk's duplicate check compares a keyed hash, never the words; rows from before
// are sealed by the start-up pass (with their hash); `reencrypt` moves them, and the hash, to a new key.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decrypt, sha256 } from '../src/lib/crypto.ts';
import { resealRows, sealPlaintextRows } from '../src/lib/sealed-columns.repository.ts';
import { paySandbox } from './billing-fixtures.ts';
import { FIXTURES } from './questionnaires.fixtures.ts';
import { withPhotos } from './support/photo-answers.ts';
import { anotherInstance, call, createTestContext, firstRow, newStaff, seedPatient, type Patient, type TestContext } from './support/harness.ts';

let ctx: TestContext;
let doctor: Patient;
beforeAll(async () => {
  ctx = await createTestContext();
  doctor = await newStaff(ctx, 'doctor');
});
afterAll(async () => ctx?.close());

const open = (sealed: string) => decrypt(ctx.deps.secrets.documentKeys, sealed);
const WORDS = 'I want to kill myself tonight 9q2x';

async function patient(): Promise<Patient> {
  return seedPatient(ctx, { first_name: 'Ada', last_name: 'Test', date_of_birth: '1985-04-12', country_of_residence: 'DEU', gender: '0' });
}

async function send(p: Patient, content: string) {
  const id = (await call(ctx, 'GET', '/v1/users/conversations/', { token: p.access })).body.results[0].id as string;
  const sent = await call(ctx, 'POST', `/v1/users/conversations/${id}/messages/`, { token: p.access, json: { content } });
  expect(sent.status, sent.text).toBe(201);
  return id;
}

const flagsOf = (p: Patient) => ctx.db.query('select * from red_flags where user_id = $1 order by created_at, id', [p.id]);
const deskRow = async (id: string) => (await call(ctx, 'GET', '/v1/clinician/red-flags/?status=all&limit=200', { token: doctor.access })).body.results.find((f: { id: string }) => f.id === id);

describe('red-flag excerpts sealed at rest', () => {
  it('the row holds neither the words nor the evidence; the desk and the export read them', async () => {
    const p = await patient();
    await send(p, WORDS);
    const rows = await flagsOf(p);
    expect(rows).toHaveLength(1);
    const row = rows[0]!;
    expect(row).toMatchObject({ excerpt: null, evidence: null, excerpt_enc: expect.stringMatching(/^v2\.db\./), evidence_enc: expect.stringMatching(/^v2\.db\./), excerpt_hash: expect.any(String) });
    expect(JSON.stringify(row)).not.toMatch(/kill|myself|9q2x/);
    expect(open(row.excerpt_enc)).toContain('9q2x');
    // The hash is keyed: not the plain SHA-256 of the words (which anyone could recompute from a guess).
    expect(row.excerpt_hash).not.toBe(sha256(open(row.excerpt_enc)));
    const desk = await deskRow(row.id);
    expect(desk.excerpt).toContain('9q2x');
    expect(desk.evidence.length).toBeGreaterThan(0);
    const exported = await call(ctx, 'GET', '/v1/users/me/export/', { token: p.access });
    expect(exported.status, exported.text).toBe(200);
    expect(exported.body.red_flags).toEqual([expect.objectContaining({ id: row.id, excerpt: expect.stringContaining('9q2x') })]);
  });

  it('the same words in the same thread are filed once (keyed hash); other words are a new flag', async () => {
    const p = await patient();
    await send(p, WORDS);
    await send(p, WORDS);
    expect(await flagsOf(p)).toHaveLength(1);
    await send(p, 'I want to kill myself, nobody would notice');
    expect(await flagsOf(p)).toHaveLength(2);
  });

  it('a row from before is sealed by the start-up pass with its hash, and the duplicate check then finds it', async () => {
    const p = await patient();
    const conv = (await call(ctx, 'GET', '/v1/users/conversations/', { token: p.access })).body.results[0].id as string;
    await ctx.db.query(
      `insert into red_flags (user_id, source, source_id, kind, categories, excerpt, evidence, tier, due_at)
       values ($1, 'message', $2, 'emergency', '{suicidal}', $3, $4::jsonb, 'emergency', now())`,
      [p.id, conv, WORDS, JSON.stringify([{ category: 'suicidal', by: 'rule', evidence: ['kill myself'] }])],
    );
    const report = await sealPlaintextRows(ctx.db);
    expect(report.red_flags).toBeGreaterThanOrEqual(1);
    const [row] = await flagsOf(p);
    expect(row).toMatchObject({ excerpt: null, evidence: null, excerpt_hash: expect.any(String) });
    expect(open(row!.excerpt_enc)).toBe(WORDS);
    expect(JSON.parse(open(row!.evidence_enc))).toEqual([{ category: 'suicidal', by: 'rule', evidence: ['kill myself'] }]);
    await send(p, WORDS);
    expect(await flagsOf(p)).toHaveLength(1);
  });

  it('reencrypt moves excerpt, evidence and hash to the new key; before and after, the duplicate check holds', async () => {
    const p = await patient();
    await send(p, WORDS);
    const before = firstRow(await flagsOf(p));
    const next = await anotherInstance(ctx, { DATA_ENCRYPTION_KEYS: `k43:${randomBytes(32).toString('base64url')}` });
    try {
      const id = (await call(next, 'GET', '/v1/users/conversations/', { token: p.access })).body.results[0].id as string;
      // Not re-sealed yet: the new process matches the old hash under the old key.
      expect((await call(next, 'POST', `/v1/users/conversations/${id}/messages/`, { token: p.access, json: { content: WORDS } })).status).toBe(201);
      expect(await flagsOf(p)).toHaveLength(1);
      const report = await resealRows(next.deps.db);
      expect(report.red_flags).toBeGreaterThanOrEqual(2);
      const after = firstRow(await flagsOf(p));
      expect(after.excerpt_enc).toMatch(/^v2\.k43\./);
      expect(after.evidence_enc).toMatch(/^v2\.k43\./);
      expect(after.excerpt_hash).not.toBe(before.excerpt_hash);
      expect((await call(next, 'POST', `/v1/users/conversations/${id}/messages/`, { token: p.access, json: { content: WORDS } })).status).toBe(201);
      expect(await flagsOf(p)).toHaveLength(1);
      const desk = (await call(next, 'GET', '/v1/clinician/red-flags/?status=all&limit=200', { token: doctor.access })).body.results.find((f: { id: string }) => f.id === before.id);
      expect(desk.excerpt).toBe(WORDS);
    } finally {
      await next.close();
    }
  });
});

describe('reissue reasons and decision notes sealed at rest', () => {
  async function prescribed(note: string): Promise<{ p: Patient; rxId: string; consultationId: string }> {
    const p = await patient();
    expect((await call(ctx, 'PATCH', '/v1/users/questionnaires/hair_growth/progress/', { token: p.access, json: { data: await withPhotos(ctx, p.access, 'hair_growth', FIXTURES.hair_growth.eligible) } })).status).toBe(200);
    expect((await call(ctx, 'POST', '/v1/users/questionnaires/hair_growth/submit/', { token: p.access })).body.outcome).toBe('eligible');
    const { session } = await paySandbox(ctx, p, { category: 'hair_growth', plan: 'one_off' });
    const approved = await call(ctx, 'POST', `/v1/clinician/consultations/${session.consultation_id}/approve/`, { token: doctor.access, json: { note } });
    expect(approved.status, approved.text).toBe(200);
    const list = await call(ctx, 'GET', '/v1/users/prescriptions/', { token: p.access });
    return { p, rxId: list.body.results[0].id, consultationId: session.consultation_id };
  }

  it("the doctor's note on a consultation is sealed; the patient and the desk read it", async () => {
    const { p, consultationId } = await prescribed('Watch the scalp irritation 5v8w');
    const row = firstRow(await ctx.db.query('select decision_reason, decision_reason_enc from consultations where id = $1', [consultationId]));
    expect(row.decision_reason).toBeNull();
    expect(open(row.decision_reason_enc)).toBe('Watch the scalp irritation 5v8w');
    const mine = await call(ctx, 'GET', `/v1/users/consultations/${consultationId}/`, { token: p.access });
    expect(mine.status, mine.text).toBe(200);
    expect(mine.body.decision_reason).toBe('Watch the scalp irritation 5v8w');
    // Another account: 404, as for any other record.
    const other = await patient();
    expect((await call(ctx, 'GET', `/v1/users/consultations/${consultationId}/`, { token: other.access })).status).toBe(404);
  });

  it("the patient's reason and the doctor's reason of a reissue are sealed; both sides read them", async () => {
    const { p, rxId } = await prescribed('');
    const asked = await call(ctx, 'POST', `/v1/users/prescriptions/${rxId}/reissue-requests/`, { token: p.access, json: { reason: 'The pharmacy lost it 4k7t' } });
    expect(asked.status, asked.text).toBe(201);
    expect(asked.body.reason).toBe('The pharmacy lost it 4k7t');
    const declined = await call(ctx, 'POST', `/v1/clinician/reissue-requests/${asked.body.id}/decline/`, { token: doctor.access, json: { reason: 'Too early for a new one 2h6j' } });
    expect(declined.status, declined.text).toBe(200);
    const row = firstRow(await ctx.db.query('select * from prescription_reissue_requests where id = $1', [asked.body.id]));
    expect(row).toMatchObject({ reason: null, decision_reason: null });
    expect(JSON.stringify(row)).not.toMatch(/4k7t|2h6j/);
    expect(open(row.reason_enc)).toBe('The pharmacy lost it 4k7t');
    expect(open(row.decision_reason_enc)).toBe('Too early for a new one 2h6j');
    const list = await call(ctx, 'GET', '/v1/users/prescriptions/reissue-requests/', { token: p.access });
    expect(list.body.results[0]).toMatchObject({ reason: 'The pharmacy lost it 4k7t', decision_reason: 'Too early for a new one 2h6j' });
  });

  it('rows from before are sealed by the start-up pass', async () => {
    const { p, rxId, consultationId } = await prescribed('');
    await ctx.db.query("update consultations set decision_reason = 'old plaintext note 8c3d', decision_reason_enc = null where id = $1", [consultationId]);
    await ctx.db.query("insert into prescription_reissue_requests (user_id, prescription_id, reason) values ($1, $2, 'old plaintext reason 1n5m')", [p.id, rxId]);
    await sealPlaintextRows(ctx.db);
    const c = firstRow(await ctx.db.query('select decision_reason, decision_reason_enc from consultations where id = $1', [consultationId]));
    expect(c.decision_reason).toBeNull();
    expect(open(c.decision_reason_enc)).toBe('old plaintext note 8c3d');
    const r = firstRow(await ctx.db.query('select reason, reason_enc from prescription_reissue_requests where prescription_id = $1', [rxId]));
    expect(r.reason).toBeNull();
    expect(open(r.reason_enc)).toBe('old plaintext reason 1n5m');
    expect((await call(ctx, 'GET', '/v1/users/prescriptions/reissue-requests/', { token: p.access })).body.results[0].reason).toBe('old plaintext reason 1n5m');
  });
});
