// A first start on an empty DATA_DIR copies the build's migrated template directory (no second
// PGlite instance); without a usable one it creates and migrates the embedded database in a child
// process that runs initdb (initdb's heap stayed in the server, ~900 MB RSS). Either way
// the server then opens it like a restart.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openPglite } from '../src/db/index.ts';
import { migrationFiles } from '../src/db/migrate.ts';
import { copyTree, installedPgliteVersion, usableTemplate } from '../src/db/template.ts';

const script = join(process.cwd(), 'src', 'db', 'init-data-dir.ts');
const run = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', script, ...args], { encoding: 'utf8', timeout: 240_000 });

async function expectMigrated(dataDir: string) {
  expect(existsSync(join(dataDir, 'PG_VERSION'))).toBe(true);
  const db = await openPglite({ dataDir });
  try {
    const applied = (await db.query<{ name: string }>('select name from schema_migrations order by name')).map((r) => r.name);
    expect(applied).toEqual(migrationFiles());
    expect(await db.query("select current_setting('shared_buffers') as sb")).toEqual([{ sb: '32MB' }]);
  } finally {
    await db.close();
  }
}

describe.runIf(!process.env.DATABASE_URL)('embedded database creation', () => {
  it('writes a migrated template directory stamped with the PGlite version, and a copy of it opens migrated', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pts-datadir-'));
    const template = join(dir, 'template');
    const made = run('--template', template);
    expect(made.status, made.stderr).toBe(0);
    expect(JSON.parse(readFileSync(`${template}.json`, 'utf8'))).toEqual({ pglite: installedPgliteVersion() });
    expect(installedPgliteVersion()).toMatch(/^\d+\.\d+\.\d+/);
    expect(usableTemplate(template, `${template}.json`)).toBe(template);

    const dataDir = join(dir, 'pglite');
    await copyTree(template, dataDir);
    await expectMigrated(dataDir);
    expect(readdirSync(dir).sort()).toEqual(['pglite', 'template', 'template.json']);

    // A template written by another PGlite version is not used (its files may not open).
    writeFileSync(`${template}.json`, JSON.stringify({ pglite: '0.0.1' }));
    expect(usableTemplate(template, `${template}.json`)).toBeUndefined();
    expect(usableTemplate(join(dir, 'missing'), `${template}.json`)).toBeUndefined();
  }, 300_000);

  it('creates a migrated data directory with initdb when there is no template', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pts-datadir-'));
    const dataDir = join(dir, 'pglite');
    const made = run(dataDir);
    expect(made.status, made.stderr).toBe(0);
    await expectMigrated(dataDir);
  }, 300_000);
});
