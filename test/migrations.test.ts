// Migration checksums (src/db/migrate.ts): each applied file's sha256 is recorded; a start whose
// applied file was edited stops with one line naming it, before changing anything; databases from
// before checksums are filled in on their first start.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS_DIR, migrate, migrationChecksum, migrationFiles, MigrationEditedError } from '../src/db/migrate.ts';
import { createTestContext, type TestContext } from './support/harness.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => ctx?.close());

const recorded = async (names: string[]) =>
  Object.fromEntries((await ctx.db.query<{ name: string; checksum: string | null }>('select name, checksum from schema_migrations where name = any($1)', [names])).map((r) => [r.name, r.checksum]));

describe('migration checksums', () => {
  it('records each applied file’s checksum, and refuses to run when an applied file was edited', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pts-migrations-'));
    try {
      writeFileSync(join(dir, '9990_first.sql'), 'create table checksum_probe (id int primary key);\n');
      writeFileSync(join(dir, '9991_second.sql'), 'alter table checksum_probe add column note text;\n');
      expect(await migrate(ctx.db, dir)).toEqual(['9990_first.sql', '9991_second.sql']);
      expect(await recorded(['9990_first.sql', '9991_second.sql'])).toEqual({
        '9990_first.sql': migrationChecksum(readFileSync(join(dir, '9990_first.sql'), 'utf8')),
        '9991_second.sql': migrationChecksum(readFileSync(join(dir, '9991_second.sql'), 'utf8')),
      });
      expect(await migrate(ctx.db, dir)).toEqual([]);

      // An applied file edited, and a new one waiting: nothing is applied, one line names the file.
      writeFileSync(join(dir, '9990_first.sql'), 'create table checksum_probe (id bigint primary key);\n');
      writeFileSync(join(dir, '9992_third.sql'), 'alter table checksum_probe add column extra text;\n');
      const refused = await migrate(ctx.db, dir).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(refused).toBeInstanceOf(MigrationEditedError);
      expect((refused as Error).message).toMatch(/^Migration 9990_first\.sql changed after it was applied \(checksum in schema_migrations differs\): restore the applied file and put the change in a new migration$/);
      expect(await recorded(['9992_third.sql'])).toEqual({});
      expect((await ctx.db.query("select column_name from information_schema.columns where table_name = 'checksum_probe' and column_name = 'extra'")).length).toBe(0);

      // Line endings alone are not an edit (a Windows checkout); the restored file lets the next one apply.
      writeFileSync(join(dir, '9990_first.sql'), 'create table checksum_probe (id int primary key);\r\n');
      expect(await migrate(ctx.db, dir)).toEqual(['9992_third.sql']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await ctx.db.exec('drop table if exists checksum_probe');
      await ctx.db.query("delete from schema_migrations where name like '999%'");
    }
  });

  it('fills in the checksums of a database migrated before they existed, then guards it', async () => {
    // The table as older versions made it: no checksum column.
    await ctx.db.exec('alter table schema_migrations drop column checksum');
    expect(await migrate(ctx.db)).toEqual([]);
    const files = migrationFiles();
    const rows = await recorded(files);
    expect(Object.keys(rows)).toHaveLength(files.length);
    for (const file of files) expect(rows[file], file).toBe(migrationChecksum(readFileSync(join(MIGRATIONS_DIR, file), 'utf8')));
    // From now on an edit is caught: pretend the first file was recorded with other content.
    const [first] = files;
    await ctx.db.query('update schema_migrations set checksum = $2 where name = $1', [first, migrationChecksum('-- another text\n')]);
    await expect(migrate(ctx.db)).rejects.toThrow(`Migration ${first} changed after it was applied`);
    await ctx.db.query('update schema_migrations set checksum = $2 where name = $1', [first, migrationChecksum(readFileSync(join(MIGRATIONS_DIR, first!), 'utf8'))]);
    expect(await migrate(ctx.db)).toEqual([]);
  });
});
