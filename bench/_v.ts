import pg from 'pg';
import { CONSULTATION_LIST_SQL } from '../src/modules/consultations/repository.ts';
const c = new pg.Client('postgres://postgres@127.0.0.1:5432/prof'); await c.connect();
const { rows: [u] } = await c.query("select id from users where email='bench-1@example.org'");
const noIso = CONSULTATION_LIST_SQL.replace(/to_char\((.*?) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'\)/g, '$1');
const v: Record<string,string> = {
  list: CONSULTATION_LIST_SQL,
  noIso,
  jsonb: CONSULTATION_LIST_SQL.replaceAll('json_build_object', 'jsonb_build_object').replaceAll('json_agg', 'jsonb_agg').replaceAll("'[]'::json", "'[]'::jsonb"),
  textpage: CONSULTATION_LIST_SQL.replace(') as page', ')::text as page'),
  flat: `select c.*, d.first_name from (select * from consultations where user_id = $1 order by created_at desc, id desc limit $2 offset $3) c left join users d on d.id = c.doctor_id`,
  flatpay: `select p.* from (select id from consultations where user_id = $1 order by created_at desc, id desc limit $2 offset $3) c join payments p on p.consultation_id = c.id`,
};
for (const [name, text] of Object.entries(v)) {
  for (let i = 0; i < 200; i++) await c.query({ name, text, values: [u.id, 20, 0] });
  const t = performance.now(); const N = 1000;
  for (let i = 0; i < N; i++) await c.query({ name, text, values: [u.id, 20, 0] });
  console.log(name.padEnd(10), ((performance.now() - t) / N).toFixed(3), 'ms/query');
}
await c.end();
