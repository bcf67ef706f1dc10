// The zip variant of the data export (GET /v1/users/me/export/?format=zip,
// docs/privacy.md): export.json plus the account's files (message attachments, invoices,
// prescriptions), nothing of another account; checked against the OpenAPI document.
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paySandbox, readyPatient } from './billing-fixtures.ts';
import { call, createTestContext, newStaff, type Patient, type TestContext } from './support/harness.ts';
import { DocumentChecker, publishedDocuments } from './support/openapi.ts';
import { pdfText } from './support/pdf-text.ts';
import { multipart } from './support/multipart.ts';

let ctx: TestContext;
let checker: DocumentChecker;
let doctor: Patient;
beforeAll(async () => {
  ctx = await createTestContext();
  checker = new DocumentChecker((await publishedDocuments(ctx)).all);
  doctor = await newStaff(ctx, 'doctor');
});
afterAll(async () => ctx?.close());

// A 1x1 PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

/** A patient with an approved consultation (payment, prescription) and a message with a file. */
async function patientWithFiles(tag: string) {
  const p = await readyPatient(ctx, 'weight_loss', 'eligible', { first_name: `Zip${tag}`, last_name: 'Patient' });
  const { session } = await paySandbox(ctx, p, { category: 'weight_loss', plan: 'one_off' });
  expect((await call(ctx, 'POST', `/v1/clinician/consultations/${session.consultation_id}/approve/`, { token: doctor.access, json: {} })).status).toBe(200);
  const conv = (await call(ctx, 'GET', '/v1/users/conversations/', { token: p.access })).body.results[0];
  const file = { name: `scan-${tag}.png`, type: 'image/png', data: PNG };
  const sent = await call(ctx, 'POST', `/v1/users/conversations/${conv.id}/messages/`, { token: p.access, ...multipart({ content: `File-${tag}` }, file) });
  expect(sent.status).toBe(201);
  return { p, messageId: sent.body.last_message.id as string, conversationId: conv.id as string };
}

describe('the zip export', () => {
  it('holds export.json and every file of the account, and nothing of another account', async () => {
    const a = await patientWithFiles('Alpha');
    const b = await patientWithFiles('Bravo');

    const res = await ctx.app.inject({ method: 'GET', url: '/v1/users/me/export/?format=zip', headers: { authorization: `Bearer ${a.p.access}` } });
    checker.check('GET', '/v1/users/me/export/?format=zip', { status: res.statusCode, body: undefined, text: res.body, headers: res.headers as Record<string, string> });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/zip');
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="account-export-\d{4}-\d{2}-\d{2}\.zip"$/);

    const entries = unzipSync(new Uint8Array(res.rawPayload));
    const names = Object.keys(entries).sort();
    const x = JSON.parse(Buffer.from(entries['export.json']!).toString('utf8'));
    expect(x.profile).toMatchObject({ id: a.p.id, first_name: 'ZipAlpha' });
    expect(x.payments).toHaveLength(1);
    expect(x.prescriptions).toHaveLength(1);

    // The files index names each file and the record it belongs to; every file is in the archive.
    expect(x.files.map((f: { type: string; id: string }) => [f.type, f.id]).sort()).toEqual(
      [
        ['attachment', a.messageId],
        ['invoice', x.payments[0].id],
        ['prescription', x.prescriptions[0].id],
        // The letter to the patient's own doctor (the patient consented: docs/interoperability.md).
        ['gp_letter', x.gp_letters[0].id],
      ].sort(),
    );
    expect(names).toEqual(['export.json', ...x.files.map((f: { path: string }) => f.path)].sort());
    const attachment = x.files.find((f: { type: string }) => f.type === 'attachment');
    // Under the message id and the name it was uploaded with (messages keep it since migration 1060).
    expect(attachment.path).toBe(`attachments/${a.messageId}-scan-Alpha.png`);
    expect(Buffer.from(entries[attachment.path]!).equals(PNG)).toBe(true);
    const invoice = Buffer.from(entries[x.files.find((f: { type: string }) => f.type === 'invoice').path]!);
    const rx = Buffer.from(entries[x.files.find((f: { type: string }) => f.type === 'prescription').path]!);
    expect(invoice.subarray(0, 5).toString()).toBe('%PDF-');
    expect(rx.subarray(0, 5).toString()).toBe('%PDF-');
    expect(await pdfText(rx)).toContain('ZipAlpha');

    // Not one trace of the other account: not its message, file, name or ids.
    expect(names.some((n) => n.includes(b.messageId))).toBe(false);
    const json = Buffer.from(entries['export.json']!).toString('utf8');
    for (const needle of [b.p.id, b.p.email, 'ZipBravo', 'File-Bravo', b.messageId, b.conversationId]) expect(json, needle).not.toContain(needle);
    expect(await pdfText(invoice)).not.toContain('ZipBravo');
    expect(await pdfText(rx)).not.toContain('ZipBravo');

    // The JSON variant is unchanged (no files index), with or without format=json.
    const plain = await checker.call(ctx, 'GET', '/v1/users/me/export/?format=json', { token: b.p.access });
    expect(plain.status).toBe(200);
    expect(plain.headers['content-type']).toMatch(/^application\/json/);
    expect(plain.body).not.toHaveProperty('files');
    expect(plain.text).not.toContain(a.p.id);
    expect(checker.problems).toEqual([]);
  });

  it('refuses an unknown format with 400 {format} without spending the budget, and counts both formats against the one hourly budget', async () => {
    const { EXPORTS_PER_HOUR } = await import('../src/modules/privacy/routes.ts');
    const p = (await patientWithFiles('Budget')).p;
    const bad = await checker.call(ctx, 'GET', '/v1/users/me/export/?format=tar', { token: p.access });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ format: [expect.any(String)] });
    expect((await call(ctx, 'GET', '/v1/users/me/export/?format=zip')).status).toBe(401);

    // The refused request cost nothing (the export budget counts valid requests only: validInputOnly in
    // src/http/budgets.ts), so the whole hourly budget is still there.
    for (let i = 0; i < EXPORTS_PER_HOUR; i++) {
      const format = i % 2 ? 'zip' : 'json';
      expect((await call(ctx, 'GET', `/v1/users/me/export/?format=${format}`, { token: p.access })).status).toBe(200);
    }
    const over = await checker.call(ctx, 'GET', '/v1/users/me/export/?format=zip', { token: p.access });
    expect(over.status).toBe(429);
    expect(over.body.code).toBe('throttled');
    expect(checker.problems).toEqual([]);
  });
});
