// Identity and weight verification over HTTP (docs/verification.md): the sandbox identity page, a
// name or birth date that differs from the profile going to the desk, the reset on a profile change,
// the photo on the scales and the desk's decision entering the journal, duplicate-identity signals,
// the approval gate (PATIENT_VERIFICATION required and optional), renewal options, export, erasure.
import { randomBytes, randomUUID } from 'node:crypto';
import { unzipSync } from 'fflate';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paySandbox, readyPatient, staff } from './billing-fixtures.ts';
import { raiseVerificationDue, resealVerificationImages } from '../src/modules/verification/index.ts';
import { anotherInstance, call, createTestContext, firstRow, type Patient, type TestContext } from './support/harness.ts';

interface Part {
  name: string;
  value?: string;
  file?: { filename: string; type: string; data: Buffer };
}

/** A multipart/form-data body with any number of text fields and files. */
function form(parts: Part[]) {
  const boundary = `----pts${randomUUID()}`;
  const chunks: Buffer[] = [];
  for (const p of parts) {
    if (p.file) {
      chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"; filename="${p.file.filename}"\r\nContent-Type: ${p.file.type}\r\n\r\n`), p.file.data, Buffer.from('\r\n'));
    } else {
      chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"\r\n\r\n${p.value ?? ''}\r\n`));
    }
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** A JPEG carrying camera metadata (which must never be kept). */
const photo = (color = '#884422') =>
  sharp({ create: { width: 64, height: 48, channels: 3, background: color } })
    .jpeg()
    .withExif({ IFD0: { Make: 'PhoneMaker', Model: 'X1' } })
    .toBuffer();
const jpegFile = async (filename = 'p.jpg', color?: string) => ({ filename, type: 'image/jpeg', data: await photo(color) });

interface Reading {
  first_name?: string;
  last_name?: string;
  date_of_birth?: string;
  document_number?: string;
  issuing_country?: string;
}

/** Starts an identity check and completes the sandbox page with this reading of the document. */
async function sandboxIdentity(ctx: TestContext, p: Patient, reading: Reading = {}) {
  const start = await call(ctx, 'POST', '/v1/users/verification/identity/', { token: p.access, json: {} });
  expect(start.status, start.text).toBe(201);
  const path = new URL(start.body.verification_url).pathname;
  const r = { first_name: 'Ada', last_name: 'Lovelace', date_of_birth: '1985-04-12', document_number: `L${randomUUID().slice(0, 8)}`, issuing_country: 'DEU', ...reading };
  const body = form([
    { name: 'id_photo', file: await jpegFile('id.jpg', '#224488') },
    { name: 'selfie', file: await jpegFile('selfie.jpg', '#448822') },
    ...Object.entries(r).map(([name, value]) => ({ name, value })),
  ]);
  const res = await call(ctx, 'POST', `${path}approve/`, body);
  expect(res.status, res.text).toBe(303);
  return { path, redirect: res.headers.location as string, reading: r };
}

async function submitWeight(ctx: TestContext, p: Patient, weight = '104.5') {
  const res = await call(ctx, 'POST', '/v1/users/verification/weight/', { token: p.access, ...form([{ name: 'weight_kg', value: weight }, { name: 'file', file: await jpegFile('scales.jpg') }]) });
  expect(res.status, res.text).toBe(201);
  return res.body.id as string;
}

const status = async (ctx: TestContext, p: Patient) => (await call(ctx, 'GET', '/v1/users/verification/', { token: p.access })).body;

async function binary(ctx: TestContext, url: string, token: string) {
  const res = await ctx.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
  return { status: res.statusCode, type: String(res.headers['content-type']), data: Buffer.from(res.rawPayload), body: res.body };
}

describe('verification (PATIENT_VERIFICATION optional: the default outside production)', () => {
  let ctx: TestContext;
  let doctor: Patient;
  beforeAll(async () => {
    ctx = await createTestContext();
    doctor = await staff(ctx, 'doctor');
  });
  afterAll(async () => {
    await ctx?.close();
  });

  it('a new patient has nothing verified; every category lists what it requires', async () => {
    const p = await readyPatient(ctx);
    const s = await status(ctx, p);
    expect(s.identity).toEqual({ status: 'not_started', checked_at: null });
    expect(s.weight).toEqual({ status: 'not_started', weight_kg: null, verified_at: null, due_at: null });
    const byCategory = Object.fromEntries(s.requirements.map((r: any) => [r.category, r]));
    expect(byCategory.weight_loss).toEqual({ category: 'weight_loss', required: ['identity', 'weight'], missing: ['identity', 'weight'] });
    expect(byCategory.hair_growth).toEqual({ category: 'hair_growth', required: ['identity'], missing: ['identity'] });
    expect(byCategory.emergency_contraception).toEqual({ category: 'emergency_contraception', required: [], missing: [] });
    expect((await call(ctx, 'GET', '/v1/users/verification/')).status).toBe(401);
  });

  it('the sandbox page: ID photo and selfie, the reading matches the profile -> verified; the page shows the profile prefilled', async () => {
    const p = await readyPatient(ctx);
    const start = await call(ctx, 'POST', '/v1/users/verification/identity/', { token: p.access, json: {} });
    expect(start.status).toBe(201);
    expect(start.body).toEqual({ status: 'pending', verification_url: expect.stringMatching(/^http:\/\/api\.test\.local\/sandbox\/identity\/idv_sandbox_[0-9a-f]{32}\/$/) });
    // A second start while one is open answers the same session.
    const again = await call(ctx, 'POST', '/v1/users/verification/identity/', { token: p.access, json: {} });
    expect(again.body.verification_url).toBe(start.body.verification_url);
    expect((await status(ctx, p)).identity.status).toBe('pending');

    const path = new URL(start.body.verification_url).pathname;
    const page = await call(ctx, 'GET', path);
    expect(page.status).toBe(200);
    expect(page.text).toContain('capture="user"');
    expect(page.text).toContain('capture="environment"');
    expect(page.text).toContain('value="Lovelace"');
    expect(page.text).toContain('value="1985-04-12"');
    // Without the photos nothing is decided.
    const noPhotos = await call(ctx, 'POST', `${path}approve/`, form([{ name: 'first_name', value: 'Ada' }, { name: 'last_name', value: 'Lovelace' }, { name: 'date_of_birth', value: '1985-04-12' }]));
    expect(noPhotos.status).toBe(400);
    expect((await status(ctx, p)).identity.status).toBe('pending');

    const body = form([
      { name: 'id_photo', file: await jpegFile('id.jpg') },
      { name: 'selfie', file: await jpegFile('selfie.jpg') },
      { name: 'first_name', value: 'ADA AUGUSTA' },
      { name: 'last_name', value: 'Lovelace' },
      { name: 'date_of_birth', value: '1985-04-12' },
      { name: 'document_number', value: 'T22000129' },
      { name: 'issuing_country', value: 'DEU' },
    ]);
    const res = await call(ctx, 'POST', `${path}approve/`, body);
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('http://api.test.local/verification/?identity=done');
    const s = await status(ctx, p);
    expect(s.identity).toEqual({ status: 'verified', checked_at: expect.any(String) });
    expect(s.requirements.find((r: any) => r.category === 'hair_growth').missing).toEqual([]);
    // The document number is kept only as a keyed hash; the images are sealed, without metadata.
    const row = firstRow(await ctx.db.query('select * from identity_verifications where user_id = $1', [p.id]));
    expect(JSON.stringify(row)).not.toContain('T22000129');
    expect(row.document_hash).toMatch(/^[0-9a-f]{64}$/);
    const blob = firstRow(await ctx.db.query('select sealed from verification_blobs where storage_key = $1', [row.id_photo_key]));
    expect(Buffer.from(blob.sealed).includes(Buffer.from('PhoneMaker'))).toBe(false);
    // Verified already: a new check is refused.
    const done = await call(ctx, 'POST', '/v1/users/verification/identity/', { token: p.access, json: {} });
    expect(done.status).toBe(409);
    expect(done.body).toEqual({ detail: 'Your identity is already verified.', code: 'identity_already_verified' });
    // The page of a finished session no longer takes an approval.
    expect((await call(ctx, 'GET', path)).text).toContain('finished');
  });

  it('a return_url outside the web app is refused (no open redirect)', async () => {
    const p = await readyPatient(ctx);
    const res = await call(ctx, 'POST', '/v1/users/verification/identity/', { token: p.access, json: { return_url: 'https://evil.example/' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ return_url: ['The return address must be a page of the web app.'] });
  });

  it('a birth date or name that differs from the profile goes to the desk (needs_review), never a silent pass; the doctor decides', async () => {
    const p = await readyPatient(ctx);
    await sandboxIdentity(ctx, p, { date_of_birth: '1985-04-13', last_name: 'Byron' });
    const s = await status(ctx, p);
    expect(s.identity.status).toBe('needs_review');
    expect(s.requirements.find((r: any) => r.category === 'hair_growth').missing).toEqual(['identity']);

    const q = await call(ctx, 'GET', '/v1/clinician/identity-verifications/?limit=100', { token: doctor.access });
    expect(q.status).toBe(200);
    const item = q.body.results.find((v: any) => v.user_id === p.id);
    expect(item).toMatchObject({
      status: 'needs_review',
      provider: 'sandbox',
      mismatches: ['last_name', 'date_of_birth'],
      profile: { first_name: 'Ada', last_name: 'Lovelace', date_of_birth: '1985-04-12' },
      document: { first_name: 'Ada', last_name: 'Byron', date_of_birth: '1985-04-13', issuing_country: 'DEU' },
    });
    // The images are served to the desk as clean JPEGs, and the view is in the patient's access log.
    const img = await binary(ctx, new URL(item.images.selfie_url).pathname, doctor.access);
    expect(img.status).toBe(200);
    expect(img.type).toBe('image/jpeg');
    expect((await sharp(img.data).metadata()).exif).toBeUndefined();
    const log = await call(ctx, 'GET', '/v1/users/me/access-log/?limit=100', { token: p.access });
    expect(log.body.results.filter((e: any) => e.resource_type === 'verification' && e.resource_id === item.id).length).toBeGreaterThanOrEqual(2);
    // A patient cannot reach the desk's routes.
    expect((await call(ctx, 'GET', new URL(item.images.selfie_url).pathname, { token: p.access })).status).toBe(403);

    const bad = await call(ctx, 'POST', `/v1/clinician/identity-verifications/${item.id}/decide/`, { token: doctor.access, json: { decision: 'maybe', reason: 'x' } });
    expect(bad.status).toBe(400);
    const ok = await call(ctx, 'POST', `/v1/clinician/identity-verifications/${item.id}/decide/`, { token: doctor.access, json: { decision: 'verified', reason: 'Birth date misread by the patient; the document photo shows 12 April.' } });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ status: 'verified', decided_by: doctor.id });
    expect((await status(ctx, p)).identity.status).toBe('verified');
    const twice = await call(ctx, 'POST', `/v1/clinician/identity-verifications/${item.id}/decide/`, { token: doctor.access, json: { decision: 'rejected', reason: 'x' } });
    expect(twice.status).toBe(409);
    expect(twice.body).toEqual({ detail: 'This verification was already decided.', code: 'verification_already_decided' });
    const missing = await call(ctx, 'POST', `/v1/clinician/identity-verifications/${randomUUID()}/decide/`, { token: doctor.access, json: { decision: 'verified', reason: 'x' } });
    expect(missing.status).toBe(404);
  });

  it('changing the name or birth date in the profile after verification resets it; other profile fields do not', async () => {
    const p = await readyPatient(ctx);
    await sandboxIdentity(ctx, p);
    expect((await status(ctx, p)).identity.status).toBe('verified');
    const city = await call(ctx, 'PATCH', '/v1/users/profile/me/', { token: p.access, json: { city: 'Berlin', first_name: 'ada' } });
    expect(city.status).toBe(200);
    expect((await status(ctx, p)).identity.status).toBe('verified');
    const dob = await call(ctx, 'PATCH', '/v1/users/profile/me/', { token: p.access, json: { date_of_birth: '1986-04-12' } });
    expect(dob.status).toBe(200);
    expect((await status(ctx, p)).identity).toEqual({ status: 'not_started', checked_at: null });
    // A new check is possible again.
    expect((await call(ctx, 'POST', '/v1/users/verification/identity/', { token: p.access, json: {} })).status).toBe(201);

    const q = await readyPatient(ctx);
    await sandboxIdentity(ctx, q);
    await call(ctx, 'PATCH', '/v1/users/profile/me/', { token: q.access, json: { last_name: 'King' } });
    expect((await status(ctx, q)).identity.status).toBe('not_started');
  });

  it('the sandbox page can reject: the check is rejected', async () => {
    const p = await readyPatient(ctx);
    const start = await call(ctx, 'POST', '/v1/users/verification/identity/', { token: p.access, json: {} });
    const path = new URL(start.body.verification_url).pathname;
    const res = await call(ctx, 'POST', `${path}reject/`);
    expect(res.status).toBe(303);
    expect((await status(ctx, p)).identity).toEqual({ status: 'rejected', checked_at: expect.any(String) });
    expect((await call(ctx, 'GET', '/sandbox/identity/idv_sandbox_00000000000000000000000000000000/')).status).toBe(404);
  });

  it('a photo on the scales: refused by content, then verified by the desk into the journal (who, when)', async () => {
    const p = await readyPatient(ctx);
    const pdf = await call(ctx, 'POST', '/v1/users/verification/weight/', { token: p.access, ...form([{ name: 'weight_kg', value: '100' }, { name: 'file', file: { filename: 'x.jpg', type: 'image/jpeg', data: Buffer.from('%PDF-1.4\n%fake\n') } }]) });
    expect(pdf.status).toBe(400);
    expect(pdf.body).toEqual({ detail: 'Send a JPEG, PNG, WebP or HEIC photo.', code: 'unsupported_image' });
    const noFile = await call(ctx, 'POST', '/v1/users/verification/weight/', { token: p.access, ...form([{ name: 'weight_kg', value: '100' }]) });
    expect(noFile.status).toBe(400);
    expect(noFile.body.code).toBe('photo_required');
    const noWeight = await call(ctx, 'POST', '/v1/users/verification/weight/', { token: p.access, ...form([{ name: 'file', file: await jpegFile() }]) });
    expect(noWeight.status).toBe(400);
    expect(noWeight.body).toEqual({ weight_kg: ['This field is required.'] });
    const tooLight = await call(ctx, 'POST', '/v1/users/verification/weight/', { token: p.access, ...form([{ name: 'weight_kg', value: '5' }, { name: 'file', file: await jpegFile() }]) });
    expect(tooLight.body).toEqual({ weight_kg: ['Enter a weight between 20 and 500 kg.'] });
    expect(Number(firstRow(await ctx.db.query('select count(*)::int as n from weight_verifications where user_id = $1', [p.id])).n)).toBe(0);

    const res = await call(ctx, 'POST', '/v1/users/verification/weight/', { token: p.access, ...form([{ name: 'weight_kg', value: '104.5' }, { name: 'file', file: await jpegFile('scales.jpg') }]) });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.any(String), status: 'pending' });
    expect((await status(ctx, p)).weight).toEqual({ status: 'pending', weight_kg: null, verified_at: null, due_at: null });

    const q = await call(ctx, 'GET', '/v1/clinician/weight-verifications/?limit=100', { token: doctor.access });
    const item = q.body.results.find((w: any) => w.id === res.body.id);
    expect(item).toMatchObject({ status: 'pending', claimed_weight_kg: 104.5, weight_kg: null, user: { id: p.id, first_name: 'Ada' } });
    const img = await binary(ctx, new URL(item.photo_url).pathname, doctor.access);
    expect(img.status).toBe(200);
    expect(img.data.includes(Buffer.from('PhoneMaker'))).toBe(false);

    const needsWeight = await call(ctx, 'POST', `/v1/clinician/weight-verifications/${item.id}/decide/`, { token: doctor.access, json: { decision: 'verified' } });
    expect(needsWeight.status).toBe(400);
    expect(needsWeight.body).toEqual({ weight_kg: ['The weight read on the scales is required to verify.'] });
    const ok = await call(ctx, 'POST', `/v1/clinician/weight-verifications/${item.id}/decide/`, { token: doctor.access, json: { decision: 'verified', weight_kg: 104.2 } });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ status: 'verified', weight_kg: 104.2, decided_by: doctor.id });
    const s = await status(ctx, p);
    expect(s.weight).toMatchObject({ status: 'verified', weight_kg: 104.2, verified_at: expect.any(String) });
    expect(new Date(s.weight.due_at).getTime() - new Date(item.created_at).getTime()).toBe(180 * 24 * 3600 * 1000);
    const entry = firstRow(await ctx.db.query('select weight_kg, verified_by, verified_at from weight_entries where user_id = $1', [p.id]));
    expect({ kg: Number(entry.weight_kg), by: entry.verified_by, at: Boolean(entry.verified_at) }).toEqual({ kg: 104.2, by: doctor.id, at: true });
    expect((await call(ctx, 'POST', `/v1/clinician/weight-verifications/${item.id}/decide/`, { token: doctor.access, json: { decision: 'rejected', reason: 'x' } })).status).toBe(409);

    // Rejection needs a reason; another account sees nothing of this patient's checks.
    const second = await submitWeight(ctx, p, '90');
    const noReason = await call(ctx, 'POST', `/v1/clinician/weight-verifications/${second}/decide/`, { token: doctor.access, json: { decision: 'rejected' } });
    expect(noReason.body).toEqual({ reason: ['Say why the photo does not verify the weight (the patient is told).'] });
    const other = await readyPatient(ctx);
    expect((await status(ctx, other)).weight.status).toBe('not_started');
    const foreign = await call(ctx, 'GET', `/v1/clinician/weight-verifications/${second}/photo/`, { token: other.access });
    expect(foreign.status).toBe(403);
    const unknown = await call(ctx, 'GET', `/v1/clinician/weight-verifications/${randomUUID()}/photo/`, { token: doctor.access });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ detail: 'Not found.' });
  });

  it('optional: the desk shows the state, the warning and duplicate signals, and lets the doctor approve', async () => {
    const a = await readyPatient(ctx);
    const b = await readyPatient(ctx);
    // The same document, the same card (the sandbox's default test card) and the same address.
    await sandboxIdentity(ctx, a, { document_number: 'C01X00T47', issuing_country: 'DEU' });
    await sandboxIdentity(ctx, b, { document_number: 'c01x-00t47', issuing_country: 'deu' });
    const address = [{ label: 'Home', line1: 'Unter den Linden 1', line2: '', city: 'Berlin', postal_code: '10117', country: 'DEU', is_default: true }];
    await call(ctx, 'PATCH', '/v1/users/profile/me/', { token: a.access, json: { addresses: address } });
    await call(ctx, 'PATCH', '/v1/users/profile/me/', { token: b.access, json: { addresses: [{ ...address[0], line1: 'unter den linden 1.' }] } });
    await paySandbox(ctx, a);
    const { session } = await paySandbox(ctx, b);
    const id = session.consultation_id as string;

    const d = await call(ctx, 'GET', `/v1/clinician/consultations/${id}/`, { token: doctor.access });
    expect(d.status).toBe(200);
    expect(d.body.verification).toMatchObject({ mode: 'optional', required: ['identity', 'weight'], missing: ['weight'], identity: { status: 'verified' }, weight: { status: 'not_started' } });
    expect(d.body.verification.warning).toContain('weight');
    const signals = Object.fromEntries(d.body.verification.duplicate_signals.map((s: any) => [s.kind, s.account_ids]));
    expect(signals.identity_document).toContain(a.id);
    expect(signals.card).toContain(a.id);
    expect(signals.delivery_address).toContain(a.id);

    const approve = await call(ctx, 'POST', `/v1/clinician/consultations/${id}/approve/`, { token: doctor.access, json: {} });
    expect(approve.status, approve.text).toBe(200);
  });

  it('export (JSON and zip) holds the verification records and images; erasure removes them', async () => {
    const p = await readyPatient(ctx);
    await sandboxIdentity(ctx, p, { document_number: 'X99887766' });
    const w = await submitWeight(ctx, p);
    const ex = await call(ctx, 'GET', '/v1/users/me/export/', { token: p.access });
    expect(ex.status).toBe(200);
    expect(ex.body.verification.identity_verifications).toEqual([expect.objectContaining({ status: 'verified', document_hash: expect.stringMatching(/^[0-9a-f]{64}$/), images: ['id_photo', 'selfie'] })]);
    expect(ex.body.verification.weight_verifications).toEqual([expect.objectContaining({ id: w, status: 'pending', claimed_weight_kg: 104.5 })]);
    expect(ex.text).not.toContain('X99887766');
    const zip = await ctx.app.inject({ method: 'GET', url: '/v1/users/me/export/?format=zip', headers: { authorization: `Bearer ${p.access}` } });
    expect(zip.statusCode).toBe(200);
    const names = Object.keys(unzipSync(new Uint8Array(zip.rawPayload)));
    expect(names.filter((n) => n.startsWith('verification/')).sort()).toEqual([expect.stringMatching(/identity-.*-id_photo\.jpg$/), expect.stringMatching(/identity-.*-selfie\.jpg$/), `verification/weight-${w}.jpg`].sort());

    const keys = (await ctx.db.query('select id_photo_key as k from identity_verifications where user_id = $1 union all select photo_key from weight_verifications where user_id = $1', [p.id])).map((r) => r.k);
    expect(keys).toHaveLength(2);
    const erase = await call(ctx, 'DELETE', '/v1/users/me/', { token: p.access, json: { confirm: 'DELETE' } });
    expect(erase.status).toBe(204);
    expect(await ctx.db.query('select id from identity_verifications where user_id = $1 union all select id from weight_verifications where user_id = $1', [p.id])).toEqual([]);
    expect(await ctx.db.query('select storage_key from verification_blobs where storage_key = any($1::text[])', [keys])).toEqual([]);
  });
});

describe('verification required (PATIENT_VERIFICATION=required)', () => {
  let ctx: TestContext;
  let doctor: Patient;
  beforeAll(async () => {
    ctx = await createTestContext({ PATIENT_VERIFICATION: 'required' });
    doctor = await staff(ctx, 'doctor');
  });
  afterAll(async () => {
    await ctx?.close();
  });

  it('approving a first consultation answers 409 verification_required with what is missing, until it is done', async () => {
    const p = await readyPatient(ctx);
    const { session } = await paySandbox(ctx, p);
    const id = session.consultation_id as string;
    const approve = () => call(ctx, 'POST', `/v1/clinician/consultations/${id}/approve/`, { token: doctor.access, json: {} });
    const first = await approve();
    expect(first.status).toBe(409);
    expect(first.body).toEqual({ code: 'verification_required', detail: expect.any(String), missing: ['identity', 'weight'] });
    expect(firstRow(await ctx.db.query('select status from consultations where id = $1', [id])).status).toBe('pending_review');
    const view = await call(ctx, 'GET', `/v1/clinician/consultations/${id}/`, { token: doctor.access });
    expect(view.body.verification).toMatchObject({ mode: 'required', missing: ['identity', 'weight'] });
    expect(view.body.verification.warning).toContain('blocked');

    await sandboxIdentity(ctx, p);
    const second = await approve();
    expect(second.status).toBe(409);
    expect(second.body.missing).toEqual(['weight']);

    const w = await submitWeight(ctx, p);
    expect((await approve()).body.missing).toEqual(['weight']);
    await call(ctx, 'POST', `/v1/clinician/weight-verifications/${w}/decide/`, { token: doctor.access, json: { decision: 'verified', weight_kg: 104 } });
    const done = await approve();
    expect(done.status, done.text).toBe(200);
    expect(done.body.status).toBe('approved');

    // The verified weight is in the journal, marked verified; the patient's edit of it ends the mark.
    const entries = await call(ctx, 'GET', '/v1/users/journal/weight-entries/', { token: p.access });
    expect(entries.status, entries.text).toBe(200);
    const entry = entries.body.results[0];
    expect(entry).toMatchObject({ weight_kg: 104, verified_by: doctor.id, verified_at: expect.any(String) });
    const same = await call(ctx, 'PATCH', `/v1/users/journal/weight-entries/${entry.id}/`, { token: p.access, json: { note: 'after breakfast' } });
    expect(same.body).toMatchObject({ verified_by: doctor.id });
    const edited = await call(ctx, 'PATCH', `/v1/users/journal/weight-entries/${entry.id}/`, { token: p.access, json: { weight_kg: 99 } });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ weight_kg: 99, verified_by: null, verified_at: null });
  });

  it('a category that needs identity only is approved once the identity is verified; a reset blocks again', async () => {
    const p = await readyPatient(ctx, 'hair_growth');
    const { session } = await paySandbox(ctx, p, { category: 'hair_growth', plan: 'subscription' });
    const id = session.consultation_id as string;
    const r1 = await call(ctx, 'POST', `/v1/clinician/consultations/${id}/approve/`, { token: doctor.access, json: {} });
    expect(r1.body).toEqual({ code: 'verification_required', detail: expect.any(String), missing: ['identity'] });
    await sandboxIdentity(ctx, p);
    await call(ctx, 'PATCH', '/v1/users/profile/me/', { token: p.access, json: { first_name: 'Augusta' } });
    const r2 = await call(ctx, 'POST', `/v1/clinician/consultations/${id}/approve/`, { token: doctor.access, json: {} });
    expect(r2.body.missing).toEqual(['identity']);
  });

  it('renewal options say what is missing, and that an expired verified weight needs a new photo', async () => {
    const p = await readyPatient(ctx);
    const opts = async () => (await call(ctx, 'GET', '/v1/users/subscriptions/renewal-options/?category=weight_loss', { token: p.access })).body.verification;
    expect(await opts()).toEqual({ required: ['identity', 'weight'], missing: ['identity', 'weight'], weight_due_at: null, weight_expired: false, message: expect.stringContaining('The doctor can approve only once this is done.') });
    await sandboxIdentity(ctx, p);
    const w = await submitWeight(ctx, p);
    await call(ctx, 'POST', `/v1/clinician/weight-verifications/${w}/decide/`, { token: doctor.access, json: { decision: 'verified', weight_kg: 104 } });
    expect(await opts()).toMatchObject({ missing: [], weight_expired: false, message: null });
    // The photo was taken 181 days ago: the verified weight has expired.
    await ctx.db.query(`update weight_verifications set created_at = now() - interval '181 days' where id = $1`, [w]);
    const expired = await opts();
    expect(expired).toMatchObject({ missing: ['weight'], weight_expired: true });
    expect(expired.message).toContain('Your verified weight expired on');
    expect((await status(ctx, p)).weight.status).toBe('not_started');
  });
});

describe('key rotation', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(async () => {
    await ctx?.close();
  });

  it('reencrypt re-seals the identity images and the scale photos with the active key; the desk still opens them', async () => {
    const doctor = await staff(ctx, 'doctor');
    const p = await readyPatient(ctx);
    await sandboxIdentity(ctx, p, { document_number: 'R12345678' });
    const w = await submitWeight(ctx, p);
    const photoUrl = `/v1/clinician/weight-verifications/${w}/photo/`;
    const before = await binary(ctx, photoUrl, doctor.access);
    expect(before.status).toBe(200);
    const next = await anotherInstance(ctx, { DATA_ENCRYPTION_KEYS: `k9:${randomBytes(32).toString('base64url')}` });
    try {
      expect((await resealVerificationImages(next.deps)).database).toBe(3);
      const keys = await ctx.db.query<{ key_id: string }>('select distinct key_id from verification_blobs');
      expect(keys.map((k) => k.key_id)).toEqual(['k9']);
      const after = await next.app.inject({ method: 'GET', url: photoUrl, headers: { authorization: `Bearer ${doctor.access}` } });
      expect(after.statusCode).toBe(200);
      expect(Buffer.from(after.rawPayload).equals(before.data)).toBe(true);
      // A second run finds nothing left to re-seal.
      expect(await resealVerificationImages(next.deps)).toEqual({ database: 0, s3: 0 });
    } finally {
      await next.close();
    }
  });
});

describe('a verified weight about to expire', () => {
  let ctx: TestContext;
  let doctor: Patient;
  beforeAll(async () => {
    ctx = await createTestContext();
    doctor = await staff(ctx, 'doctor');
  });
  afterAll(async () => {
    await ctx?.close();
  });

  const dueRows = async (userId: string) =>
    ctx.db.query<{ channel: string }>("select channel from notification_deliveries where user_id = $1 and kind = 'verification_due' order by channel", [userId]);

  it('is announced once, two weeks before it expires, to a patient whose plan needs it', async () => {
    const onPlan = await readyPatient(ctx);
    await paySandbox(ctx, onPlan, { category: 'weight_loss', plan: 'subscription' });
    const noPlan = await readyPatient(ctx);
    for (const p of [onPlan, noPlan]) {
      const w = await submitWeight(ctx, p);
      const ok = await call(ctx, 'POST', `/v1/clinician/weight-verifications/${w}/decide/`, { token: doctor.access, json: { decision: 'verified', weight_kg: 104 } });
      expect(ok.status, ok.text).toBe(200);
    }
    // A fresh photo: nothing is due.
    expect(await raiseVerificationDue(ctx.deps)).toBe(0);
    // Photographed 170 days ago: it expires in 10 days (after 180), inside the two weeks' notice.
    await ctx.db.query("update weight_verifications set created_at = now() - interval '170 days' where user_id = any($1::uuid[])", [[onPlan.id, noPlan.id]]);
    expect(await raiseVerificationDue(ctx.deps)).toBe(1);
    expect(await raiseVerificationDue(ctx.deps)).toBe(1);
    // One event (one row per channel of the kind), however often the sweep runs; none without a plan.
    expect((await dueRows(onPlan.id)).map((r) => r.channel)).toEqual(['email', 'push', 'sms']);
    expect(await dueRows(noPlan.id)).toEqual([]);
    // A new verified photo ends it: the newest weight is fresh again.
    const again = await submitWeight(ctx, onPlan);
    expect((await call(ctx, 'POST', `/v1/clinician/weight-verifications/${again}/decide/`, { token: doctor.access, json: { decision: 'verified', weight_kg: 101 } })).status).toBe(200);
    expect(await raiseVerificationDue(ctx.deps)).toBe(0);
  });
});
