// @vitest-environment node
// Budget: the JavaScript a first visit loads (index.html's module script and its static imports,
// not the lazily loaded pages) is at most 100 KB gzipped. Runs over the build (npm run build first).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';

const dist = fileURLToPath(new URL('../dist', import.meta.url));
const BUDGET = 100 * 1024; // issue 27: <= 100 KB gzipped

function initialScripts(): string[] {
  const html = readFileSync(join(dist, 'index.html'), 'utf8');
  const seen = new Set<string>();
  const queue = [...html.matchAll(/<(?:script[^>]+src|link[^>]+rel="modulepreload"[^>]+href)="\/?([^"]+\.js)"/g)].map((m) => m[1]);
  while (queue.length) {
    const file = queue.shift()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const code = readFileSync(join(dist, file), 'utf8');
    // Static imports only (`import ... from "./x.js"` / `import "./x.js"`); dynamic import() is lazy.
    for (const m of code.matchAll(/(?:^|[;\s])import\s*(?:[\w*{}\s,$]+from\s*)?["']\.\/([^"']+\.js)["']/g)) queue.push(join('assets', m[1]));
  }
  return [...seen];
}

describe.skipIf(!existsSync(join(dist, 'index.html')))('initial JavaScript budget', () => {
  it('is at most 100 KB gzipped', () => {
    const files = initialScripts();
    expect(files.length).toBeGreaterThan(0);
    const total = files.reduce((n, f) => n + gzipSync(readFileSync(join(dist, f))).length, 0);
    process.stdout.write(`initial JavaScript: ${files.join(', ')} = ${(total / 1024).toFixed(1)} KB gzipped (budget 100 KB)\n`);
    expect(total).toBeLessThanOrEqual(BUDGET);
  });
});
