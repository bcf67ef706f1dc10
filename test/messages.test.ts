// Messages with the medical team over HTTP: the single thread, sends, files, emergency wording,
// account scoping and the doctor's side.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../src/db/index.ts';
import { decrypt } from '../src/lib/crypto.ts';
import { stripJpegMetadata } from '../src/modules/messages/files.ts';
import { call, createTestContext, newStaff, seedPatient, type Patient, type TestContext, firstRow } from './support/harness.ts';
import { paySandbox, readyPatient } from './billing-fixtures.ts';
import { multipart } from './support/multipart.ts';

let ctx: TestContext;
let doctor: Patient;
beforeAll(async () => {
  ctx = await createTestContext();
  doctor = await newStaff(ctx, 'doctor');
});
afterAll(async () => ctx?.close());

const threadOf = async (p: Patient) => (await call(ctx, 'GET', '/v1/users/conversations/', { token: p.access })).body.results[0].id as string;
const send = (p: Patient, id: string, content: unknown) => call(ctx, 'POST', `/v1/users/conversations/${id}/messages/`, { token: p.access, json: { content } });

const upload = (p: Patient, id: string, file?: { name: string; type: string; data: Buffer }, fields: Record<string, string> = {}) =>
  call(ctx, 'POST', `/v1/users/conversations/${id}/messages/`, { token: p.access, ...multipart(fields, file) });

const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');
// A minimal JPEG: SOI, an APP1 Exif segment carrying a GPS-like marker string, APP0, SOS with data, EOI.
function jpegWithExif(): Buffer {
  const exifPayload = Buffer.concat([Buffer.from('Exif\0\0'), Buffer.from('GPS-SECRET-LOCATION')]);
  const app1 = Buffer.concat([Buffer.from([0xff, 0xe1]), Buffer.from([0, exifPayload.length + 2]), exifPayload]);
  const jfif = Buffer.from('JFIF\0\x01\x01\0\0\x01\0\x01\0\0', 'latin1');
  const app0 = Buffer.concat([Buffer.from([0xff, 0xe0]), Buffer.from([0, jfif.length + 2]), jfif]);
  const sos = Buffer.from([0xff, 0xda, 0, 8, 1, 1, 0, 0, 0x3f, 0, 0x12, 0x34, 0x56]);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app1, app0, sos, Buffer.from([0xff, 0xd9])]);
}

describe('the patient’s conversation', () => {
  it('is created on first need, listed once, and accepts a JSON message (201 with the conversation)', async () => {
    const p = await seedPatient(ctx, { country_of_residence: 'DEU', locale: 'de' });
    const list = await call(ctx, 'GET', '/v1/users/conversations/', { token: p.access });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ count: 1, next: null, previous: null });
    const conv = list.body.results[0];
    expect(conv).toMatchObject({ last_message: null, last_message_created_at: null, unread_count: 0, subscription_status: 'none', is_active: true });
    expect((await call(ctx, 'GET', '/v1/users/conversations/', { token: p.access })).body.results[0].id).toBe(conv.id);
    const sent = await send(p, conv.id, '  Question about my dose.  ');
    expect(sent.status).toBe(201);
    expect(sent.body).toMatchObject({
      id: conv.id,
      user: { id: p.id, country_of_residence: 'DEU', locale: 'de' },
      translation_target_lang: 'de',
      emergency: null,
      last_message: { content: 'Question about my dose.', sender: p.id, sender_type: 'USER', file: null, is_read: false, translation_enabled: false, translation_default_on: false },
      last_message_sender_type: 'USER',
    });
    const msgs = await call(ctx, 'GET', `/v1/users/conversations/${conv.id}/messages/`, { token: p.access });
    expect(msgs.body).toHaveLength(1);
  });

  it('is not stored by reading: the listed id and dates are the ones the first message stores', async () => {
    const p = await seedPatient(ctx);
    const first = await call(ctx, 'GET', '/v1/users/conversations/', { token: p.access });
    const again = await call(ctx, 'GET', '/v1/users/conversations/', { token: p.access });
    expect(again.text).toBe(first.text);
    const conv = first.body.results[0];
    expect(await ctx.db.query('select id from conversations where user_id = $1', [p.id])).toEqual([]);
    const empty = await call(ctx, 'GET', `/v1/users/conversations/${conv.id}/messages/`, { token: p.access });
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual([]);
    expect(await ctx.db.query('select id from conversations where user_id = $1', [p.id])).toEqual([]);
    const sent = await send(p, conv.id, 'Hello');
    expect(sent.status).toBe(201);
    expect(sent.body).toMatchObject({ id: conv.id, created_at: conv.created_at });
    const rows = await ctx.db.query<{ id: string }>('select id from conversations where user_id = $1', [p.id]);
    expect(rows.map((r) => r.id)).toEqual([conv.id]);
    const after = (await call(ctx, 'GET', '/v1/users/conversations/', { token: p.access })).body.results[0];
    expect(after).toMatchObject({ id: conv.id, created_at: conv.created_at, last_message: { content: 'Hello' } });
  });

  it('refuses an empty message with 400 {error} and an overlong one', async () => {
    const p = await seedPatient(ctx);
    const id = await threadOf(p);
    for (const content of [undefined, '', '   ']) {
      const r = await send(p, id, content);
      expect(r.status).toBe(400);
      expect(r.body).toEqual({ error: 'Either content or file is required.', code: 'content_or_file_required' });
    }
    expect((await send(p, id, 'x'.repeat(5001))).body.code).toBe('content_too_long');
  });

  it('answers another account’s conversation exactly like a missing one', async () => {
    const a = await seedPatient(ctx);
    const b = await seedPatient(ctx);
    const id = await threadOf(a);
    const missing = await call(ctx, 'GET', `/v1/users/conversations/${randomUUID()}/messages/`, { token: b.access });
    for (const r of [
      await call(ctx, 'GET', `/v1/users/conversations/${id}/messages/`, { token: b.access }),
      await send(b, id, 'hi'),
      await call(ctx, 'GET', `/v1/users/conversations/not-a-uuid/messages/`, { token: b.access }),
    ]) {
      expect(r.status).toBe(404);
      expect(r.body).toEqual(missing.body);
    }
    expect(missing.body).toEqual({ detail: 'Not found.' });
  });

  it('flags emergency wording in several languages, delivers the message and shows the country’s number', async () => {
    const cases: [string, string, string][] = [
      ['GBR', 'en', 'I have crushing chest pain since an hour'],
      ['DEU', 'de', 'Ich habe seit heute Morgen Atemnot'],
      ['FRA', 'fr', 'J’ai une douleur thoracique depuis hier'],
      ['ITA', 'it', 'Ho pensieri suicidi'],
    ];
    for (const [country, locale, text] of cases) {
      const p = await seedPatient(ctx, { country_of_residence: country, locale });
      const r = await send(p, await threadOf(p), text);
      expect(r.status, text).toBe(201);
      expect(r.body.emergency.number, text).toBe({ GBR: '999', FRA: '15', ITA: '118', AUT: '144' }[country] ?? '112');
      expect(r.body.last_message.content).toBe(text);
    }
    const calm = await seedPatient(ctx);
    expect((await send(calm, await threadOf(calm), 'My chest feels fine, thanks')).body.emergency).toBeNull();
  });
});

describe('files', () => {
  it('accepts a PDF by its bytes, stores it under a generated key and serves it only to its owner, under its base name', async () => {
    const p = await seedPatient(ctx);
    const other = await seedPatient(ctx);
    const id = await threadOf(p);
    const r = await upload(p, id, { name: '../../etc/passwd.pdf', type: 'application/pdf', data: PDF }, { content: 'My blood test' });
    expect(r.status).toBe(201);
    const url: string = r.body.last_message.file;
    expect(url).toMatch(new RegExp(`^http://api.test.local/v1/users/conversations/${id}/messages/[0-9a-f-]{36}/file/$`));
    const path = url.replace('http://api.test.local', '');
    const dl = await call(ctx, 'GET', path, { token: p.access });
    expect(dl.status).toBe(200);
    expect(dl.headers['content-type']).toBe('application/pdf');
    // The path the client sent is dropped; the base name stays (attachments show their name).
    expect(dl.headers['content-disposition']).toBe(`attachment; filename="passwd.pdf"; filename*=UTF-8''passwd.pdf`);
    expect(dl.text.startsWith('%PDF')).toBe(true);
    expect((await call(ctx, 'GET', path, { token: other.access })).status).toBe(404);
    const row = firstRow(await ctx.db.query('select storage_key from message_files f join messages m on m.file_id = f.id where m.conversation_id = $1', [id]));
    expect(row.storage_key).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('keeps the name it was uploaded with, sealed at rest, with the extension of its real type; the team downloads it under that name', async () => {
    const p = await seedPatient(ctx);
    const doctor = await newStaff(ctx, 'doctor');
    const id = await threadOf(p);
    const named = await upload(p, id, { name: 'Blutbild März final.html', type: 'application/pdf', data: PDF });
    expect(named.status).toBe(201);
    const path = (named.body.last_message.file as string).replace('http://api.test.local', '');
    const dl = await call(ctx, 'GET', path, { token: p.access });
    expect(dl.headers['content-disposition']).toBe(`attachment; filename="Blutbild M_rz final.pdf"; filename*=UTF-8''${encodeURIComponent('Blutbild März final.pdf')}`);
    const desk = await call(ctx, 'GET', path.replace('/v1/users/', '/v1/clinician/'), { token: doctor.access });
    expect(desk.status).toBe(200);
    expect(desk.headers['content-disposition']).toBe(dl.headers['content-disposition']);
    const row = firstRow(await ctx.db.query('select f.name_enc from message_files f join messages m on m.file_id = f.id where m.conversation_id = $1', [id]));
    expect(row.name_enc).toMatch(/^v2\./);
    expect(row.name_enc).not.toContain('Blutbild');
    // Without a usable name (only a dot file), the generated one is used.
    const nameless = await upload(p, id, { name: '.pdf', type: 'application/pdf', data: PDF });
    const dl2 = await call(ctx, 'GET', (nameless.body.last_message.file as string).replace('http://api.test.local', ''), { token: p.access });
    expect(dl2.headers['content-disposition']).toMatch(/^attachment; filename="attachment-[0-9a-f]{8}\.pdf"; filename\*=UTF-8''attachment-[0-9a-f]{8}\.pdf$/);
  });

  it('refuses a wrong type and a spoofed extension, and a file over 10 MiB', async () => {
    const p = await seedPatient(ctx);
    const id = await threadOf(p);
    const spoofed = await upload(p, id, { name: 'report.pdf', type: 'application/pdf', data: Buffer.from('just some text, not a PDF at all') });
    expect(spoofed.status).toBe(400);
    expect(spoofed.body.code).toBe('unsupported_file_type');
    const gif = await upload(p, id, { name: 'x.gif', type: 'image/gif', data: Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1') });
    expect(gif.body.code).toBe('unsupported_file_type');
    const big = await upload(p, id, { name: 'big.pdf', type: 'application/pdf', data: Buffer.concat([PDF, Buffer.alloc(10 * 1024 * 1024)]) });
    expect(big.status).toBe(413);
    expect(big.body.code).toBe('file_too_large');
    expect((await call(ctx, 'GET', `/v1/users/conversations/${id}/messages/`, { token: p.access })).body).toHaveLength(0);
  });

  it('strips EXIF from a JPEG before storing it', async () => {
    const p = await seedPatient(ctx);
    const id = await threadOf(p);
    const jpeg = jpegWithExif();
    expect(jpeg.includes('GPS-SECRET-LOCATION')).toBe(true);
    const r = await upload(p, id, { name: 'photo.jpg', type: 'image/jpeg', data: jpeg });
    expect(r.status).toBe(201);
    const dl = await ctx.app.inject({ method: 'GET', url: r.body.last_message.file.replace('http://api.test.local', ''), headers: { authorization: `Bearer ${p.access}` } });
    expect(dl.rawPayload.includes('GPS-SECRET-LOCATION')).toBe(false);
    expect(dl.rawPayload.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
    expect(dl.rawPayload.includes('JFIF')).toBe(true);
    expect(stripJpegMetadata(Buffer.from('not a jpeg'))).toEqual(Buffer.from('not a jpeg'));
  });
});

describe('the medical team', () => {
  it('reads flagged threads first, replies, and the patient gets a mail without health details and an unread count', async () => {
    const p = await seedPatient(ctx, { locale: 'fr' });
    const id = await threadOf(p);
    await send(p, id, 'I think I am having an anaphylactic reaction');
    const list = await call(ctx, 'GET', '/v1/clinician/conversations/', { token: doctor.access });
    expect(list.status).toBe(200);
    expect(list.body.results[0].id).toBe(id);
    expect(list.body.results[0].flagged_at).not.toBeNull();
    const read = await call(ctx, 'GET', `/v1/clinician/conversations/${id}/messages/`, { token: doctor.access });
    expect(read.body[0].is_read).toBe(true);
    const reply = await call(ctx, 'POST', `/v1/clinician/conversations/${id}/messages/`, { token: doctor.access, json: { content: 'Please call 112 now. Your dose is 0.5 mg.' } });
    expect(reply.status).toBe(201);
    await ctx.flushMail();
    const mail = ctx.mails.filter((m) => m.to === p.email).at(-1)!;
    expect(mail.subject).toBe('Nouveau message de votre équipe médicale');
    expect(mail.text).not.toContain('0.5 mg');
    const conv = (await call(ctx, 'GET', '/v1/users/conversations/', { token: p.access })).body.results[0];
    expect(conv).toMatchObject({ unread_count: 1, last_message_sender_type: 'DOCTOR' });
    await call(ctx, 'GET', `/v1/users/conversations/${id}/messages/`, { token: p.access });
    expect((await call(ctx, 'GET', '/v1/users/conversations/', { token: p.access })).body.results[0].unread_count).toBe(0);
  });

  it('counts, for the team, the patient’s messages the team has not read (not the team’s own)', async () => {
    const p = await seedPatient(ctx);
    const id = await threadOf(p);
    await send(p, id, 'First question');
    await send(p, id, 'Second question');
    const teamView = async () => {
      const detail = await call(ctx, 'POST', `/v1/clinician/conversations/${id}/messages/`, { token: doctor.access, json: { content: 'Noted.' } });
      expect(detail.status).toBe(201);
      return detail.body.unread_count as number;
    };
    expect(await teamView()).toBe(2);
    await call(ctx, 'GET', `/v1/clinician/conversations/${id}/messages/`, { token: doctor.access });
    expect(await teamView()).toBe(0);
    // The patient still has the team's two replies unread.
    expect((await call(ctx, 'GET', '/v1/users/conversations/', { token: p.access })).body.results[0].unread_count).toBe(2);
  });

  it('a patient’s message sends a consultation waiting for information back to review (docs/consultations.md)', async () => {
    const p = await readyPatient(ctx, 'hair_growth');
    const { session } = await paySandbox(ctx, p, { category: 'hair_growth', plan: 'one_off' });
    const consultationId = session.consultation_id as string;
    const asked = await call(ctx, 'POST', `/v1/clinician/consultations/${consultationId}/request-information/`, { token: doctor.access, json: { decision_reason: 'Please send a photo.' } });
    expect(asked.body.status).toBe('needs_information');
    const status = async () => (await call(ctx, 'GET', `/v1/users/consultations/${consultationId}/`, { token: p.access })).body.status as string;
    // Reading the thread is not an answer.
    await call(ctx, 'GET', `/v1/users/conversations/${await threadOf(p)}/messages/`, { token: p.access });
    expect(await status()).toBe('needs_information');
    expect((await send(p, await threadOf(p), 'Here is the photo you asked for.')).status).toBe(201);
    expect(await status()).toBe('pending_review');
    // Another patient's message moves nothing of theirs.
    const other = await seedPatient(ctx);
    expect((await send(other, await threadOf(other), 'Hello')).status).toBe(201);
    expect(await status()).toBe('pending_review');
  });

  it('refuses a patient token with 403 permission_denied', async () => {
    const p = await seedPatient(ctx);
    const r = await call(ctx, 'GET', '/v1/clinician/conversations/', { token: p.access });
    expect(r.status).toBe(403);
    expect(r.body.code).toBe('permission_denied');
    const w = await call(ctx, 'POST', `/v1/clinician/conversations/${await threadOf(p)}/messages/`, { token: p.access, json: { content: 'x' } });
    expect(w.status).toBe(403);
  });
});

describe('a send after its commit', () => {
  it('answers from what the transaction read: the database failing once it committed cannot turn a stored message into an error', async () => {
    // From the moment a transaction commits, the database fails every statement outside one (as a
    // connection lost right after the COMMIT would): the answer must not need any.
    let lostAfterCommit = false;
    let armed = false;
    const lost = () => Object.assign(new Error('Connection terminated unexpectedly'), { statement: 'select' });
    const own = await createTestContext({}, {
      wrapDb: (db: Db): Db => ({
        ...db,
        kind: db.kind,
        query: async (sql, params) => {
          if (lostAfterCommit) throw lost();
          return db.query(sql, params);
        },
        execute: async (sql, params) => {
          if (lostAfterCommit) throw lost();
          return db.execute(sql, params);
        },
        tx: async (fn) => {
          const result = await db.tx(fn);
          if (armed) lostAfterCommit = true;
          return result;
        },
        exec: (sql) => db.exec(sql),
        close: () => db.close(),
      }),
    });
    try {
      const p = await seedPatient(own);
      const id = (await call(own, 'GET', '/v1/users/conversations/', { token: p.access })).body.results[0].id as string;
      armed = true;
      const sent = await call(own, 'POST', `/v1/users/conversations/${id}/messages/`, { token: p.access, json: { content: 'Stored once, answered once.' } });
      expect(lostAfterCommit).toBe(true);
      expect(sent.status).toBe(201);
      expect(sent.body.last_message.content).toBe('Stored once, answered once.');
      armed = false;
      lostAfterCommit = false;
      // Bodies are sealed at rest (docs/privacy.md): opened with the data keys.
      const stored = await own.db.query('select content, content_enc from messages where sender_id = $1', [p.id]);
      expect(stored.map((r) => r.content)).toEqual([null]);
      expect(stored.map((r) => decrypt(own.deps.secrets.documentKeys, r.content_enc))).toEqual(['Stored once, answered once.']);
    } finally {
      await own.close();
    }
  });
});
