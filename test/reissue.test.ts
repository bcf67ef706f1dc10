// Prescription reissue requests through HTTP (docs/pharmacy.md).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestContext, newStaff, seedPatient, type Patient, type TestContext } from './support/harness.ts';
import { paySandbox } from './billing-fixtures.ts';
import { FIXTURES } from './questionnaires.fixtures.ts';
import { withPhotos } from './support/photo-answers.ts';

let ctx: TestContext;
let doctor: Patient;
beforeAll(async () => {
  ctx = await createTestContext();
  doctor = await newStaff(ctx, 'doctor');
});
afterAll(async () => {
  await ctx?.close();
});

/** A patient with one prescription (an approved hair-growth consultation). */
async function prescribed(): Promise<{ p: Patient; rxId: string }> {
  const p = await seedPatient(ctx, { first_name: 'Ada', last_name: 'Test', date_of_birth: '1985-04-12', country_of_residence: 'DEU', gender: '0', locale: 'fr' });
  expect((await call(ctx, 'PATCH', '/v1/users/questionnaires/hair_growth/progress/', { token: p.access, json: { data: await withPhotos(ctx, p.access, 'hair_growth', FIXTURES.hair_growth.eligible) } })).status).toBe(200);
  expect((await call(ctx, 'POST', '/v1/users/questionnaires/hair_growth/submit/', { token: p.access })).body.outcome).toBe('eligible');
  const { session } = await paySandbox(ctx, p, { category: 'hair_growth', plan: 'one_off' });
  expect((await call(ctx, 'POST', `/v1/clinician/consultations/${session.consultation_id}/approve/`, { token: doctor.access, json: {} })).status).toBe(200);
  const list = await call(ctx, 'GET', '/v1/users/prescriptions/', { token: p.access });
  return { p, rxId: list.body.results[0].id };
}
const ask = (p: Patient, rxId: string, reason = 'I lost the paper prescription.') => call(ctx, 'POST', `/v1/users/prescriptions/${rxId}/reissue-requests/`, { token: p.access, json: { reason } });

describe('prescription reissue requests', () => {
  it('201 pending; one pending per prescription (409 reissue_request_pending); listed newest first', async () => {
    const { p, rxId } = await prescribed();
    const r = await ask(p, rxId);
    expect(r.status, r.text).toBe(201);
    expect(r.body).toMatchObject({ id: expect.any(String), prescription_id: rxId, status: 'pending', reason: 'I lost the paper prescription.', created_at: expect.any(String) });
    const again = await ask(p, rxId, 'Again');
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ detail: expect.any(String), code: 'reissue_request_pending' });
    const list = await call(ctx, 'GET', '/v1/users/prescriptions/reissue-requests/', { token: p.access });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ count: 1, results: [{ id: r.body.id, status: 'pending' }] });
  });

  it("another account's or an unknown prescription is 404 {detail}; an empty reason is a field error", async () => {
    const { rxId } = await prescribed();
    const other = await seedPatient(ctx);
    const r = await ask(other, rxId);
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ detail: expect.any(String) });
    expect((await ask(other, '00000000-0000-4000-8000-000000000000')).status).toBe(404);
    const empty = await ask(other, rxId, ' ');
    expect(empty.status).toBe(400);
    expect(empty.body).toHaveProperty('reason');
    expect((await call(ctx, 'GET', '/v1/users/prescriptions/reissue-requests/', { token: other.access })).body.count).toBe(0);
  });

  it('a prescription past its validity cannot be reissued (409 prescription_not_reissuable)', async () => {
    const { p, rxId } = await prescribed();
    await ctx.db.query("update prescriptions set valid_until = now() - interval '1 day' where id = $1", [rxId]);
    const r = await ask(p, rxId);
    expect(r.status).toBe(409);
    expect(r.body.code).toBe('prescription_not_reissuable');
  });

  it('the doctor approves: a new prescription naming the original; the patient is mailed; a second decision is 409', async () => {
    const { p, rxId } = await prescribed();
    const req = (await ask(p, rxId)).body;
    expect((await call(ctx, 'GET', '/v1/clinician/reissue-requests/', { token: p.access })).status).toBe(403);
    const queue = await call(ctx, 'GET', '/v1/clinician/reissue-requests/?limit=100', { token: doctor.access });
    expect(queue.status).toBe(200);
    expect(queue.body.results.find((x: any) => x.id === req.id)).toMatchObject({ patient: { id: p.id, first_name: 'Ada' }, prescription: { treatment_name: expect.any(String) } });
    const ok = await call(ctx, 'POST', `/v1/clinician/reissue-requests/${req.id}/approve/`, { token: doctor.access, json: {} });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body).toMatchObject({ status: 'approved', new_prescription_id: expect.any(String), decided_at: expect.any(String) });
    const rxs = await call(ctx, 'GET', '/v1/users/prescriptions/', { token: p.access });
    expect(rxs.body.count).toBe(2);
    expect(rxs.body.results.find((x: any) => x.id === ok.body.new_prescription_id)).toMatchObject({ reissued_from: rxId });
    expect(await ctx.db.query("select 1 from mail_outbox where to_address = $1 and template = 'prescription_reissue_decided'", [p.email])).toHaveLength(1);
    const twice = await call(ctx, 'POST', `/v1/clinician/reissue-requests/${req.id}/decline/`, { token: doctor.access, json: { reason: 'No.' } });
    expect(twice.status).toBe(409);
    expect(twice.body.code).toBe('invalid_status_transition');
    // A new request may follow once the first is decided.
    expect((await ask(p, rxId)).status).toBe(201);
  });

  it('the doctor declines with a reason; the patient sees it', async () => {
    const { p, rxId } = await prescribed();
    const req = (await ask(p, rxId)).body;
    expect((await call(ctx, 'POST', `/v1/clinician/reissue-requests/${req.id}/decline/`, { token: doctor.access, json: { reason: '' } })).status).toBe(400);
    const no = await call(ctx, 'POST', `/v1/clinician/reissue-requests/${req.id}/decline/`, { token: doctor.access, json: { reason: 'A new consultation is needed first.' } });
    expect(no.status, no.text).toBe(200);
    const mine = await call(ctx, 'GET', '/v1/users/prescriptions/reissue-requests/', { token: p.access });
    expect(mine.body.results[0]).toMatchObject({ status: 'declined', decision_reason: 'A new consultation is needed first.', new_prescription_id: null });
    expect((await call(ctx, 'POST', '/v1/clinician/reissue-requests/00000000-0000-4000-8000-000000000000/approve/', { token: doctor.access, json: {} })).status).toBe(404);
  });
});
