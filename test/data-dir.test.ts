// A first start on an empty DATA_DIR creates and migrates the embedded database in a child
// process (issue 11: initdb's heap stayed in the server, ~900 MB RSS), from the build's template
// when there is one; the server then opens it like a restart.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openPglite } from '../src/db/index.ts';
import { migrationFiles } from '../src/db/migrate.ts';

const script = join(process.cwd(), 'src', 'db', 'init-data-dir.ts');
const run = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', script, ...args], { encoding: 'utf8', timeout: 240_000 });

describe.runIf(!process.env.DATABASE_URL)('embedded database creation', () => {
  it('writes a migrated template, and creates a migrated data directory from it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pts-datadir-'));
    const template = join(dir, 'template.tar');
    expect(run('--template', template).status).toBe(0);
    expect(existsSync(template)).toBe(true);

    const dataDir = join(dir, 'pglite');
    const made = run(dataDir, template);
    expect(made.status, made.stderr).toBe(0);
    expect(existsSync(join(dataDir, 'PG_VERSION'))).toBe(true);
    const db = await openPglite({ dataDir });
    try {
      const applied = (await db.query<{ name: string }>('select name from schema_migrations order by name')).map((r) => r.name);
      expect(applied).toEqual(migrationFiles());
      expect(await db.query("select current_setting('shared_buffers') as sb")).toEqual([{ sb: '32MB' }]);
    } finally {
      await db.close();
    }
    expect(readdirSync(dir).sort()).toEqual(['pglite', 'template.tar']);
  }, 300_000);
});
