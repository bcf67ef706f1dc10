import pg from 'pg';
import { CONSULTATION_LIST_SQL } from '../src/modules/consultations/repository.ts';
const c = new pg.Client('postgres://postgres@127.0.0.1:5432/prof'); await c.connect();
const { rows: [u] } = await c.query("select id from users where email='bench-1@example.org'");
const noIso = CONSULTATION_LIST_SQL.replace(/to_char\((.*?) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'\)/g, '$1');
const raw = { getTypeParser: () => (v: string) => v };
const v: Record<string,[string, boolean]> = {
  list: [CONSULTATION_LIST_SQL, false],
  listRaw: [CONSULTATION_LIST_SQL, true],
  noIsoRaw: [noIso, true],
  noIso: [noIso, false],
};
for (let round = 0; round < 2; round++)
for (const [name, [text, r]] of Object.entries(v)) {
  const q = (i: number) => c.query({ name, text, values: [u.id, 20, 0], ...(r ? { types: raw } : {}) });
  for (let i = 0; i < 200; i++) await q(i);
  const t = performance.now(); const N = 1000;
  for (let i = 0; i < N; i++) await q(i);
  console.log(name.padEnd(10), ((performance.now() - t) / N).toFixed(3), 'ms/query');
}
await c.end();
