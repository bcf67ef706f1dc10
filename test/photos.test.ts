// Clinical photos (spec 2.3 `images`, docs/photos.md) over HTTP: the hair-loss questionnaire's photo
// question, uploads accepted by content and re-encoded without metadata, a photo added to an open
// consultation, the bytes for the patient and the desk (access-logged), 404 to every other account,
// the export, the erasure, and the connector that never sees them.
import { unzipSync } from 'fflate';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currentVersion, renewalRuleSet, renewalScreen } from '../src/modules/questionnaires/index.ts';
import { paySandbox } from './billing-fixtures.ts';
import { MemoryProvider, connectAs, listen, patientWithPassword } from './mcp-support.ts';
import { FIXTURES } from './questionnaires.fixtures.ts';
import { randomBytes } from 'node:crypto';
import { resealPhotos } from '../src/modules/photos/index.ts';
import { PASSWORD, TEST_BASE_URL, anotherInstance, call, createTestContext, firstRow, newStaff, type Patient, type TestContext } from './support/harness.ts';
import { multipart, pdfPart, type FilePart } from './support/multipart.ts';

let ctx: TestContext;
let doctor: Patient;
beforeAll(async () => {
  ctx = await createTestContext();
  doctor = await newStaff(ctx, 'doctor');
});
afterAll(async () => ctx?.close());

const HAIR = '/v1/users/questionnaires/hair_growth';
const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');

const png = () => sharp({ create: { width: 40, height: 30, channels: 3, background: '#336699' } }).png().toBuffer();
const jpegWithGps = () =>
  sharp({ create: { width: 64, height: 48, channels: 3, background: '#884422' } })
    .jpeg()
    .withExif({ IFD0: { Make: 'PhoneMaker', Model: 'X1' }, IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '52/1 31/1 0/1' } })
    .toBuffer();

const upload = (p: Patient, file: FilePart | undefined, questionKey = 'hair_photos', slug = 'hair_growth') =>
  call(ctx, 'POST', `/v1/users/questionnaires/${slug}/photos/`, { token: p.access, ...multipart(questionKey ? { question_key: questionKey } : {}, file) });

async function photoId(p: Patient): Promise<string> {
  const res = await upload(p, { name: 'me.jpg', type: 'image/jpeg', data: await png() });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

const photoAnswer = (views: Record<string, string>) => ({ step_id: 3, question_key: 'hair_photos', values: views });
const saveDraft = (p: Patient, data: unknown[]) => call(ctx, 'PATCH', `${HAIR}/progress/`, { token: p.access, json: { data } });
const pathOf = (url: string) => url.replace(TEST_BASE_URL, '');
const bytes = (token: string | undefined, url: string) =>
  ctx.app.inject({ method: 'GET', url: pathOf(url), headers: token ? { authorization: `Bearer ${token}` } : {} });

/** A patient whose hair-loss questionnaire (with two photos) was submitted, paid and became a consultation. */
async function consultationWithPhotos(p?: Patient) {
  const patient = p ?? (await patientWithPassword(ctx));
  const ids = [await photoId(patient), await photoId(patient)];
  expect((await saveDraft(patient, [...FIXTURES.hair_growth.eligible, photoAnswer({ [ids[0]!]: 'hairline', [ids[1]!]: 'crown' })])).status).toBe(200);
  const submitted = await call(ctx, 'POST', `${HAIR}/submit/`, { token: patient.access });
  expect(submitted.status).toBe(200);
  expect(['eligible', 'held_for_review']).toContain(submitted.body.outcome);
  const { session } = await paySandbox(ctx, patient, { category: 'hair_growth', plan: 'one_off' });
  return { p: patient, ids, consultationId: session.consultation_id as string };
}

describe('the photo question', () => {
  it('is published in the hair-loss questionnaire with its views and how many photos it takes', async () => {
    const schema = await call(ctx, 'GET', `${HAIR}/schema/?locale=de`);
    expect(schema.status).toBe(200);
    const q = (schema.body.steps as Array<{ questions: Array<Record<string, unknown>> }>).flatMap((s) => s.questions).find((x) => x.question_key === 'hair_photos');
    expect(q).toMatchObject({ type: 'photo', required: true, min_photos: 2, max_photos: 4 });
    expect((q!.views as Array<{ value: string; label: string }>).map((v) => v.value)).toEqual(['hairline', 'temples', 'crown']);
    expect((q!.views as Array<{ label: string }>)[0]!.label).toBe('Haaransatz (vorne)');
  });

  it('is not part of a renewal (the renewal screen takes no uploads), even when the patient declares a change', () => {
    const keys = (steps: { questions: { question_key: string }[] }[]) => steps.flatMap((st) => st.questions.map((q) => q.question_key));
    expect(keys(currentVersion('hair_growth')!.steps)).toContain('hair_photos');
    expect(keys(renewalRuleSet(currentVersion('hair_growth')!, { steps: [], rules: [] }, true).steps)).not.toContain('hair_photos');
    expect(keys(renewalScreen('hair_growth')!.review_steps)).not.toContain('hair_photos');
    expect(keys(renewalScreen('hair_growth')!.review_steps)).toContain('hair_loss_pattern');
  });

  it('blocks submission without the required photos, and with fewer than the minimum', async () => {
    const p = await patientWithPassword(ctx);
    expect((await saveDraft(p, FIXTURES.hair_growth.eligible)).status).toBe(200);
    const none = await call(ctx, 'POST', `${HAIR}/submit/`, { token: p.access });
    expect(none.status).toBe(400);
    expect(none.body).toMatchObject({ error_name: 'QUESTIONNAIRE_INCOMPLETE', missing_answers: ['hair_photos'] });
    const one = await photoId(p);
    expect((await saveDraft(p, [...FIXTURES.hair_growth.eligible, photoAnswer({ [one]: 'crown' })])).status).toBe(200);
    const few = await call(ctx, 'POST', `${HAIR}/submit/`, { token: p.access });
    expect(few.body).toMatchObject({ error_name: 'QUESTIONNAIRE_INCOMPLETE', missing_answers: ['hair_photos'] });
    const two = await photoId(p);
    expect((await saveDraft(p, [...FIXTURES.hair_growth.eligible, photoAnswer({ [one]: 'crown', [two]: 'hairline' })])).status).toBe(200);
    expect((await call(ctx, 'POST', `${HAIR}/submit/`, { token: p.access })).body.outcome).toBe('eligible');
  });

  it('refuses a draft answer naming a photo that is not the account’s, not uploaded, a wrong view or too many', async () => {
    const mine = await patientWithPassword(ctx);
    const other = await patientWithPassword(ctx);
    const theirs = await photoId(other);
    const refused = await saveDraft(mine, [...FIXTURES.hair_growth.eligible, photoAnswer({ [theirs]: 'crown' })]);
    expect(refused.status).toBe(400);
    const index = FIXTURES.hair_growth.eligible.length;
    expect(refused.body).toEqual({ [`data[${index}].values`]: [`hair_photos: no photo "${theirs}" was uploaded for this question.`] });
    const madeUp = await saveDraft(mine, [...FIXTURES.hair_growth.eligible, photoAnswer({ '7d0c2f9e-1b4a-4c3d-9e8f-0a1b2c3d4e5f': 'crown' })]);
    expect(madeUp.status).toBe(400);
    const own = await photoId(mine);
    expect((await saveDraft(mine, [...FIXTURES.hair_growth.eligible, photoAnswer({ [own]: 'ear' })])).body[`data[${index}].values`][0]).toMatch(/view is one of: hairline, temples, crown/);
    expect((await saveDraft(mine, [...FIXTURES.hair_growth.eligible, { step_id: 3, question_key: 'hair_photos', value: own }])).status).toBe(400);
    const five = Object.fromEntries(await Promise.all([1, 2, 3, 4, 5].map(async () => [await photoId(mine), 'crown'] as const)));
    expect((await saveDraft(mine, [...FIXTURES.hair_growth.eligible, photoAnswer(five)])).body[`data[${index}].values`]).toEqual(['hair_photos: At most 4 photos.']);
  });
});

describe('uploading a photo', () => {
  it('accepts an image by its content, not its name, and refuses anything else with a field-keyed 400', async () => {
    const p = await patientWithPassword(ctx);
    const pngNamedJpg = await upload(p, { name: 'scalp.jpg', type: 'image/jpeg', data: await png() });
    expect(pngNamedJpg.status).toBe(201);
    expect(pngNamedJpg.body).toMatchObject({ category: 'hair_growth', question_key: 'hair_photos', width: 40, height: 30 });
    expect(pngNamedJpg.body.url).toBe(`${TEST_BASE_URL}/v1/users/photos/${pngNamedJpg.body.id}/`);
    expect(Date.parse(pngNamedJpg.body.created_at)).not.toBeNaN();

    const pdfNamedJpg = await upload(p, { name: 'scalp.jpg', type: 'image/jpeg', data: PDF });
    expect(pdfNamedJpg.status).toBe(400);
    expect(pdfNamedJpg.body).toEqual({ file: ['Send a photo: JPEG, PNG, WebP or HEIC.'] });
    expect((await upload(p, pdfPart(PDF))).body).toEqual({ file: ['Send a photo: JPEG, PNG, WebP or HEIC.'] });
    expect((await upload(p, undefined)).body).toEqual({ file: ['This field is required.'] });
    expect((await upload(p, { name: 'x.jpg', type: 'image/jpeg', data: await png() }, '')).body).toEqual({ question_key: ['This field is required.'] });
    expect((await upload(p, { name: 'x.jpg', type: 'image/jpeg', data: await png() }, 'bph_5ari')).body).toEqual({ question_key: ['"bph_5ari" is not a photo question.'] });
    expect((await upload(p, { name: 'x.jpg', type: 'image/jpeg', data: await png() }, 'nope')).status).toBe(400);
    expect((await upload(p, { name: 'x.jpg', type: 'image/jpeg', data: await png() }, 'hair_photos', 'no_such_category')).status).toBe(404);
    // A JSON body is not a photo.
    expect((await call(ctx, 'POST', `${HAIR}/photos/`, { token: p.access, json: { question_key: 'hair_photos' } })).status).toBe(400);
    expect((await call(ctx, 'POST', `${HAIR}/photos/`, {})).status).toBe(401);
    expect(Number(firstRow(await ctx.db.query('select count(*)::int as n from clinical_photos where user_id = $1', [p.id])).n)).toBe(1);
  });

  it('answers 413 for a photo over the size limit, as for a message attachment', async () => {
    const p = await patientWithPassword(ctx);
    const big = Buffer.concat([await png(), Buffer.alloc(16 * 1024 * 1024)]);
    const res = await upload(p, { name: 'big.png', type: 'image/png', data: big });
    expect(res.status).toBe(413);
    expect(res.body.code).toBe('file_too_large');
  });

  it('serves the re-encoded JPEG without EXIF or GPS, not cached, to its patient only', async () => {
    const p = await patientWithPassword(ctx);
    const sent = await jpegWithGps();
    expect(sent.includes(Buffer.from('PhoneMaker'))).toBe(true);
    const up = await upload(p, { name: 'IMG_0001.JPG', type: 'image/jpeg', data: sent });
    expect(up.status).toBe(201);
    const res = await bytes(p.access, up.body.url);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/jpeg');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    const served = res.rawPayload;
    expect(served.includes(Buffer.from('PhoneMaker'))).toBe(false);
    const meta = await sharp(served).metadata();
    expect(meta.format).toBe('jpeg');
    expect(meta.exif).toBeUndefined();
    expect([meta.width, meta.height]).toEqual([64, 48]);
    // Sealed at rest: the database holds no JPEG.
    const blob = firstRow(await ctx.db.query<{ sealed: Uint8Array }>('select b.sealed from clinical_photo_blobs b join clinical_photos p on p.storage_key = b.storage_key where p.id = $1', [up.body.id]));
    expect(Buffer.from(blob.sealed).subarray(0, 3).equals(Buffer.from([0xff, 0xd8, 0xff]))).toBe(false);

    const other = await patientWithPassword(ctx);
    expect((await bytes(other.access, up.body.url)).statusCode).toBe(404);
    expect((await bytes(undefined, up.body.url)).statusCode).toBe(401);
    // A photo no consultation shows is not the desk's to open.
    expect((await bytes(doctor.access, up.body.url.replace('/v1/users/', '/v1/clinician/'))).statusCode).toBe(404);
    expect((await bytes(p.access, up.body.url.replace('/v1/users/', '/v1/clinician/'))).statusCode).toBe(403);
  });
});

describe('key rotation', () => {
  it('reencrypt re-seals every photo with the active key; the photo still downloads the same', async () => {
    const p = await patientWithPassword(ctx);
    const up = await upload(p, { name: 'a.png', type: 'image/png', data: await png() });
    const before = (await bytes(p.access, up.body.url)).rawPayload;
    const next = await anotherInstance(ctx, { DATA_ENCRYPTION_KEYS: `k9:${randomBytes(32).toString('base64url')}` });
    try {
      expect((await resealPhotos(next.deps)).database).toBeGreaterThanOrEqual(1);
      const keys = await ctx.db.query<{ key_id: string }>('select distinct key_id from clinical_photo_blobs');
      expect(keys.map((k) => k.key_id)).toEqual(['k9']);
      const after = await next.app.inject({ method: 'GET', url: pathOf(up.body.url), headers: { authorization: `Bearer ${p.access}` } });
      expect(after.statusCode).toBe(200);
      expect(after.rawPayload.equals(before)).toBe(true);
    } finally {
      await next.close();
    }
  });
});

describe('a consultation’s images', () => {
  it('are the submitted photos after checkout, served to the patient, and to the desk with the views and an access-log entry', async () => {
    const { p, ids, consultationId } = await consultationWithPhotos();
    const mine = await call(ctx, 'GET', `/v1/users/consultations/${consultationId}/`, { token: p.access });
    expect(mine.status).toBe(200);
    expect((mine.body.images as Array<{ id: string }>).map((i) => i.id).sort()).toEqual([...ids].sort());
    for (const image of mine.body.images as Array<{ id: string; url: string; created_at: string }>) {
      expect(Object.keys(image).sort()).toEqual(['created_at', 'id', 'url']);
      expect(image.url).toBe(`${TEST_BASE_URL}/v1/users/photos/${image.id}/`);
      expect((await bytes(p.access, image.url)).statusCode).toBe(200);
    }
    const list = await call(ctx, 'GET', '/v1/users/consultations/', { token: p.access });
    expect(list.body.results[0].images).toEqual(mine.body.images);

    const desk = await call(ctx, 'GET', `/v1/clinician/consultations/${consultationId}/`, { token: doctor.access });
    expect(desk.status).toBe(200);
    expect(desk.body.images.map((i: { url: string }) => i.url)).toEqual(desk.body.images.map((i: { id: string }) => `${TEST_BASE_URL}/v1/clinician/photos/${i.id}/`));
    expect(desk.body.photos).toEqual(expect.arrayContaining([expect.objectContaining({ id: ids[0], view: 'hairline', view_label: 'Hairline (front)' }), expect.objectContaining({ id: ids[1], view: 'crown' })]));
    expect(desk.body.earlier_photos).toEqual([]);
    const seen = await bytes(doctor.access, desk.body.photos[0].url);
    expect(seen.statusCode).toBe(200);
    expect(seen.headers['content-type']).toBe('image/jpeg');
    const logged = await ctx.db.query("select actor_id, action from access_log where patient_id = $1 and resource_type = 'clinical_photo' and resource_id = $2", [p.id, desk.body.photos[0].id]);
    expect(logged).toEqual([{ actor_id: doctor.id, action: 'read' }]);
    const log = await call(ctx, 'GET', '/v1/users/me/access-log/', { token: p.access });
    expect(log.body.results.map((e: { resource_type: string }) => e.resource_type)).toContain('clinical_photo');
  });

  it('the desk compares with the same views of the patient’s earlier consultations', async () => {
    const first = await consultationWithPhotos();
    await ctx.db.query("update consultations set status = 'approved', decided_at = now() where id = $1", [first.consultationId]);
    const second = await consultationWithPhotos(first.p);
    const desk = await call(ctx, 'GET', `/v1/clinician/consultations/${second.consultationId}/`, { token: doctor.access });
    expect(desk.body.photos.map((x: { id: string }) => x.id).sort()).toEqual([...second.ids].sort());
    expect(desk.body.earlier_photos).toHaveLength(1);
    expect(desk.body.earlier_photos[0]).toMatchObject({ consultation_id: first.consultationId });
    expect(desk.body.earlier_photos[0].photos.map((x: { view: string }) => x.view).sort()).toEqual(['crown', 'hairline']);
  });

  it('a patient adds a photo to an open consultation (an information request goes back to review); closed ones refuse with 409', async () => {
    const { p, consultationId } = await consultationWithPhotos();
    const path = `/v1/users/consultations/${consultationId}/images/`;
    const asked = await call(ctx, 'POST', `/v1/clinician/consultations/${consultationId}/request-information/`, { token: doctor.access, json: { decision_reason: 'Please add a photo of the crown in daylight.' } });
    expect(asked.status).toBe(200);
    const added = await call(ctx, 'POST', path, { token: p.access, ...multipart({}, { name: 'crown.png', type: 'image/png', data: await png() }) });
    expect(added.status).toBe(201);
    expect(Object.keys(added.body).sort()).toEqual(['created_at', 'id', 'url']);
    const after = await call(ctx, 'GET', `/v1/users/consultations/${consultationId}/`, { token: p.access });
    expect(after.body.status).toBe('pending_review');
    expect(after.body.images).toHaveLength(3);
    expect(after.body.images.at(-1)).toEqual(added.body);
    const desk = await call(ctx, 'GET', `/v1/clinician/consultations/${consultationId}/`, { token: doctor.access });
    expect(desk.body.photos.find((x: { id: string }) => x.id === added.body.id)).toMatchObject({ view: null, view_label: null });

    const other = await patientWithPassword(ctx);
    expect((await call(ctx, 'POST', path, { token: other.access, ...multipart({}, { name: 'x.png', type: 'image/png', data: await png() }) })).status).toBe(404);
    expect((await call(ctx, 'POST', path, { token: p.access, ...multipart({}, pdfPart(PDF, 'x.jpg')) })).body).toEqual({ file: ['Send a photo: JPEG, PNG, WebP or HEIC.'] });

    await ctx.db.query("update consultations set status = 'approved', decided_at = now() where id = $1", [consultationId]);
    const closed = await call(ctx, 'POST', path, { token: p.access, ...multipart({}, { name: 'late.png', type: 'image/png', data: await png() }) });
    expect(closed.status).toBe(409);
    expect(closed.body).toMatchObject({ code: 'consultation_closed' });
    expect((await call(ctx, 'GET', `/v1/users/consultations/${consultationId}/`, { token: p.access })).body.images).toHaveLength(3);
  });

  it('parallel additions to one consultation all land', async () => {
    const { p, consultationId } = await consultationWithPhotos();
    const results = await Promise.all(
      [1, 2, 3].map(async () => call(ctx, 'POST', `/v1/users/consultations/${consultationId}/images/`, { token: p.access, ...multipart({}, { name: 'a.png', type: 'image/png', data: await png() }) })),
    );
    expect(results.map((r) => r.status)).toEqual([201, 201, 201]);
    expect((await call(ctx, 'GET', `/v1/users/consultations/${consultationId}/`, { token: p.access })).body.images).toHaveLength(5);
  });
});

describe('privacy and the connector', () => {
  it('the export lists the photos and the zip holds them; erasure deletes rows and bytes and empties the images', async () => {
    const { p, ids, consultationId } = await consultationWithPhotos();
    const json = await call(ctx, 'GET', '/v1/users/me/export/', { token: p.access });
    expect(json.status).toBe(200);
    expect(json.body.clinical_photos.map((x: { id: string }) => x.id).sort()).toEqual([...ids].sort());
    const zip = await ctx.app.inject({ method: 'GET', url: '/v1/users/me/export/?format=zip', headers: { authorization: `Bearer ${p.access}` } });
    expect(zip.statusCode).toBe(200);
    const files = unzipSync(new Uint8Array(zip.rawPayload));
    for (const id of ids) {
      const jpeg = files[`photos/${id}.jpg`];
      expect(jpeg).toBeDefined();
      expect((await sharp(Buffer.from(jpeg!)).metadata()).format).toBe('jpeg');
    }
    const index = JSON.parse(Buffer.from(files['export.json']!).toString()).files as Array<{ type: string; id: string }>;
    expect(index.filter((f) => f.type === 'clinical_photo').map((f) => f.id).sort()).toEqual([...ids].sort());

    const other = await consultationWithPhotos();
    const erased = await call(ctx, 'DELETE', '/v1/users/me/', { token: p.access, json: { password: PASSWORD } });
    expect(erased.status).toBe(204);
    expect(await ctx.db.query('select id from clinical_photos where user_id = $1', [p.id])).toEqual([]);
    expect(await ctx.db.query('select b.storage_key from clinical_photo_blobs b where b.storage_key not in (select storage_key from clinical_photos)')).toEqual([]);
    const kept = firstRow(await ctx.db.query<{ images: unknown }>('select images from consultations where id = $1', [consultationId]));
    expect(typeof kept.images === 'string' ? JSON.parse(kept.images) : kept.images).toEqual([]);
    // Another patient's photos stay.
    expect(await ctx.db.query('select id from clinical_photos where user_id = $1', [other.p.id])).toHaveLength(2);
  });

  it('the connector’s consultations never carry an image, its id or its address', async () => {
    const { p, ids, consultationId } = await consultationWithPhotos();
    const f = await listen(ctx);
    const { client } = await connectAs(f, p.email, new MemoryProvider('http://127.0.0.1:53791/callback'));
    try {
      const listed = await client.callTool({ name: 'list_consultations', arguments: {} });
      const resource = await client.readResource({ uri: `patient://consultations/${consultationId}` });
      const seen = JSON.stringify([listed, resource]);
      expect(seen).toContain(consultationId);
      for (const id of ids) expect(seen).not.toContain(id);
      expect(seen).not.toMatch(/\/photos\/|images/);
    } finally {
      await client.close();
    }
  });
});
