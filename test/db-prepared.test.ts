// Named prepared statements on PostgreSQL: a parameterised statement is prepared once per
// connection under a name derived from its text and reused; failures keep the scrubbed error shape.
import { describe, expect, it } from 'vitest';
import { openPostgres, pgQuery, statementName } from '../src/db/index.ts';

const url = process.env.DATABASE_URL;

describe('statement names', () => {
  it('derives one stable name per SQL text', () => {
    expect(statementName('select $1::int as n')).toBe(statementName('select $1::int as n'));
    expect(statementName('select $1::int as n')).not.toBe(statementName('select $1::int as m'));
    expect(statementName('select $1::int as n')).toMatch(/^s_[A-Za-z0-9_-]{27}$/);
  });
});

describe.runIf(url)('named prepared statements on PostgreSQL', () => {
  it('prepares a parameterised statement once and reuses it; parameterless ones stay unnamed', async () => {
    const db = await openPostgres(url!, 1);
    try {
      const sql = 'select $1::int + 1 as n';
      expect(await db.query(sql, [1])).toEqual([{ n: 2 }]);
      expect(await db.query(sql, [41])).toEqual([{ n: 42 }]);
      await db.query('select 1 as one');
      const prepared = await db.query<{ name: string; statement: string }>('select name, statement from pg_prepared_statements where name = $1 or statement = $2', [statementName(sql), 'select 1 as one']);
      expect(prepared.map((r) => r.statement)).toEqual([sql]);
      const err = await db.query('select $1::int / 0 as boom', [1]).catch((e: unknown) => e as Record<string, unknown>);
      expect(err).toMatchObject({ code: '22012', statement: 'select $1::int / 0 as boom' });
      expect(err).not.toHaveProperty('params');
      expect(await db.tx((q) => q.query(sql, [2]))).toEqual([{ n: 3 }]);
    } finally {
      await db.close();
    }
  });
});

describe('the query sent for a statement', () => {
  it('keeps the parameters of a statement without a name (past the cap, or names off)', () => {
    expect(pgQuery('select $1::int as n', [1], 's_x')).toEqual({ name: 's_x', text: 'select $1::int as n', values: [1] });
    expect(pgQuery('select $1::int as n', [1], undefined)).toEqual({ text: 'select $1::int as n', values: [1] });
    expect(pgQuery('select 1 as one', [], undefined)).toBe('select 1 as one');
  });
});

describe.runIf(url)('unnamed statements on PostgreSQL (namedStatements: false)', () => {
  it('binds the parameters and prepares nothing', async () => {
    const db = await openPostgres(url!, 1, undefined, { namedStatements: false });
    try {
      const sql = 'select $1::int + 2 as n -- unnamed';
      expect(await db.query(sql, [1])).toEqual([{ n: 3 }]);
      expect(await db.tx((q) => q.query(sql, [40]))).toEqual([{ n: 42 }]);
      expect(await db.query('select count(*) as n from pg_prepared_statements', [])).toEqual([{ n: 0 }]);
    } finally {
      await db.close();
    }
  });
});
