// Creates and migrates a new embedded database directory, then exits. runtime.ts runs it as a
// short-lived child process when DATA_DIR holds no database yet: PGlite's initdb runs a second
// Postgres instance whose WebAssembly heap is never given back, which left the server at ~900 MB
// RSS after a first start; in a child that memory goes away when the child exits. When the build
// left a migrated template beside this file (scripts/build.mjs), the directory is unpacked from it
// instead of running initdb at all, which is most of a first start's time.
//
//   node dist/db/init-data-dir.js <directory> [template]  create and migrate <directory>
//   node dist/db/init-data-dir.js --template <file>  write a migrated template (build time)
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openPglite } from './index.ts';
import { migrate } from './migrate.ts';

export const TEMPLATE_FILE = join(dirname(fileURLToPath(import.meta.url)), 'pglite-template.tar');

async function writeTemplate(file: string) {
  const db = await openPglite();
  await migrate(db);
  await db.exec('checkpoint');
  const dump = await (db as unknown as { dump(): Promise<Blob> }).dump();
  writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  await db.close();
}

async function create(dir: string, template: Blob | undefined) {
  const db = await openPglite({ dataDir: dir, loadDataDir: template });
  await migrate(db);
  await db.exec('checkpoint');
  await db.close();
}

const [arg, file] = process.argv.slice(2);
if (arg === '--template' && file) {
  await writeTemplate(file);
} else if (arg && !arg.startsWith('--')) {
  let template: Blob | undefined;
  const templateFile = file ?? TEMPLATE_FILE;
  if (existsSync(templateFile)) template = new Blob([readFileSync(templateFile)]);
  try {
    await create(arg, template);
  } catch (err) {
    // A template from another PGlite version (node_modules updated, dist/ not rebuilt): initdb.
    if (!template) throw err;
    rmSync(arg, { recursive: true, force: true });
    await create(arg, undefined);
  }
} else {
  console.error('usage: init-data-dir <directory> [template] | --template <file>');
  process.exit(2);
}
