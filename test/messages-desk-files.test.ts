// The team attaches a file in a patient's conversation (POST /v1/clinician/conversations/{id}/messages/
// as multipart): stored for the patient, downloaded by the patient and the desk, refused to others.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestContext, firstRow, newStaff, seedPatient, type Patient, type TestContext } from './support/harness.ts';
import { multipart } from './support/multipart.ts';

let ctx: TestContext;
let doctor: Patient;
beforeAll(async () => {
  ctx = await createTestContext();
  doctor = await newStaff(ctx, 'doctor');
});
afterAll(async () => ctx?.close());

const BASE = 'http://api.test.local';
const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');

/** A patient with a stored conversation (the desk answers threads that have a first message). */
async function patientWithThread(): Promise<{ p: Patient; id: string }> {
  const p = await seedPatient(ctx);
  const id = (await call(ctx, 'GET', '/v1/users/conversations/', { token: p.access })).body.results[0].id as string;
  expect((await call(ctx, 'POST', `/v1/users/conversations/${id}/messages/`, { token: p.access, json: { content: 'Can you send my lab report?' } })).status).toBe(201);
  return { p, id };
}

const deskSend = (token: string, id: string, file?: { name: string; type: string; data: Buffer }, fields: Record<string, string> = {}) =>
  call(ctx, 'POST', `/v1/clinician/conversations/${id}/messages/`, { token, ...multipart(fields, file) });

describe('the team attaches a file', () => {
  it('the doctor uploads a PDF; the patient downloads it with its name, the desk too; audited and mailed like a reply', async () => {
    const { p, id } = await patientWithThread();
    const sent = await deskSend(doctor.access, id, { name: 'Lab report März.pdf', type: 'application/pdf', data: PDF }, { content: 'Here is your report.' });
    expect(sent.status).toBe(201);
    expect(sent.body).toMatchObject({ id, last_message_sender_type: 'DOCTOR', last_message: { sender: doctor.id, sender_type: 'DOCTOR', content: 'Here is your report.' } });
    const deskUrl = sent.body.last_message.file as string;
    expect(deskUrl).toMatch(new RegExp(`^${BASE}/v1/clinician/conversations/${id}/messages/[0-9a-f-]{36}/file/$`));

    // The patient sees it in their thread, with their own download route.
    const thread = await call(ctx, 'GET', `/v1/users/conversations/${id}/messages/`, { token: p.access });
    const fromTeam = (thread.body as Array<{ sender_type: string; file: string | null; content: string }>).filter((m) => m.sender_type === 'DOCTOR');
    expect(fromTeam).toHaveLength(1);
    const patientUrl = fromTeam[0]!.file!;
    expect(patientUrl).toBe(deskUrl.replace('/v1/clinician/', '/v1/users/'));
    const dl = await call(ctx, 'GET', patientUrl.replace(BASE, ''), { token: p.access });
    expect(dl.status).toBe(200);
    expect(dl.headers['content-type']).toBe('application/pdf');
    expect(dl.headers['content-disposition']).toBe(`attachment; filename="Lab report M_rz.pdf"; filename*=UTF-8''${encodeURIComponent('Lab report März.pdf')}`);
    expect(dl.text).toBe(PDF.toString());
    const desk = await call(ctx, 'GET', deskUrl.replace(BASE, ''), { token: doctor.access });
    expect(desk.status).toBe(200);
    expect(desk.text).toBe(PDF.toString());

    // Owned by the conversation's patient (erasure and the patient route go by the owner); name sealed.
    const row = firstRow(await ctx.db.query("select f.id, f.user_id, f.name_enc from message_files f join messages m on m.file_id = f.id where m.conversation_id = $1 and m.sender_type = 'DOCTOR'", [id]));
    expect(row.user_id).toBe(p.id);
    expect(row.name_enc).not.toContain('Lab report');
    const audit = await ctx.db.query("select details from audit_log where action = 'conversation.reply' and subject_id = $1 and actor_id = $2", [id, doctor.id]);
    expect(audit).toHaveLength(1);
    const details = firstRow(audit).details as unknown;
    expect(typeof details === 'string' ? JSON.parse(details) : details).toEqual({ file_id: row.id });
    await ctx.flushMail();
    const mail = ctx.mails.filter((m) => m.to === p.email).at(-1);
    expect(mail).toBeDefined();
    expect(mail!.text).not.toContain('Lab report');
  });

  it('a file alone (no text) is a reply', async () => {
    const { p, id } = await patientWithThread();
    const sent = await deskSend(doctor.access, id, { name: 'plan.pdf', type: 'application/pdf', data: PDF });
    expect(sent.status).toBe(201);
    expect(sent.body.last_message).toMatchObject({ content: '', sender_type: 'DOCTOR' });
    expect(sent.body.last_message.file).not.toBeNull();
    expect((await call(ctx, 'GET', '/v1/users/conversations/', { token: p.access })).body.results[0].unread_count).toBe(1);
  });

  it('another patient gets 404 for the real conversation and message ids, also under their own conversation id', async () => {
    const { id } = await patientWithThread();
    const sent = await deskSend(doctor.access, id, { name: 'private.pdf', type: 'application/pdf', data: PDF });
    expect(sent.status).toBe(201);
    const path = (sent.body.last_message.file as string).replace(BASE, '').replace('/v1/clinician/', '/v1/users/');
    const other = await patientWithThread();
    const direct = await call(ctx, 'GET', path, { token: other.p.access });
    expect(direct.status).toBe(404);
    const messageId = path.split('/').at(-3)!;
    const viaOwn = await call(ctx, 'GET', `/v1/users/conversations/${other.id}/messages/${messageId}/file/`, { token: other.p.access });
    expect(viaOwn.status).toBe(404);
  });

  it('a non-doctor gets 403 (the patient themself, on their own conversation)', async () => {
    const { p, id } = await patientWithThread();
    const r = await deskSend(p.access, id, { name: 'x.pdf', type: 'application/pdf', data: PDF });
    expect(r.status).toBe(403);
    expect(r.body.code).toBe('permission_denied');
    expect(await ctx.db.query("select id from messages where conversation_id = $1 and sender_type = 'DOCTOR'", [id])).toEqual([]);
  });

  it('refuses a wrong type (400 unsupported_file_type) and an empty send (400 content_required); nothing is stored', async () => {
    const { id } = await patientWithThread();
    const html = await deskSend(doctor.access, id, { name: 'report.pdf', type: 'application/pdf', data: Buffer.from('<html><body>not a pdf</body></html>') }, { content: 'See attached' });
    expect(html.status).toBe(400);
    expect(html.body.code).toBe('unsupported_file_type');
    const empty = await deskSend(doctor.access, id, undefined, {});
    expect(empty.status).toBe(400);
    expect(empty.body.code).toBe('content_required');
    const json = await call(ctx, 'POST', `/v1/clinician/conversations/${id}/messages/`, { token: doctor.access, json: {} });
    expect(json.status).toBe(400);
    expect(await ctx.db.query("select id from messages where conversation_id = $1 and sender_type = 'DOCTOR'", [id])).toEqual([]);
    expect(await ctx.db.query("select f.id from message_files f where f.user_id = (select user_id from conversations where id = $1)", [id])).toEqual([]);
  });
});
