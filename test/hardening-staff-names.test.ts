// Issue 43: a back-office reader appeared in the patient's access log with an empty name. Every staff
// account is named (the CLI, the service and the database refuse one without a first and last name);
// the access log shows the staff member's name and role; an entry written while its actor had no
// name shows the name now, else says "Unnamed staff member", never an empty string.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli.ts';
import { createStaff } from '../src/modules/accounts/service.ts';
import { call, createTestContext, PASSWORD, seedPatient, uniqueEmail, type TestContext } from './support/harness.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => ctx?.close());

describe('every staff account is named', () => {
  it('the CLI refuses create-staff without --first-name and --last-name, for every role', async () => {
    for (const role of ['backoffice_admin', 'pharmacist', 'marketer']) {
      const none = await runCli(['create-staff', '--email', uniqueEmail('nn'), '--password', 'Signal-Orchard-Beacon-2026', '--role', role], {}, { deps: ctx.deps });
      expect(none).toEqual({ code: 2, out: "a staff account needs --first-name, --last-name (shown in the patient's access log)" });
      const blank = await runCli(['create-staff', '--email', uniqueEmail('nn'), '--password', 'Signal-Orchard-Beacon-2026', '--role', role, '--first-name', 'Olga', '--last-name', ' '], {}, { deps: ctx.deps });
      expect(blank).toEqual({ code: 2, out: "a staff account needs --last-name (shown in the patient's access log)" });
    }
  });

  it('the service and the database refuse an unnamed staff account', async () => {
    const email = uniqueEmail('nn');
    await expect(createStaff(ctx.deps, { email, password: PASSWORD, role: 'backoffice_admin' })).rejects.toThrow(/first name and a last name/);
    await expect(createStaff(ctx.deps, { email, password: PASSWORD, role: 'pharmacist', firstName: 'Lena', lastName: '  ' })).rejects.toThrow(/first name and a last name/);
    expect(await ctx.db.query('select 1 from users where email = $1', [email])).toHaveLength(0);
    // A staff flag on an account without a name: refused by the database (constraint users_staff_named).
    const p = await seedPatient(ctx, { first_name: '', last_name: '' });
    await expect(ctx.db.query('update users set is_backoffice_admin = true where id = $1', [p.id])).rejects.toThrow(/users_staff_named/);
  });

  it('a back-office read is in the patient\'s access log with the reader\'s name and role', async () => {
    const email = uniqueEmail('ops');
    await createStaff(ctx.deps, { email, password: PASSWORD, role: 'backoffice_admin', firstName: 'Olga', lastName: 'Ops' });
    const admin = await call(ctx, 'POST', '/v1/users/token/', { brand: true, json: { email, password: PASSWORD } });
    expect(admin.status, admin.text).toBe(200);
    const p = await seedPatient(ctx);
    const found = await call(ctx, 'GET', `/v1/backoffice/users/?email=${encodeURIComponent(p.email)}`, { token: admin.body.access });
    expect(found.status, found.text).toBe(200);
    const log = await call(ctx, 'GET', '/v1/users/me/access-log/', { token: p.access });
    expect(log.status).toBe(200);
    expect(log.body.results).toEqual([expect.objectContaining({ actor_role: 'backoffice_admin', actor_name: 'Olga Ops', action: 'read', resource_type: 'profile' })]);
    // Another patient's log does not show it.
    const other = await seedPatient(ctx);
    expect((await call(ctx, 'GET', '/v1/users/me/access-log/', { token: other.access })).body.count).toBe(0);
  });

  it('an entry written with an empty name shows the actor\'s name now, else "Unnamed staff member"', async () => {
    const email = uniqueEmail('ops');
    const actor = await createStaff(ctx.deps, { email, password: PASSWORD, role: 'backoffice_admin', firstName: 'Piet', lastName: 'Janssen' });
    const p = await seedPatient(ctx);
    await ctx.db.query(
      `insert into access_log (patient_id, actor_id, actor_role, actor_name, action, resource_type, resource_id, at)
       values ($1::uuid, $2::uuid, 'backoffice_admin', '', 'read', 'profile', $1::text, now() - interval '2 days'),
              ($1::uuid, null, 'backoffice_admin', '', 'read', 'profile', $1::text, now() - interval '1 day')`,
      [p.id, actor],
    );
    const log = await call(ctx, 'GET', '/v1/users/me/access-log/', { token: p.access });
    expect(log.body.results.map((e: { actor_name: string }) => e.actor_name)).toEqual(['Unnamed staff member', 'Piet Janssen']);
    const exported = await call(ctx, 'GET', '/v1/users/me/export/', { token: p.access });
    expect(JSON.stringify(exported.body)).not.toContain('"actor_name":""');
  });
});
