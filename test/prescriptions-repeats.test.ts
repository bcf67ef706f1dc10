// Repeats stated by the doctor (docs/prescriptions.md, "Repeats"): the approval states repeats and
// the minimum interval (bounded by the catalogue per medicine, none in a plan's consultation, within
// the validity), both printed in the signed PDF; the pharmacy desk refuses a repeat before the
// interval (409 repeat_too_early with earliest_at) and after the last one (409 already_dispensed);
// two pharmacists dispensing one repeat at once: exactly one succeeds; the patient's detail and the
// public verification show what is used and left and when next; a reissue keeps what is left and
// the interval from the original's last dispensing. The test clock moves forward in this file.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestContext, newStaff, type Patient, type TestContext } from './support/harness.ts';
import { germanPatient, PRESCRIPTION_SELLER } from './support/prescription-fixtures.ts';
import { multipart, pdfPart } from './support/multipart.ts';
import { pdfText } from './support/pdf-text.ts';
import { advanceTestClock, callAsFresh, freshToken, paySandbox } from './billing-fixtures.ts';
import { withPhotos } from './support/photo-answers.ts';
import { FIXTURES } from './questionnaires.fixtures.ts';
import { maxRepeats } from '../src/modules/fulfilment/products.ts';

const DAY = 24 * 3600 * 1000;
let ctx: TestContext;
let doctor: Patient;
let pharmacist: Patient;
let admin: Patient;

beforeAll(async () => {
  ctx = await createTestContext(PRESCRIPTION_SELLER);
  doctor = await newStaff(ctx, 'doctor');
  pharmacist = await newStaff(ctx, 'pharmacist');
  admin = await newStaff(ctx, 'backoffice_admin');
}, 60_000);
afterAll(async () => {
  await ctx?.close();
});

const patient = () => germanPatient(ctx);

async function pending(plan: 'one_off' | 'subscription' = 'one_off'): Promise<{ p: Patient; consultationId: string }> {
  const p = await patient();
  const token = await freshToken(ctx, p);
  expect((await call(ctx, 'PATCH', '/v1/users/questionnaires/hair_growth/progress/', { token, json: { data: await withPhotos(ctx, token, 'hair_growth', FIXTURES.hair_growth.eligible) } })).status).toBe(200);
  expect((await call(ctx, 'POST', '/v1/users/questionnaires/hair_growth/submit/', { token })).body.outcome).toBe('eligible');
  const { session } = await paySandbox(ctx, { ...p, access: token }, { category: 'hair_growth', plan });
  return { p, consultationId: session.consultation_id };
}

const approve = async (consultationId: string, json: Record<string, unknown>) => callAsFresh(ctx, doctor, 'POST', `/v1/clinician/consultations/${consultationId}/approve/`, json);
const dispense = async (orderId: string, who = pharmacist) => callAsFresh(ctx, who, 'POST', `/v1/pharmacy/orders/${orderId}/dispense/`, { batch: 'LOT-7', expiry: '2028-06-30' });
const detailOf = async (p: Patient, rxId: string) => callAsFresh(ctx, p, 'GET', `/v1/users/prescriptions/${rxId}/`);

/** Another order of the prescription waiting for the pharmacy (the supply a repeat dispenses). */
async function repeatOrder(p: Patient, rxId: string, consultationId: string): Promise<string> {
  const rows = await ctx.db.query<{ id: string }>(
    `insert into orders (user_id, consultation_id, prescription_id, status, items, shipping_address, created_at, updated_at)
     select user_id, consultation_id, prescription_id, 'awaiting_fulfilment', items, shipping_address, now(), now() from orders where prescription_id = $1 and consultation_id = $2 limit 1
     returning id`,
    [rxId, consultationId],
  );
  expect(rows.length, `no order of ${p.email}'s prescription to copy`).toBe(1);
  return rows[0]!.id;
}

async function download(p: Patient, rxId: string): Promise<Buffer> {
  const res = await ctx.app.inject({ method: 'GET', url: `/v1/users/prescriptions/${rxId}/pdf/`, headers: { authorization: `Bearer ${await freshToken(ctx, p)}` } });
  expect(res.statusCode).toBe(200);
  return res.rawPayload;
}

async function verify(pdf: Buffer) {
  const body = multipart({}, pdfPart(pdf, 'prescription.pdf'));
  const res = await ctx.app.inject({ method: 'POST', url: '/v1/prescriptions/verify/', payload: body.payload, headers: body.headers });
  expect(res.statusCode).toBe(200);
  return res.json();
}

function pdfsigValid(pdf: Buffer): boolean {
  const dir = mkdtempSync(join(tmpdir(), 'rx-repeats-'));
  writeFileSync(join(dir, 'rx.pdf'), pdf);
  try {
    return execFileSync('/usr/bin/pdfsig', [join(dir, 'rx.pdf')], { encoding: 'utf8' }).includes('Signature is Valid');
  } catch {
    return false;
  }
}

async function approvedWithRepeats(repeats: number, interval: number) {
  const { p, consultationId } = await pending();
  const ok = await approve(consultationId, { repeats, repeat_interval_days: interval });
  expect(ok.status, ok.text).toBe(200);
  const rx = (await callAsFresh(ctx, p, 'GET', '/v1/users/prescriptions/')).body.results[0];
  const orders = (await callAsFresh(ctx, p, 'GET', '/v1/users/orders/')).body;
  return { p, consultationId, rxId: rx.id as string, orderId: orders[0].id as string };
}

describe('the catalogue bounds repeats per medicine', () => {
  it('none for emergency contraception, antibiotics and titrated GLP-1s; continuous treatments within the validity', () => {
    for (const id of ['levonorgestrel', 'ulipristal', 'doxycycline', 'azithromycin', 'nitrofurantoin', 'fosfomycin', 'semaglutide', 'tirzepatide', 'dapoxetine']) expect(maxRepeats(id), id).toBe(0);
    expect(maxRepeats('finasteride')).toBe(5);
    expect(maxRepeats('emtricitabine-tenofovir')).toBe(2);
    expect(maxRepeats('not-a-treatment')).toBe(0);
  });
});

describe('the approval states repeats', () => {
  it('refuses what the catalogue, the validity or a plan does not allow; the desk shows the maximum', async () => {
    const { consultationId } = await pending();
    const desk = await callAsFresh(ctx, doctor, 'GET', `/v1/clinician/consultations/${consultationId}/`);
    expect(desk.body.treatment_options.find((t: { id: string }) => t.id === 'finasteride')).toMatchObject({ max_repeats: 5 });
    const cases: [Record<string, unknown>, string][] = [
      [{ repeats: 6, repeat_interval_days: 28 }, 'repeats'],
      [{ repeats: 2 }, 'repeat_interval_days'],
      [{ repeat_interval_days: 28 }, 'repeat_interval_days'],
      [{ repeats: 5, repeat_interval_days: 40 }, 'repeat_interval_days'],
    ];
    for (const [json, field] of cases) {
      const r = await approve(consultationId, json);
      expect(r.status, JSON.stringify(json)).toBe(400);
      expect(Object.keys(r.body), JSON.stringify(json)).toEqual([field]);
    }
    // Out of the schema's bounds: a field error too.
    expect((await approve(consultationId, { repeats: 13, repeat_interval_days: 1 })).status).toBe(400);
    expect((await approve(consultationId, { repeats: 1, repeat_interval_days: 0 })).status).toBe(400);
    // Nothing was issued by the refusals.
    const rows = await ctx.db.query<{ n: number }>('select count(*)::int as n from prescriptions where consultation_id = $1', [consultationId]);
    expect(rows[0]!.n).toBe(0);

    // A plan's consultation: the plan's renewals supply it.
    const plan = await pending('subscription');
    const planDesk = await callAsFresh(ctx, doctor, 'GET', `/v1/clinician/consultations/${plan.consultationId}/`);
    expect(planDesk.body.treatment_options.every((t: { max_repeats: number }) => t.max_repeats === 0)).toBe(true);
    const refused = await approve(plan.consultationId, { repeats: 1, repeat_interval_days: 28 });
    expect(refused.status).toBe(400);
    expect(refused.body.repeats).toEqual([expect.stringContaining('plan')]);
  }, 120_000);

  it('prints repeats and interval in the signed PDF (pdfsig valid); default 0 prints none and keeps dispensing once', async () => {
    const { p, rxId } = await approvedWithRepeats(2, 30);
    const pdf = await download(p, rxId);
    expect(pdfsigValid(pdf)).toBe(true);
    const text = (await pdfText(pdf)).replace(/\s+/g, ' ');
    expect(text).toContain('Dispensings: 1 + 2 repeat(s)');
    expect(text).toContain('Minimum interval between dispensings: 30 days');
    expect(text).toContain(`${ctx.deps.config.WEB_APP_URL}/verify?code=${rxId}`);
    const d = await detailOf(p, rxId);
    expect(d.body).toMatchObject({ repeats: 2, dispensing: { status: 'not_dispensed', dispensings_allowed: 3, dispensed_count: 0, repeats_used: 0, repeats_left: 2, repeat_interval_days: 30, next_dispensing_from: null } });

    const { p: p0, consultationId } = await pending();
    expect((await approve(consultationId, {})).status).toBe(200);
    const rx0 = (await callAsFresh(ctx, p0, 'GET', '/v1/users/prescriptions/')).body.results[0];
    const text0 = (await pdfText(await download(p0, rx0.id))).replace(/\s+/g, ' ');
    expect(text0).toContain('Dispensings: once (no repeats)');
    expect(text0).not.toContain('Minimum interval');
    expect((await detailOf(p0, rx0.id)).body.dispensing).toMatchObject({ dispensings_allowed: 1, repeats_left: 0, repeat_interval_days: null, next_dispensing_from: null });
  }, 120_000);
});

describe('dispensing repeats at the pharmacy desk', () => {
  it('a repeat waits for the interval (409 repeat_too_early with the date), then exactly one of two parallel dispenses wins; after the last repeat 409 already_dispensed', async () => {
    const { p, consultationId, rxId, orderId } = await approvedWithRepeats(1, 30);
    const first = await dispense(orderId);
    expect(first.status, first.text).toBe(200);
    const d1 = await detailOf(p, rxId);
    const firstAt = new Date(d1.body.dispensing.dispensed_at as string);
    const earliest = new Date(firstAt.getTime() + 30 * DAY).toISOString();
    expect(d1.body.dispensing).toMatchObject({ status: 'partly_dispensed', dispensed_count: 1, repeats_used: 0, repeats_left: 1, repeat_interval_days: 30, next_dispensing_from: earliest });
    const pdf = await download(p, rxId);
    expect((await verify(pdf))).toMatchObject({ valid: true, status: 'active', dispensing: { dispensings_allowed: 2, dispensed_count: 1, repeats_left: 1, repeat_interval_days: 30, next_dispensing_from: earliest } });

    const second = await repeatOrder(p, rxId, consultationId);
    const early = await dispense(second);
    expect(early.status).toBe(409);
    expect(early.body).toEqual({ code: 'repeat_too_early', detail: expect.stringContaining(earliest), earliest_at: earliest });
    // The desk's look-up says the same.
    const desk = await callAsFresh(ctx, pharmacist, 'GET', `/v1/pharmacy/prescriptions/${rxId}/`);
    expect(desk.body.dispensing).toMatchObject({ next_dispensing_from: earliest, repeats_left: 1 });

    await advanceTestClock(ctx, admin, 30);
    const other = await newStaff(ctx, 'pharmacist');
    const [a, b] = await Promise.all([dispense(second), dispense(second, other)]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    expect((a.status === 409 ? a : b).body.code).toBe('already_dispensed');
    const rows = await ctx.db.query<{ n: number }>('select count(*)::int as n from prescription_dispensings where prescription_id = $1', [rxId]);
    expect(rows[0]!.n).toBe(2);
    expect((await detailOf(p, rxId)).body.dispensing).toMatchObject({ status: 'dispensed', dispensed_count: 2, repeats_used: 1, repeats_left: 0, next_dispensing_from: null });
    expect(await verify(pdf)).toMatchObject({ valid: true, status: 'dispensed', dispensing: { repeats_left: 0, next_dispensing_from: null } });

    // After the last repeat, however long after: already dispensed.
    await advanceTestClock(ctx, admin, 31);
    const third = await repeatOrder(p, rxId, consultationId);
    const late = await dispense(third);
    expect(late.status).toBe(409);
    expect(late.body.code).toBe('already_dispensed');

    // Another account's prescription stays a 404 for the patient.
    const stranger = await patient();
    expect((await detailOf(stranger, rxId)).status).toBe(404);
  }, 180_000);

  it('a reissue keeps the repeats left and the interval, counted from the original’s last dispensing', async () => {
    const { p, consultationId, rxId, orderId } = await approvedWithRepeats(2, 20);
    expect((await dispense(orderId)).status).toBe(200);
    const firstAt = new Date((await detailOf(p, rxId)).body.dispensing.dispensed_at as string);
    const waiting = await repeatOrder(p, rxId, consultationId);
    const asked = await callAsFresh(ctx, p, 'POST', `/v1/users/prescriptions/${rxId}/reissue-requests/`, { reason: 'Lost the printout.' });
    expect(asked.status, asked.text).toBe(201);
    const ok = await callAsFresh(ctx, doctor, 'POST', `/v1/clinician/reissue-requests/${asked.body.id}/approve/`, {});
    expect(ok.status, ok.text).toBe(200);
    const newId = ok.body.new_prescription_id as string;
    const earliest = new Date(firstAt.getTime() + 20 * DAY).toISOString();
    expect((await detailOf(p, newId)).body).toMatchObject({ repeats: 1, dispensing: { dispensings_allowed: 2, dispensed_count: 0, repeats_left: 1, repeat_interval_days: 20, next_dispensing_from: earliest } });
    const text = (await pdfText(await download(p, newId))).replace(/\s+/g, ' ');
    expect(text).toContain('Dispensings: 1 + 1 repeat(s)');
    expect(text).toContain('Minimum interval between dispensings: 20 days');
    // The waiting order moved to the new prescription: its dispensing is a repeat and waits too.
    const early = await dispense(waiting);
    expect(early.status).toBe(409);
    expect(early.body).toMatchObject({ code: 'repeat_too_early', earliest_at: earliest });
  }, 120_000);
});
