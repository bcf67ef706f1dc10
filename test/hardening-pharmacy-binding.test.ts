// Issue 43: every pharmacist saw and moved every partner pharmacy's orders. Pharmacies are records
// (the central dispatch pharmacy is one); a back-office admin (or the operator's CLI) assigns a
// pharmacist to a pharmacy; an order is routed to a pharmacy (default: the central dispatch one); a
// pharmacist sees and moves only their pharmacy's orders, another pharmacy's order is 404 exactly as
// a missing one (docs/pharmacy.md, "Pharmacies and their pharmacists").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli.ts';
import { call, createTestContext, firstRow, newStaff, seedPatient, type Patient, type TestContext } from './support/harness.ts';

let ctx: TestContext;
let admin: Patient;
let central: Patient;
let markt: Patient;
let marktId: string;
let centralId: string;
beforeAll(async () => {
  ctx = await createTestContext();
  admin = await newStaff(ctx, 'backoffice_admin');
  central = await newStaff(ctx, 'pharmacist');
  markt = await newStaff(ctx, 'pharmacist');
  centralId = firstRow(await ctx.db.query<{ id: string }>('select id from partner_pharmacies where is_central')).id;
  const made = await call(ctx, 'POST', '/v1/backoffice/pharmacies/', {
    token: admin.access,
    json: { name: 'Apotheke am Markt', address_line: 'Marktplatz 3', postal_code: '10115', city: 'Berlin', country: 'DEU', click_and_collect: true, delivery: true },
  });
  expect(made.status, made.text).toBe(201);
  marktId = made.body.id;
});
afterAll(async () => ctx?.close());

async function newOrder(): Promise<string> {
  const p = await seedPatient(ctx, { addresses: [{ street: 'Hauptstr. 1', postal_code: '10115', city: 'Berlin', country: 'DEU', is_default: true }] });
  const row = await ctx.db.query<{ id: string }>(
    `insert into orders (user_id, status, items, shipping_address) values ($1, 'awaiting_fulfilment', '[]'::jsonb, $2::jsonb) returning id`,
    [p.id, JSON.stringify({ street: 'Hauptstr. 1', postal_code: '10115', city: 'Berlin', country: 'DEU' })],
  );
  return firstRow(row).id;
}
const queue = async (who: Patient) => ((await call(ctx, 'GET', '/v1/pharmacy/orders/?limit=200', { token: who.access })).body.results as { id: string }[]).map((o) => o.id);
const assign = (pharmacistId: string, pharmacy_id: string, token = admin.access) => call(ctx, 'PUT', `/v1/backoffice/pharmacists/${pharmacistId}/pharmacy/`, { token, json: { pharmacy_id } });
const route = (orderId: string, pharmacy_id: string, token = admin.access) => call(ctx, 'PUT', `/v1/backoffice/orders/${orderId}/pharmacy/`, { token, json: { pharmacy_id } });

describe('pharmacists bound to their pharmacy', () => {
  it('the central dispatch pharmacy is a record, not offered to patients for collection or nearby', async () => {
    const p = await seedPatient(ctx, { country_of_residence: 'DEU', postal_code: '10115', city: 'Berlin' });
    const nearby = await call(ctx, 'GET', '/v1/users/pharmacies/?limit=100', { token: p.access });
    expect(nearby.status).toBe(200);
    expect(nearby.body.results.map((x: { id: string }) => x.id)).not.toContain(centralId);
    expect(nearby.body.results.map((x: { id: string }) => x.id)).toContain(marktId);
    expect((await call(ctx, 'GET', `/v1/backoffice/pharmacies/${centralId}/`, { token: admin.access })).body.name).toBe('Central dispatch pharmacy');
  });

  it('only a back-office admin assigns; unknown pharmacists are 404, unknown pharmacies a field error', async () => {
    expect((await assign(markt.id, marktId, central.access)).status).toBe(403);
    const patient = await seedPatient(ctx);
    expect((await assign(patient.id, marktId)).status).toBe(404);
    expect((await assign('00000000-0000-4000-8000-000000000000', marktId)).status).toBe(404);
    const bad = await assign(markt.id, '00000000-0000-4000-8000-000000000000');
    expect(bad.status).toBe(400);
    expect(bad.body).toHaveProperty('pharmacy_id');
    const ok = await assign(markt.id, marktId);
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body).toMatchObject({ pharmacist_id: markt.id, pharmacy: { id: marktId, name: 'Apotheke am Markt' }, is_central: false, assigned_at: expect.any(String) });
    expect(await ctx.db.query("select 1 from audit_log where action = 'pharmacist.assigned' and subject_id = $1", [markt.id])).toHaveLength(1);
  });

  it('orders go to the central dispatch pharmacy; routed elsewhere, only that pharmacy sees and moves them (other = 404)', async () => {
    expect((await assign(markt.id, marktId)).status).toBe(200);
    const a = await newOrder();
    const b = await newOrder();
    // By default both are the central dispatch pharmacy's: its (unassigned) pharmacist sees them, Markt's does not.
    expect(await queue(central)).toEqual(expect.arrayContaining([a, b]));
    expect(await queue(markt)).not.toContain(a);
    expect((await call(ctx, 'GET', `/v1/pharmacy/orders/${a}/`, { token: markt.access })).status).toBe(404);
    // The back office routes b to Markt.
    expect((await route(b, marktId, markt.access)).status).toBe(403);
    const routed = await route(b, marktId);
    expect(routed.status, routed.text).toBe(200);
    expect(routed.body).toEqual({ order_id: b, pharmacy_id: marktId });
    expect(await queue(markt)).toContain(b);
    expect(await queue(central)).not.toContain(b);
    // Another pharmacy's order: 404 exactly as a missing one, for the read and for every move; nothing changes.
    const missing = await call(ctx, 'GET', '/v1/pharmacy/orders/00000000-0000-4000-8000-000000000000/', { token: central.access });
    const other = await call(ctx, 'GET', `/v1/pharmacy/orders/${b}/`, { token: central.access });
    expect(other.status).toBe(404);
    expect(other.body).toEqual(missing.body);
    const moves: [string, unknown][] = [
      ['dispense', { batch: 'L1', expiry: '2027-01-01' }],
      ['dispatch', { carrier: 'DHL', tracking_number: 'X1' }],
      ['deliver', undefined],
      ['undeliverable', { reason: 'Returned.' }],
      ['reship', undefined],
    ];
    for (const [move, json] of moves) {
      const r = await call(ctx, 'POST', `/v1/pharmacy/orders/${b}/${move}/`, { token: central.access, ...(json === undefined ? {} : { json }) });
      expect(r.status, move).toBe(404);
    }
    expect(firstRow(await ctx.db.query('select status from orders where id = $1', [b])).status).toBe('awaiting_fulfilment');
    // The pharmacy's own pharmacist moves it.
    const shipped = await call(ctx, 'POST', `/v1/pharmacy/orders/${b}/dispatch/`, { token: markt.access, json: { carrier: 'DHL', tracking_number: 'X1' } });
    expect(shipped.status, shipped.text).toBe(200);
    // Routed back to central: Markt loses it.
    expect((await route(a, 'central')).body).toEqual({ order_id: a, pharmacy_id: null });
    expect((await route('00000000-0000-4000-8000-000000000000', 'central')).status).toBe(404);
    expect((await route(a, '00000000-0000-4000-8000-000000000000')).status).toBe(400);
  });

  it('moving a pharmacist to another pharmacy moves what they see', async () => {
    const pharmacist = await newStaff(ctx, 'pharmacist');
    const order = await newOrder();
    await route(order, marktId);
    expect(await queue(pharmacist)).not.toContain(order);
    expect((await assign(pharmacist.id, marktId)).status).toBe(200);
    expect(await queue(pharmacist)).toContain(order);
    expect((await assign(pharmacist.id, 'central')).body).toMatchObject({ is_central: true, pharmacy: { id: centralId } });
    expect(await queue(pharmacist)).not.toContain(order);
  });

  it('two pharmacies dispatching in parallel: each moves only its own order', async () => {
    const mine = await newOrder();
    const theirs = await newOrder();
    await route(theirs, marktId);
    const body = { carrier: 'DHL', tracking_number: 'P1' };
    const results = await Promise.all([
      call(ctx, 'POST', `/v1/pharmacy/orders/${mine}/dispatch/`, { token: central.access, json: body }),
      call(ctx, 'POST', `/v1/pharmacy/orders/${theirs}/dispatch/`, { token: central.access, json: body }),
      call(ctx, 'POST', `/v1/pharmacy/orders/${theirs}/dispatch/`, { token: markt.access, json: body }),
      call(ctx, 'POST', `/v1/pharmacy/orders/${mine}/dispatch/`, { token: markt.access, json: body }),
    ]);
    expect(results.map((r) => r.status)).toEqual([200, 404, 200, 404]);
  });

  it('the operator CLI assigns too (assign-pharmacy)', async () => {
    const pharmacist = await newStaff(ctx, 'pharmacist');
    expect((await runCli(['assign-pharmacy', '--email', pharmacist.email, '--pharmacy', 'nowhere'], {}, { deps: ctx.deps })).code).toBe(2);
    expect((await runCli(['assign-pharmacy', '--email', 'nobody@example.org', '--pharmacy', 'central'], {}, { deps: ctx.deps })).code).toBe(1);
    const done = await runCli(['assign-pharmacy', '--email', pharmacist.email, '--pharmacy', marktId], {}, { deps: ctx.deps });
    expect(done.code, done.out).toBe(0);
    expect(firstRow(await ctx.db.query('select pharmacy_id from pharmacist_pharmacies where pharmacist_id = $1', [pharmacist.id])).pharmacy_id).toBe(marktId);
  });
});
