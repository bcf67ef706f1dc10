import { PGlite, types } from '@electric-sql/pglite';
const t0=Date.now();
const db = new PGlite();
const r = await db.query(`select 1::int8 a, now() b, '2020-01-02'::date c, 1.5::numeric d, '{"x":1}'::jsonb e, gen_random_uuid() f, count(*) g from (values (1)) v`);
console.log(r.rows, Date.now()-t0);
const t1=Date.now(); const dump = await db.dumpDataDir('none'); console.log('dump', dump.size, Date.now()-t1);
const t2=Date.now(); const db2 = new PGlite({loadDataDir: dump}); await db2.query('select 1'); console.log('load', Date.now()-t2);
console.log(Object.keys(types).slice(0,50).join(' '));
