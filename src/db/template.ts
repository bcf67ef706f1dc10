// The build's migrated embedded database (scripts/build.mjs writes it with db/init-data-dir): a data
// directory that a first start on an empty DATA_DIR copies file by file, instead of starting a
// PGlite instance to run initdb or to unpack a dump. The copy needs no WebAssembly, runs on libuv's
// thread pool while the server loads its code, and leaves the server exactly where a restart is.
import { readdirSync, readFileSync } from 'node:fs';
import { copyFile, mkdir } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

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

/**
 * Copies the directory tree `from` to `to` (which must not exist yet): directories first, then the
 * files a few at a time, so that the thread pool copies while the main thread does other work.
 */
export async function copyTree(from: string, to: string): Promise<void> {
  const entries = readdirSync(from, { withFileTypes: true, recursive: true });
  const path = (e: (typeof entries)[number]) => relative(from, join(e.parentPath, e.name));
  await mkdir(to, { recursive: true, mode: 0o700 });
  // Sorted, so that a parent is made before its children.
  for (const d of entries.filter((e) => e.isDirectory()).map(path).sort()) await mkdir(join(to, d), { recursive: true });
  const files = entries.filter((e) => e.isFile()).map(path);
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const file = files[next++]!;
      await copyFile(join(from, file), join(to, file));
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
}
