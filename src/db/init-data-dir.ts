// Creates and migrates a new embedded database directory, then exits.
//
// Build time (scripts/build.mjs): `--template <directory>` writes the migrated template directory
// that a first start copies (db/template.ts), and stamps it with the PGlite version that wrote it.
//
// Start time, only when there is no usable template (running from src/, or PGlite updated without a
// rebuild): runtime.ts runs `<directory>` as a short-lived child process, which runs initdb. PGlite's
// initdb runs a second Postgres instance whose WebAssembly heap is never given back, which left the
// server at ~900 MB RSS after a first start; in a child that memory goes away when the child exits.
//
//   node dist/db/init-data-dir.js <directory>             create and migrate <directory> (initdb)
//   node dist/db/init-data-dir.js --template <directory>  write the migrated template (build time)
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { openPglite } from './index.ts';
import { migrate } from './migrate.ts';
import { installedPgliteVersion } from './template.ts';

async function create(dir: string) {
  const db = await openPglite({ dataDir: dir });
  await migrate(db);
  // A checkpoint, then a clean shutdown: the files are complete on disk (a copy of them starts
  // without WAL replay).
  await db.exec('checkpoint');
  await db.close();
}

async function writeTemplate(dir: string) {
  const version = installedPgliteVersion();
  if (!version) throw new Error('cannot read the installed PGlite version');
  if (existsSync(dir)) throw new Error(`${dir} exists already`);
  try {
    await create(dir);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  writeFileSync(`${dir}.json`, `${JSON.stringify({ pglite: version })}\n`);
}

const [arg, dir] = process.argv.slice(2);
if (arg === '--template' && dir) {
  await writeTemplate(dir);
} else if (arg && !arg.startsWith('--') && !dir) {
  await create(arg);
} else {
  console.error('usage: init-data-dir <directory> | --template <directory>');
  process.exit(2);
}
