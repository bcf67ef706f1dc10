// Letters to the patient's own doctor (docs/interoperability.md): a weight-loss approval (`required`)
// without the consent or a GP is 409 gp_consent_required unless the doctor writes a reason (recorded,
// sealed, shown on the desk); with both, each approval queues one letter that the job mails once as a
// PDF in the patient's language and English; a withdrawn consent withholds it; the patient lists and
// downloads it (another account's id is 404), exports it, and erasure deletes it.
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paySandbox, readyPatient, staff } from './billing-fixtures.ts';
import { call, createTestContext, firstRow, TEST_GP, type Patient, type TestContext } from './support/harness.ts';
import { pdfText } from './support/pdf-text.ts';

let ctx: TestContext;
let doctor: Patient;
beforeAll(async () => {
  ctx = await createTestContext();
  doctor = await staff(ctx, 'doctor');
});
afterAll(async () => ctx?.close());

const REASON = 'Patient is registered with no GP (moved country last month); weight and blood pressure will be checked here at each renewal.';

async function paid(category = 'weight_loss', extra: Record<string, unknown> = {}) {
  const p = await readyPatient(ctx, category, 'eligible', extra);
  const { session } = await paySandbox(ctx, p, { category, plan: 'one_off' });
  return { p, id: session.consultation_id as string };
}
const approve = (id: string, json: Record<string, unknown> = {}) => call(ctx, 'POST', `/v1/clinician/consultations/${id}/approve/`, { token: doctor.access, json });
const letters = (userId: string) => ctx.db.query<{ id: string; status: string; withheld_reason: string | null; content_enc: string }>('select id, status, withheld_reason, content_enc from gp_letters where user_id = $1', [userId]);
const consent = (p: Patient, granted: boolean) => call(ctx, 'POST', '/v1/users/me/consents/', { token: p.access, json: { kind: 'gp_sharing', version: '2026-12', granted } });
const mailsTo = (to: string) => ctx.mails.filter((m) => m.to === to);
/** A binary answer (a PDF, a zip) through fastify.inject. */
async function download(token: string, url: string) {
  const res = await ctx.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
  return { status: res.statusCode, type: String(res.headers['content-type']), raw: res.rawPayload, body: res.statusCode === 200 ? null : (JSON.parse(res.body) as unknown) };
}
async function runJobs() {
  await ctx.deps.scheduler.runDue();
  await ctx.flushMail();
}

describe('approving a category whose GP letters are required', () => {
  it('without the consent and a GP: 409 gp_consent_required, nothing approved; a written reason approves, recorded sealed and shown to staff, and no letter goes', async () => {
    const { p, id } = await paid('weight_loss', { gp_sharing: false });
    const refused = await approve(id);
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body).toEqual({ detail: expect.stringContaining('gp_sharing'), code: 'gp_consent_required', missing: 'consent_and_gp', gp_sharing: 'required' });
    expect(firstRow(await ctx.db.query('select status from consultations where id = $1', [id])).status).toBe('pending_review');
    expect(await ctx.db.query('select id from prescriptions where consultation_id = $1', [id])).toEqual([]);

    const short = await approve(id, { gp_sharing_override_reason: 'no GP' });
    expect(short.status).toBe(400);
    expect(short.body).toHaveProperty('gp_sharing_override_reason');

    const ok = await approve(id, { gp_sharing_override_reason: REASON });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.gp_sharing).toEqual({ level: 'required', consent: false, gp_on_file: false, letter: null, override_reason: REASON });
    const row = firstRow(await ctx.db.query<{ reason_enc: string; missing: string; doctor_id: string }>('select reason_enc, missing, doctor_id from gp_sharing_overrides where consultation_id = $1', [id]));
    expect(row).toMatchObject({ missing: 'consent_and_gp', doctor_id: doctor.id, reason_enc: expect.stringMatching(/^v2\./) });
    expect(row.reason_enc).not.toContain('registered');
    expect(await letters(p.id)).toEqual([]);
    await runJobs();
    expect(mailsTo(TEST_GP.email).filter((m) => m.subject.includes('Lovelace') && m.text.includes(p.id))).toEqual([]);
  });

  it('a GP on file without the consent (or a consent withdrawn) is 409 `consent`; a consent without a GP is 409 `gp`', async () => {
    const { p, id } = await paid('weight_loss', { gp_sharing: false });
    await ctx.db.query('update users set gp = $2::jsonb where id = $1', [p.id, JSON.stringify(TEST_GP)]);
    expect((await approve(id)).body).toMatchObject({ code: 'gp_consent_required', missing: 'consent' });
    expect((await consent(p, true)).status).toBe(201);
    expect((await consent(p, false)).status).toBe(201);
    expect((await approve(id)).body).toMatchObject({ code: 'gp_consent_required', missing: 'consent' });

    const other = await paid('weight_loss', { gp_sharing: false });
    expect((await consent(other.p, true)).status).toBe(201);
    expect((await approve(other.id)).body).toMatchObject({ code: 'gp_consent_required', missing: 'gp' });
  });
});

describe('the letter', () => {
  it('with the consent and a GP: one letter queued, mailed once as a PDF in the patient’s language and English, listed and downloadable by its patient only', async () => {
    const { p, id } = await paid('weight_loss', { first_name: 'Greta', last_name: 'Brief' });
    const before = mailsTo(TEST_GP.email).length;
    const ok = await approve(id);
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.gp_sharing).toMatchObject({ level: 'required', consent: true, gp_on_file: true, letter: { status: 'queued', sent_at: null }, override_reason: null });
    const [queued, ...more] = await letters(p.id);
    expect(more).toEqual([]);
    expect(queued).toMatchObject({ status: 'queued', content_enc: expect.stringMatching(/^v2\./) });
    expect(queued!.content_enc).not.toContain('Brief');

    // The job sends it; running it again (or a second process) sends nothing more.
    await runJobs();
    await runJobs();
    const sent = mailsTo(TEST_GP.email).slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.subject).toContain('Greta Brief');
    const attachment = sent[0]!.attachments?.[0];
    expect(attachment).toMatchObject({ filename: `letter-${queued!.id}.pdf`, content_type: 'application/pdf', encoding: 'base64' });
    const text = await pdfText(Buffer.from(attachment!.content, 'base64'));
    for (const words of ['Brief an die Hausärztin', 'Letter to the patient’s own doctor', 'Greta Brief', '1985-04-12', 'Gewichtsabnahme', 'Weight loss', 'pancreatitis', 'Pankreatitis', 'LANR-123456789', 'Monitoring advised', 'Empfohlene Kontrollen']) {
      expect(text, words).toContain(words);
    }
    expect(text).toMatch(/Semaglutide|Tirzepatide/i);
    expect((await letters(p.id)).map((l) => l.status)).toEqual(['sent']);

    // The approval happens once; a second call is refused and queues nothing.
    expect((await approve(id)).status).toBe(409);
    expect(await letters(p.id)).toHaveLength(1);

    const list = await call(ctx, 'GET', '/v1/users/me/gp-letters/', { token: p.access });
    expect(list.status, list.text).toBe(200);
    expect(list.body.count).toBe(1);
    expect(list.body.results[0]).toEqual({
      id: queued!.id,
      consultation_id: id,
      status: 'sent',
      created_at: expect.any(String),
      sent_at: expect.any(String),
      recipient: TEST_GP.email,
      url: expect.stringContaining(`/v1/users/me/gp-letters/${queued!.id}/pdf/`),
    });
    const pdf = await download(p.access, `/v1/users/me/gp-letters/${queued!.id}/pdf/`);
    expect(pdf.status).toBe(200);
    expect(pdf.type).toContain('application/pdf');
    expect(await pdfText(pdf.raw)).toContain('Greta Brief');

    // Another account: the real id is the same 404 as a missing one, and its list is empty.
    const stranger = await readyPatient(ctx);
    const cross = await call(ctx, 'GET', `/v1/users/me/gp-letters/${queued!.id}/pdf/`, { token: stranger.access });
    const missing = await call(ctx, 'GET', `/v1/users/me/gp-letters/00000000-0000-4000-8000-000000000000/pdf/`, { token: stranger.access });
    expect(cross.status).toBe(404);
    expect(cross.body).toEqual(missing.body);
    expect((await call(ctx, 'GET', '/v1/users/me/gp-letters/', { token: stranger.access })).body.count).toBe(0);
    expect((await call(ctx, 'GET', '/v1/users/me/gp-letters/')).status).toBe(401);

    // The desk shows it went.
    const desk = await call(ctx, 'GET', `/v1/clinician/consultations/${id}/`, { token: doctor.access });
    expect(desk.body.gp_sharing.letter).toMatchObject({ status: 'sent', sent_at: expect.any(String) });
  });

  it('withdrawing the consent withholds a letter not yet sent and stops further ones', async () => {
    const { p, id } = await paid('weight_loss');
    expect((await approve(id)).status).toBe(200);
    const before = mailsTo(TEST_GP.email).length;
    expect((await consent(p, false)).status).toBe(201);
    await runJobs();
    expect(mailsTo(TEST_GP.email).length).toBe(before);
    expect(await letters(p.id)).toMatchObject([{ status: 'withheld', withheld_reason: 'consent_withdrawn' }]);
    expect((await call(ctx, 'GET', '/v1/users/me/gp-letters/', { token: p.access })).body.count).toBe(0);
    expect((await call(ctx, 'GET', `/v1/clinician/consultations/${id}/`, { token: doctor.access })).body.gp_sharing).toMatchObject({ consent: false, letter: { status: 'withheld' } });

    // A `recommended` category approved after the withdrawal: approved, no letter.
    const hair = await readyPatient(ctx, 'hair_growth');
    expect((await consent(hair, false)).status).toBe(201);
    const { session } = await paySandbox(ctx, hair, { category: 'hair_growth', plan: 'one_off' });
    expect((await approve(session.consultation_id)).status).toBe(200);
    expect(await letters(hair.id)).toEqual([]);
  });

  it('a `recommended` category with the consent gets its letter; a `none` category (confidential sexual health care) gets none', async () => {
    const hair = await paid('hair_growth');
    expect((await approve(hair.id)).status).toBe(200);
    expect((await letters(hair.p.id)).map((l) => l.status)).toEqual(['queued']);
    const chlamydia = await paid('chlamydia');
    const ok = await approve(chlamydia.id);
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.gp_sharing).toMatchObject({ level: 'none', consent: true, letter: null });
    expect(await letters(chlamydia.p.id)).toEqual([]);
  });
});

describe('export and erasure', () => {
  it('the export holds the letters (JSON with the content, the zip with the PDFs); erasure deletes them and keeps the override reason', async () => {
    const { p, id } = await paid('weight_loss', { first_name: 'Erika', last_name: 'Export' });
    expect((await approve(id)).status).toBe(200);
    await runJobs();
    const [letter] = await letters(p.id);
    const json = await call(ctx, 'GET', '/v1/users/me/export/', { token: p.access });
    expect(json.status, json.text).toBe(200);
    expect(json.body.gp_letters).toEqual([
      expect.objectContaining({ id: letter!.id, consultation_id: id, status: 'sent', recipient: TEST_GP.email, content: expect.objectContaining({ patient: expect.objectContaining({ last_name: 'Export' }), gp: TEST_GP }) }),
    ]);
    const zip = await download(p.access, '/v1/users/me/export/?format=zip');
    expect(zip.status).toBe(200);
    const files = unzipSync(new Uint8Array(zip.raw));
    const name = `gp-letters/letter-${letter!.id}.pdf`;
    expect(Object.keys(files)).toContain(name);
    expect(await pdfText(Buffer.from(files[name]!))).toContain('Erika Export');
    const index = JSON.parse(Buffer.from(files['export.json']!).toString('utf8')).files;
    expect(index).toContainEqual({ path: name, type: 'gp_letter', id: letter!.id });

    const erase = await call(ctx, 'DELETE', '/v1/users/me/', { token: p.access, json: { confirm: 'DELETE' } });
    expect(erase.status, erase.text).toBe(204);
    expect(await letters(p.id)).toEqual([]);
    expect(firstRow(await ctx.db.query('select gp from users where id = $1', [p.id])).gp).toBeNull();

    // A doctor's reason for approving without a letter is part of the prescribing record: kept.
    const second = await paid('weight_loss', { gp_sharing: false });
    expect((await approve(second.id, { gp_sharing_override_reason: REASON })).status).toBe(200);
    expect((await call(ctx, 'DELETE', '/v1/users/me/', { token: second.p.access, json: { confirm: 'DELETE' } })).status).toBe(204);
    expect(await ctx.db.query('select id from gp_sharing_overrides where user_id = $1', [second.p.id])).toHaveLength(1);
  });
});
