// Encryption at rest (docs/privacy.md): answers, form snapshots, message bodies, journal
// notes and side-effect notes are sealed with the data keys. Written through HTTP, the raw rows hold
// no plaintext, the API answers the plaintext; rows from before are sealed by the start-up pass;
// `reencrypt` moves every value to the active key; another account still sees nothing.
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resealRows, sealedKeyCounts, sealPlaintextRows } from '../src/lib/sealed-columns.repository.ts';
import { decrypt } from '../src/lib/crypto.ts';
import { resealStoredFiles } from '../src/modules/messages/index.ts';
import { addSubmission, paySandbox, readyPatient, staff } from './billing-fixtures.ts';
import { FIXTURES } from './questionnaires.fixtures.ts';
import { anotherInstance, call, createTestContext, firstRow, seedPatient, type Patient, type TestContext } from './support/harness.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => {
  await ctx?.close();
});

const open = (sealed: string) => decrypt(ctx.deps.secrets.documentKeys, sealed);
/** Every text column of a row, joined: what a stolen table would show. */
const raw = (row: unknown) => JSON.stringify(row);
const SECRET = 'my private pancreatitis worry 7g3k';

async function patient(): Promise<Patient> {
  return seedPatient(ctx, { first_name: 'Ada', last_name: 'Test', date_of_birth: '1985-04-12', country_of_residence: 'DEU', gender: '0' });
}

async function sendMessage(p: Patient, content: string) {
  const id = (await call(ctx, 'GET', '/v1/users/conversations/', { token: p.access })).body.results[0].id as string;
  const sent = await call(ctx, 'POST', `/v1/users/conversations/${id}/messages/`, { token: p.access, json: { content } });
  expect(sent.status, sent.text).toBe(201);
  return id;
}

describe('sealed on write, opened on read', () => {
  it('questionnaire draft and submission: the rows hold no answer, the API gives them back', async () => {
    const p = await patient();
    const answers = FIXTURES.weight_loss.eligible;
    const saved = await call(ctx, 'PATCH', '/v1/users/questionnaires/weight_loss/progress/', { token: p.access, json: { data: answers } });
    expect(saved.status, saved.text).toBe(200);
    const draft = firstRow(await ctx.db.query('select * from questionnaire_drafts where user_id = $1', [p.id]));
    expect(draft.data).toBeNull();
    expect(draft.data_enc).toMatch(/^v2\.db\./);
    expect(raw(draft)).not.toContain('weight_kg');
    expect(JSON.parse(open(draft.data_enc))).toEqual(answers);
    const back = await call(ctx, 'GET', '/v1/users/questionnaires/weight_loss/progress/', { token: p.access });
    expect(back.status).toBe(200);
    expect(JSON.stringify(back.body)).toContain('weight_kg');

    const sub = await call(ctx, 'POST', '/v1/users/questionnaires/weight_loss/submit/', { token: p.access });
    expect(sub.status, sub.text).toBe(200);
    const row = firstRow(await ctx.db.query('select * from questionnaire_submissions where user_id = $1', [p.id]));
    expect(row.answers).toBeNull();
    expect(raw({ ...row, result: null })).not.toContain('weight_kg');
    expect(JSON.parse(open(row.answers_enc))).toEqual(answers);
    // The engine's verdict stays readable (the anti-gaming check queries it in SQL).
    expect(row.result).toMatchObject({ reasons: expect.any(Array) });
  });

  it('consultation: the form snapshot is sealed, the list and the doctor read it', async () => {
    const p = await patient();
    const subId = await addSubmission(ctx, p.id, 'weight_loss'); // written in plaintext, as before migration 1010
    await paySandbox(ctx, p);
    const c = firstRow(await ctx.db.query('select * from consultations where user_id = $1', [p.id]));
    expect(c.form_snapshot).toBeNull();
    expect(raw(c)).not.toContain('weight_kg');
    expect(JSON.parse(open(c.form_snapshot_enc))).toContainEqual({ step_id: 1, question_key: 'weight_kg', value: 105 });

    const list = await call(ctx, 'GET', '/v1/users/consultations/', { token: p.access });
    expect(list.status).toBe(200);
    expect(list.body.results[0].form_snapshot).toContainEqual({ step_id: 1, question_key: 'weight_kg', value: 105 });
    const one = await call(ctx, 'GET', `/v1/users/consultations/${c.id}/`, { token: p.access });
    expect(one.body.form_snapshot).toEqual(list.body.results[0].form_snapshot);
    const doctor = await staff(ctx, 'doctor');
    const desk = await call(ctx, 'GET', `/v1/clinician/consultations/${c.id}/`, { token: doctor.access });
    expect(desk.status, desk.text).toBe(200);
    expect(desk.body.form_snapshot).toEqual(list.body.results[0].form_snapshot);
    expect(desk.body.questionnaire_submission.id).toBe(subId);

    // Another account: the same 404 as a missing consultation, nothing of the answers.
    const other = await patient();
    const theirs = await call(ctx, 'GET', `/v1/users/consultations/${c.id}/`, { token: other.access });
    expect(theirs.status).toBe(404);
    expect(theirs.text).not.toContain('weight_kg');
    expect((await call(ctx, 'GET', '/v1/users/consultations/', { token: other.access })).body.count).toBe(0);
  });

  it('messages: patient and team bodies are sealed; each side reads them; another account gets 404', async () => {
    const p = await patient();
    const id = await sendMessage(p, SECRET);
    const doctor = await staff(ctx, 'doctor');
    const reply = await call(ctx, 'POST', `/v1/clinician/conversations/${id}/messages/`, { token: doctor.access, json: { content: 'Team reply about dosing 9q' } });
    expect(reply.status, reply.text).toBeLessThan(300);
    const rows = await ctx.db.query('select * from messages where conversation_id = $1 order by created_at', [id]);
    expect(rows).toHaveLength(2);
    for (const r of rows) {
      expect(r.content).toBeNull();
      expect(r.content_enc).toMatch(/^v2\./);
    }
    expect(raw(rows)).not.toContain('pancreatitis');
    expect(raw(rows)).not.toContain('dosing');
    expect(rows.map((r) => open(r.content_enc))).toEqual([SECRET, 'Team reply about dosing 9q']);

    const mine = await call(ctx, 'GET', `/v1/users/conversations/${id}/messages/`, { token: p.access });
    expect(mine.body.map((m: any) => m.content)).toEqual([SECRET, 'Team reply about dosing 9q']);
    const team = await call(ctx, 'GET', '/v1/clinician/conversations/', { token: doctor.access });
    expect(team.body.results.find((c: any) => c.id === id).last_message.content).toBe('Team reply about dosing 9q');

    const other = await patient();
    const theirs = await call(ctx, 'GET', `/v1/users/conversations/${id}/messages/`, { token: other.access });
    expect(theirs.status).toBe(404);
    expect(theirs.text).not.toContain('pancreatitis');
  });

  it('journal notes and side-effect notes are sealed', async () => {
    const p = await readyPatient(ctx);
    // A side-effect report needs a treatment: an approved supply, as test/journal.test.ts seeds it.
    await ctx.db.query("insert into consultations (user_id, category, status, plan, supply_days, decided_at) values ($1, 'weight_loss', 'approved', 'one_off', 28, now())", [p.id]);
    const note = await call(ctx, 'POST', '/v1/users/journal/notes/', { token: p.access, json: { content: 'Felt dizzy after dose 4h2x' } });
    expect(note.status, note.text).toBe(201);
    const stored = firstRow(await ctx.db.query('select * from journal_notes where user_id = $1', [p.id]));
    expect(stored.content).toBeNull();
    expect(raw(stored)).not.toContain('dizzy');
    expect(open(stored.content_enc)).toBe('Felt dizzy after dose 4h2x');
    const notes = await call(ctx, 'GET', '/v1/users/journal/notes/', { token: p.access });
    expect(notes.body.results[0].content).toBe('Felt dizzy after dose 4h2x');

    const report = await call(ctx, 'POST', '/v1/users/journal/side-effects/', { token: p.access, json: { symptom: 'nausea', severity: 'mild', note: 'after lunch 8z' } });
    expect(report.status, report.text).toBe(201);
    const r = firstRow(await ctx.db.query('select * from side_effect_reports where user_id = $1', [p.id]));
    expect(r.note).toBeNull();
    expect(open(r.note_enc)).toBe('after lunch 8z');
    expect((await call(ctx, 'GET', '/v1/users/journal/side-effects/', { token: p.access })).body.results[0].note).toBe('after lunch 8z');
  });

  it('the data export carries the answers and messages opened, never the sealed text', async () => {
    const p = await patient();
    await call(ctx, 'PATCH', '/v1/users/questionnaires/hair_growth/progress/', { token: p.access, json: { data: FIXTURES.hair_growth.eligible } });
    await sendMessage(p, SECRET);
    const res = await call(ctx, 'GET', '/v1/users/me/export/', { token: p.access });
    expect(res.status, res.text).toBe(200);
    expect(res.text).not.toMatch(/"v2\.[A-Za-z0-9_-]+\./);
    expect(res.body.conversations[0].messages[0].content).toBe(SECRET);
    expect(res.body.questionnaire_progress.drafts[0].data).toEqual(FIXTURES.hair_growth.eligible);
    expect(res.body.questionnaire_progress.drafts[0]).not.toHaveProperty('data_enc');
  });
});

describe('rows from before encryption at rest, and key rotation', () => {
  it('the start-up pass seals plaintext rows; reads never change', async () => {
    const p = await patient();
    const id = await sendMessage(p, 'first');
    // A row as a process older than migration 1010 wrote it.
    await ctx.db.query(`insert into messages (conversation_id, sender_id, sender_type, content) values ($1, $2, 'USER', $3)`, [id, p.id, 'legacy plaintext 5k']);
    const before = await call(ctx, 'GET', `/v1/users/conversations/${id}/messages/`, { token: p.access });
    expect(before.body.map((m: any) => m.content)).toEqual(['first', 'legacy plaintext 5k']);

    const report = await sealPlaintextRows(ctx.deps.db);
    expect(report.messages).toBeGreaterThanOrEqual(1);
    expect(await ctx.db.query('select id from messages where content is not null')).toEqual([]);
    expect(await ctx.db.query('select id from questionnaire_submissions where answers is not null')).toEqual([]);
    const after = await call(ctx, 'GET', `/v1/users/conversations/${id}/messages/`, { token: p.access });
    expect(after.body).toEqual(before.body);
    // Idempotent: nothing left the second time.
    expect(await sealPlaintextRows(ctx.deps.db)).toEqual({});
  });

  it('reencrypt moves every sealed value to the active key; the API still reads them', async () => {
    const p = await patient();
    await sendMessage(p, 'before the rotation 3m');
    // An attachment (file_blobs, sealed with the same key ring).
    const thread = (await call(ctx, 'GET', '/v1/users/conversations/', { token: p.access })).body.results[0].id as string;
    const pdf = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');
    const boundary = `----pts${randomUUID()}`;
    const payload = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="content"\r\n\r\nmy results\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="r.pdf"\r\nContent-Type: application/pdf\r\n\r\n`),
      pdf,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const uploaded = await call(ctx, 'POST', `/v1/users/conversations/${thread}/messages/`, { token: p.access, payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } });
    expect(uploaded.status, uploaded.text).toBe(201);
    const filePath = String(uploaded.body.last_message.file).replace(/^https?:\/\/[^/]+/, '');
    await call(ctx, 'PATCH', '/v1/users/profile/me/', { token: p.access, json: { document_type: 'ID_CARD', document_number: 'C01X00T47' } });
    // A process with a new key first (the generated key `db` stays readable after it).
    const next = await anotherInstance(ctx, { DATA_ENCRYPTION_KEYS: `k2:${randomBytes(32).toString('base64url')}` });
    try {
      expect(next.deps.secrets.documentKeys.active.id).toBe('k2');
      const report = await resealRows(next.deps.db);
      expect(report.messages).toBeGreaterThanOrEqual(1);
      expect(report.users).toBeGreaterThanOrEqual(1);
      const counts = await sealedKeyCounts(next.deps.db);
      for (const [column, byKey] of Object.entries(counts)) expect(Object.keys(byKey), column).toEqual(['k2']);
      const rows = await ctx.db.query('select content_enc from messages where sender_id = $1', [p.id]);
      expect(firstRow(rows).content_enc).toMatch(/^v2\.k2\./);
      const id = (await call(next, 'GET', '/v1/users/conversations/', { token: p.access })).body.results[0].id as string;
      const read = await call(next, 'GET', `/v1/users/conversations/${id}/messages/`, { token: p.access });
      expect(read.body.map((m: any) => m.content)).toEqual(['before the rotation 3m', 'my results']);
      expect((await call(next, 'GET', '/v1/users/profile/me/', { token: p.access })).body.document_number).toBe('C01X00T47');
      // Attachments too: every blob under k2 afterwards, the file still downloads the same bytes.
      const files = await resealStoredFiles(next.deps);
      expect(files.database).toBeGreaterThanOrEqual(1);
      expect(Object.keys(files.blobsPerKey)).toEqual(['k2']);
      const dl = await call(next, 'GET', filePath, { token: p.access });
      expect(dl.status).toBe(200);
      expect(dl.text.startsWith('%PDF-1.4')).toBe(true);
      // Nothing left for a second run.
      expect(await resealRows(next.deps.db)).toEqual({});
      expect((await resealStoredFiles(next.deps)).database).toBe(0);
    } finally {
      await next.close();
    }
  });
});
