// The build's migrated embedded database (scripts/build.mjs writes it with db/init-data-dir): a data
// directory that a first start on an empty DATA_DIR copies file by file, instead of starting a
// PGlite instance to run initdb or to unpack a dump. The copy needs no WebAssembly, runs in a worker
// thread while the server loads its code, and leaves the server exactly where a restart is.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

const here = dirname(fileURLToPath(import.meta.url));
export const TEMPLATE_DIR = join(here, 'pglite-template');
/** Beside the template: the PGlite version that wrote it (data files need not open in another). */
export const TEMPLATE_STAMP = join(here, 'pglite-template.json');

/** The installed PGlite's version, or undefined when it cannot be read. */
export function installedPgliteVersion(): string | undefined {
  try {
    const entry = fileURLToPath(import.meta.resolve('@electric-sql/pglite'));
    // dist/index.js -> the package root's package.json
    const pkg = JSON.parse(readFileSync(join(dirname(entry), '..', 'package.json'), 'utf8')) as { name?: unknown; version?: unknown };
    return pkg.name === '@electric-sql/pglite' && typeof pkg.version === 'string' ? pkg.version : undefined;
  } catch {
    return undefined;
  }
}

/** The template directory when there is one written by the installed PGlite, else undefined. */
export function usableTemplate(dir = TEMPLATE_DIR, stamp = TEMPLATE_STAMP): string | undefined {
  try {
    if (!readdirSync(dir).includes('PG_VERSION')) return undefined;
    const written = (JSON.parse(readFileSync(stamp, 'utf8')) as { pglite?: unknown }).pglite;
    return written !== undefined && written === installedPgliteVersion() ? dir : undefined;
  } catch {
    return undefined;
  }
}

// The copy runs in a worker thread, with synchronous calls: copying from the main thread needs that
// thread between files, and at start-up it is busy loading the server's code; asynchronous copies
// would fill libuv's thread pool, which the main thread needs to read that code (both measured:
// a fresh start copied for ~2 s, or loaded its code ~1 s later). A plain script, so that no
// TypeScript loader is needed for it. Directories first (sorted: a parent before its children).
const COPY_SCRIPT = `
const { workerData: { from, to } } = require('node:worker_threads');
const { copyFileSync, mkdirSync, readdirSync } = require('node:fs');
const { join, relative } = require('node:path');
const entries = readdirSync(from, { withFileTypes: true, recursive: true });
const path = (e) => relative(from, join(e.parentPath, e.name));
mkdirSync(to, { mode: 0o700 });
for (const dir of entries.filter((e) => e.isDirectory()).map(path).sort()) mkdirSync(join(to, dir));
for (const file of entries.filter((e) => e.isFile()).map(path)) copyFileSync(join(from, file), join(to, file));
`;

/** Copies the directory tree `from` to `to` (which must not exist yet), off the main thread. */
export function copyTree(from: string, to: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(COPY_SCRIPT, { eval: true, workerData: { from, to } });
    worker.once('error', reject);
    worker.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`copying ${from} stopped (exit code ${code})`))));
  });
}
