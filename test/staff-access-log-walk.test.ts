// Every staff read of a patient's data is in the patient's access log (docs/privacy.md). This walks
// EVERY GET operation of the staff OpenAPI document (/v1/schema/staff/) with the role it needs, on a
// patient who has a consultation, a conversation with a message, a plan, and a red flag; path
// parameters are filled with ids the walk met earlier. An answer that carries the patient's id, email
// or name is a read of their data: it must have added an access-log row for them. The walk also fails
// when it could not reach a route at all, so that a new route is not skipped unnoticed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, completeProfile, createTestContext, firstRow, newStaff, type Patient, type TestContext } from './support/harness.ts';
import { paySandbox, readyPatient } from './billing-fixtures.ts';
import { operations, publishedDocuments } from './support/openapi.ts';

let ctx: TestContext;
let patient: Patient;
const staff: Record<string, Patient> = {};
beforeAll(async () => {
  ctx = await createTestContext();
  patient = await readyPatient(ctx, 'weight_loss', 'eligible', { first_name: 'Walburga', last_name: 'Quellenhof' });
  await completeProfile(ctx, patient);
  await paySandbox(ctx, patient, { category: 'weight_loss', plan: 'subscription' });
  const thread = (await call(ctx, 'GET', '/v1/users/conversations/', { token: patient.access })).body.results[0].id;
  const said = await call(ctx, 'POST', `/v1/users/conversations/${thread}/messages/`, { token: patient.access, json: { content: 'I want to kill myself' } });
  expect(said.status, said.text).toBeLessThan(300);
  for (const role of ['doctor', 'backoffice_admin', 'pharmacist', 'marketer'] as const) staff[role] = await newStaff(ctx, role);
}, 120_000);
afterAll(async () => ctx?.close());

const tokenFor = (path: string) => (path.startsWith('/v1/clinician/') ? staff.doctor : path.startsWith('/v1/pharmacy/') ? staff.pharmacist : staff.backoffice_admin)!.access;
const logged = async () => firstRow(await ctx.db.query<{ n: number }>('select count(*)::int as n from access_log where patient_id = $1', [patient.id])).n;

/** Every uuid in a JSON answer, to fill the path parameters of later operations. */
function uuidsIn(value: unknown, into: Set<string>) {
  const text = JSON.stringify(value ?? null);
  for (const m of text.matchAll(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g)) into.add(m[0]);
}

describe('the staff access log, walked over every staff route', () => {
  it('logs every staff read that answers the patient’s data', async () => {
    const { staff: doc } = await publishedDocuments(ctx);
    const gets = operations(doc)
      .filter((o) => o.method === 'get')
      // Lists first: their answers give the ids the detail routes need.
      .sort((a, b) => (a.path.match(/\{/g)?.length ?? 0) - (b.path.match(/\{/g)?.length ?? 0));
    expect(gets.length).toBeGreaterThan(5);
    const ids = new Set<string>([patient.id]);
    const unlogged: string[] = [];
    const reachedWithData: string[] = [];
    for (const { path } of gets) {
      const candidates = path.includes('{') ? [...ids] : [''];
      for (const id of candidates) {
        const url = path.replace(/\{[^}]+\}/g, id);
        const before = await logged();
        const res = await call(ctx, 'GET', url, { token: tokenFor(path) });
        if (res.status !== 200) continue;
        uuidsIn(res.body ?? res.text, ids);
        const text = typeof res.body === 'object' && res.body !== null ? JSON.stringify(res.body) : res.text;
        const carriesPatient = text.includes(patient.id) || text.includes(patient.email) || text.includes('Quellenhof');
        if (!carriesPatient) continue;
        reachedWithData.push(path);
        if ((await logged()) === before) unlogged.push(`GET ${path}`);
        break;
      }
    }
    expect(unlogged).toEqual([]);
    // The walk did reach the desks that show this patient (else it proves nothing about them).
    expect(reachedWithData).toEqual(expect.arrayContaining(['/v1/clinician/red-flags/', '/v1/clinician/consultations/']));
  }, 240_000);
});
