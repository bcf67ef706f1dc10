// Builds src/ into dist/: every .ts file transpiled on its own by esbuild (the same transform tsx
// uses in development; relative `.ts` import specifiers become `.js`), every other file under src/
// (SQL migrations, word lists) copied beside it, so that code finding its assets through
// import.meta.url finds them from dist/ too. Type checking is `npm run typecheck`, not this.
//
//   node scripts/build.mjs             build now
//   node scripts/build.mjs --if-stale  build only when src/ (or this script) changed since the last
//                                      build (npm start runs this as its prestart step)
//
// The new tree is written beside dist/ and swapped in by rename, so a server starting meanwhile
// never sees half a build.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const srcDir = join(root, 'src');
const distDir = join(root, 'dist');
const stampFile = join(distDir, '.build-stamp');

function walk(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...walk(path));
    else if (entry.isFile()) out.push(path);
  }
  return out.sort();
}

/** A fingerprint of every input: any added, removed or changed file gives another one. */
function fingerprint(files) {
  const hash = createHash('sha256');
  // The installed PGlite is an input too: the database template must match its version.
  const pglite = join(root, 'node_modules', '@electric-sql', 'pglite', 'package.json');
  for (const file of [...files, fileURLToPath(import.meta.url), ...(existsSync(pglite) ? [pglite] : [])]) {
    const s = statSync(file);
    hash.update(`${relative(root, file)}\0${s.size}\0${s.mtimeMs}\n`);
  }
  return hash.digest('hex');
}

async function build(files, stamp) {
  let esbuild;
  try {
    esbuild = await import('esbuild');
  } catch {
    throw new Error('dist/ is missing or out of date and esbuild is not installed: run `npm install` (with dev dependencies) first, then `npm run build`');
  }
  const tmp = join(root, `dist.tmp-${process.pid}`);
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  const sources = files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
  await esbuild.build({
    entryPoints: sources,
    outdir: tmp,
    outbase: srcDir,
    // Bundle mode only so that the plugin below sees every import: each relative import stays an
    // import of its own output file, and packages stay imports from node_modules.
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: true,
    logLevel: 'warning',
    plugins: [
      {
        name: 'keep-relative-imports',
        setup(b) {
          b.onResolve({ filter: /^\.\.?\// }, (args) => (args.kind === 'entry-point' ? undefined : { path: args.path.replace(/\.ts$/, '.js'), external: true }));
        },
      },
    ],
  });
  for (const file of files) {
    if (file.endsWith('.ts')) continue;
    const target = join(tmp, relative(srcDir, file));
    mkdirSync(dirname(target), { recursive: true });
    cpSync(file, target);
  }
  writeFileSync(join(tmp, 'package.json'), '{ "type": "module" }\n');
  // A migrated embedded database directory, copied by the first start on an empty DATA_DIR instead
  // of running initdb (src/db/template.ts): the first start takes about as long as a restart.
  // Optional: without it the first start runs initdb in a child process, as it always could.
  const template = spawnSync(process.execPath, [join(tmp, 'db', 'init-data-dir.js'), '--template', join(tmp, 'db', 'pglite-template')], { stdio: 'inherit' });
  if (template.status !== 0) console.error('build: no embedded database template (first starts will run initdb)');
  writeFileSync(join(tmp, '.build-stamp'), stamp);
  const old = join(root, `dist.old-${process.pid}`);
  if (existsSync(distDir)) renameSync(distDir, old);
  renameSync(tmp, distDir);
  rmSync(old, { recursive: true, force: true });
  return sources.length;
}

const started = Date.now();
const files = walk(srcDir);
const stamp = fingerprint(files);
const ifStale = process.argv.includes('--if-stale');
const current = existsSync(stampFile) ? readFileSync(stampFile, 'utf8') : '';
if (ifStale && current === stamp && existsSync(join(distDir, 'main.js'))) process.exit(0);
try {
  const count = await build(files, stamp);
  console.error(`built ${count} modules into dist/ in ${Date.now() - started} ms`);
} catch (err) {
  console.error(`build failed: ${err instanceof Error ? err.message : err}`);
  process.exit(1);
}
