import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPglite } from '../src/db/index.ts';
import { migrate } from '../src/db/migrate.ts';
import { seed } from './seed.ts';
import { SAME_SQL } from './floor-sql.ts';
const db = await openPglite({ dataDir: join(mkdtempSync(join(tmpdir(), 'diag-')), 'pglite') });
await migrate(db); console.log(await seed(db));
const [u] = await db.query('select id from users where email = $1', ['bench-1@example.org']);
const rows = await db.query(SAME_SQL.page.text, [u!.id, 20, 0]);
const ids = rows.map((r) => r.id);
for (const [name, st, params] of [['count', SAME_SQL.count, [u!.id]], ['page', SAME_SQL.page, [u!.id, 20, 0]], ['summary', SAME_SQL.summary, [[u!.id]]], ['payments', SAME_SQL.payments, [ids]], ['prescriptions', SAME_SQL.prescriptions, [ids]]] as const) {
  const t = performance.now();
  for (let i = 0; i < 20; i++) await db.query(st.text, params as unknown[]);
  console.log(name, ((performance.now() - t) / 20).toFixed(2), 'ms');
}
const plan = await db.query('explain analyze ' + SAME_SQL.summary.text.replace('$1::uuid[]', `array['${u!.id}']::uuid[]`));
console.log(plan.map((r) => r['QUERY PLAN']).join('\n'));
await db.close();
