// The patient's own doctor (GP) on the profile and the consent to share with them (issue: the record
// travels; docs/profile.md, docs/interoperability.md): `gp` is an extension of the spec's profile,
// validated field by field, removable, in the export and the FHIR summary (generalPractitioner), and
// the `gp_sharing` consent is recorded with its version like the other kinds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestContext, seedPatient, type TestContext } from './support/harness.ts';
import { DocumentChecker, publishedDocuments } from './support/openapi.ts';

let ctx: TestContext;
let checker: DocumentChecker;
beforeAll(async () => {
  ctx = await createTestContext();
  checker = new DocumentChecker((await publishedDocuments(ctx)).all);
});
afterAll(async () => ctx?.close());

const GP = { name: 'Dr. Hanna Weber', practice: 'Praxis am Markt', address: 'Marktplatz 1, 10115 Berlin', email: 'praxis@weber.example' };

describe('the patient’s own doctor', () => {
  it('is set, shown, exported, in the FHIR summary and removed; another account never sees it', async () => {
    const a = await seedPatient(ctx, { first_name: 'Gp', last_name: 'Owner' });
    const b = await seedPatient(ctx);
    expect((await checker.call(ctx, 'GET', '/v1/users/profile/me/', { token: a.access })).body.gp).toBeNull();
    const set = await checker.call(ctx, 'PATCH', '/v1/users/profile/me/', { token: a.access, json: { gp: GP } });
    expect(set.status, set.text).toBe(200);
    expect(set.body.gp).toEqual(GP);
    expect((await call(ctx, 'GET', '/v1/users/profile/', { token: a.access })).body.gp).toEqual(GP);
    // Another field's change keeps it.
    expect((await call(ctx, 'PATCH', '/v1/users/profile/me/', { token: a.access, json: { city: 'Berlin' } })).body.gp).toEqual(GP);
    expect((await call(ctx, 'GET', '/v1/users/profile/me/', { token: b.access })).body.gp).toBeNull();

    const exported = await call(ctx, 'GET', '/v1/users/me/export/', { token: a.access });
    expect(exported.body.profile.gp).toEqual(GP);
    const fhir = JSON.parse((await ctx.app.inject({ method: 'GET', url: '/v1/users/me/export/?format=fhir', headers: { authorization: `Bearer ${a.access}` } })).body);
    const resources = fhir.entry.map((e: { resource: { resourceType: string } }) => e.resource);
    const patient = resources.find((r: { resourceType: string }) => r.resourceType === 'Patient');
    const gp = resources.find((r: { id: string }) => `urn:uuid:${r.id}` === patient.generalPractitioner[0].reference);
    expect(gp).toMatchObject({ resourceType: 'Practitioner', name: [{ text: GP.name }], telecom: [{ system: 'email', value: GP.email }], address: [{ text: 'Praxis am Markt, Marktplatz 1, 10115 Berlin' }] });

    const cleared = await call(ctx, 'PATCH', '/v1/users/profile/me/', { token: a.access, json: { gp: null } });
    expect(cleared.body.gp).toBeNull();
  });

  it('refuses an incomplete doctor with field errors and stores nothing', async () => {
    const p = await seedPatient(ctx);
    const bad = await checker.call(ctx, 'PATCH', '/v1/users/profile/me/', { token: p.access, json: { gp: { ...GP, email: 'not-an-address', name: '' } } });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body).sort()).toEqual(['gp.email', 'gp.name']);
    expect((await call(ctx, 'GET', '/v1/users/profile/me/', { token: p.access })).body.gp).toBeNull();
  });

  it('records the gp_sharing consent and its withdrawal with the version, per account', async () => {
    const p = await seedPatient(ctx);
    const other = await seedPatient(ctx);
    expect((await checker.call(ctx, 'POST', '/v1/users/me/consents/', { token: p.access, json: { kind: 'gp_sharing', version: '2026-12', granted: true } })).status).toBe(201);
    expect((await call(ctx, 'POST', '/v1/users/me/consents/', { token: p.access, json: { kind: 'gp_sharing', version: '2026-12', granted: false } })).status).toBe(201);
    const mine = (await call(ctx, 'GET', '/v1/users/me/consents/', { token: p.access })).body;
    expect(mine.current).toEqual([expect.objectContaining({ kind: 'gp_sharing', version: '2026-12', granted: false })]);
    expect(mine.history.map((c: { granted: boolean }) => c.granted)).toEqual([false, true]);
    expect((await call(ctx, 'GET', '/v1/users/me/consents/', { token: other.access })).body.current).toEqual([]);
  });
});
