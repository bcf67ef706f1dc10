import pg from 'pg';
import { CONSULTATION_LIST_SQL } from '../src/modules/consultations/repository.ts';
const c = new pg.Client('postgres://postgres@127.0.0.1:5432/prof'); await c.connect();
const { rows: [u] } = await c.query("select id from users where email='bench-1@example.org'");
const variants: Record<string,string> = { list: CONSULTATION_LIST_SQL, min: 'select id, status, category, plan, treatment_id, dosage, created_at, updated_at from consultations where user_id = $1 order by created_at desc, id desc limit $2 offset $3' };
if (process.argv[2]) variants.extra = (await import('node:fs')).readFileSync(process.argv[2], 'utf8');
for (const [name, text] of Object.entries(variants)) {
  for (let i = 0; i < 200; i++) await c.query({ name, text, values: [u.id, 20, 0] });
  const t = performance.now(); const N = 1000;
  for (let i = 0; i < N; i++) await c.query({ name, text, values: [u.id, 20, 0] });
  console.log(name, ((performance.now() - t) / N).toFixed(3), 'ms/query');
}
const ex = await c.query({ text: 'explain (analyze, buffers) ' + CONSULTATION_LIST_SQL.replaceAll('$1', `'${u.id}'`).replaceAll('$2', '20').replaceAll('$3', '0') });
console.log(ex.rows.map((r) => r['QUERY PLAN']).join('\n'));
await c.end();
