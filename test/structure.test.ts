// The layering rules of docs/architecture.md, checked over the source tree so they hold without
// anyone remembering them:
//   1. SQL lives only in repository files (`repository.ts`, `*.repository.ts`) and src/db/.
//   2. A module is reached from outside only through its index.ts.
//   3. No import cycle between folders (type-only imports excluded: they vanish at run time).
//   4. No module imports src/app.ts: modules are Fastify plugins typed by the zod provider.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');
const SRC = join(ROOT, 'src');

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return walk(path);
    return path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : [];
  });
}

const files = walk(SRC).map((p) => relative(ROOT, p));

interface Edge {
  from: string;
  to: string;
  typeOnly: boolean;
}

function importsOf(file: string): Edge[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const edges: Edge[] = [];
  const re = /(?:^|\n)\s*(import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g;
  for (const m of text.matchAll(re)) {
    const spec = m[3] ?? m[4];
    if (!spec) continue;
    const to = relative(ROOT, resolve(dirname(join(ROOT, file)), spec));
    edges.push({ from: file, to, typeOnly: Boolean(m[2]) });
  }
  return edges;
}

const edges = files.flatMap(importsOf);

/** The folder a file belongs to: `src/modules/<name>`, or `src/<top folder>`, or `src` for root files. */
function folderOf(file: string): string {
  const parts = file.split('/');
  if (parts[1] === 'modules' && parts.length > 3) return parts.slice(0, 3).join('/');
  if (parts.length > 2) return parts.slice(0, 2).join('/');
  return 'src';
}

const isRepository = (file: string) => /(^|\/)(repository|[\w-]+\.repository)\.ts$/.test(file);
const isDbLayer = (file: string) => file.startsWith('src/db/');

// A string or template literal that is a statement: keywords in SQL order, not English prose.
const SQL_PATTERN = /\b(select\b[\s\S]{1,400}?\bfrom\s+[a-z_]+|insert\s+into\s+[a-z_]+|update\s+[a-z_]+\s+set\b|delete\s+from\s+[a-z_]+)/i;

function literals(text: string): string[] {
  return [...text.matchAll(/`(?:[^`\\]|\\.)*`|'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"/g)].map((m) => m[0]);
}

// Files that still break a rule while issue 11's refactor is under way. Each entry is a debt:
// the list only shrinks, and the test fails when a listed file no longer needs its entry.
const PENDING_SQL: string[] = [];
const PENDING_BOUNDARY: string[] = [];
const PENDING_APP_IMPORT: string[] = [];
// Folder cycles still to break, each written as its sorted folder list joined by ' <-> '.
const PENDING_CYCLES: string[] = [];

describe('layering', () => {
  test('SQL only in repository files and src/db/', () => {
    const offenders = files.filter((file) => {
      if (isRepository(file) || isDbLayer(file)) return false;
      const text = readFileSync(join(ROOT, file), 'utf8');
      const usesBuilder = edges.some((e) => e.from === file && !e.typeOnly && e.to === 'src/db/kysely.ts');
      return usesBuilder || literals(text).some((l) => SQL_PATTERN.test(l));
    });
    expect(offenders.filter((f) => !PENDING_SQL.includes(f))).toEqual([]);
    expect(PENDING_SQL.filter((f) => !offenders.includes(f)), 'remove these from PENDING_SQL').toEqual([]);
  });

  test("other modules are reached only through a module's index.ts", () => {
    const offenders = new Set<string>();
    for (const e of edges) {
      const target = folderOf(e.to.endsWith('.ts') ? e.to : `${e.to}.ts`);
      if (!target.startsWith('src/modules/') || folderOf(e.from) === target) continue;
      const entry = `${target}/index.ts`;
      // src/modules/index.ts registers every module's routes plugin.
      const allowed = e.to === entry || (e.from === 'src/modules/index.ts' && e.to === `${target}/routes.ts`);
      if (!allowed) offenders.add(e.from);
    }
    const list = [...offenders].sort();
    expect(list.filter((f) => !PENDING_BOUNDARY.includes(f))).toEqual([]);
    expect(PENDING_BOUNDARY.filter((f) => !offenders.has(f)), 'remove these from PENDING_BOUNDARY').toEqual([]);
  });

  test('no import cycle between folders', () => {
    const graph = new Map<string, Set<string>>();
    for (const e of edges) {
      if (e.typeOnly) continue;
      const a = folderOf(e.from);
      const b = folderOf(e.to.endsWith('.ts') ? e.to : `${e.to}.ts`);
      if (a === b || !b.startsWith('src')) continue;
      if (!graph.has(a)) graph.set(a, new Set());
      graph.get(a)!.add(b);
    }
    // Tarjan's strongly connected components: any component of two or more folders is a cycle.
    let index = 0;
    const idx = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const onStack = new Set<string>();
    const cycles: string[][] = [];
    const visit = (v: string) => {
      idx.set(v, index);
      low.set(v, index);
      index++;
      stack.push(v);
      onStack.add(v);
      for (const w of graph.get(v) ?? []) {
        if (!idx.has(w)) {
          visit(w);
          low.set(v, Math.min(low.get(v)!, low.get(w)!));
        } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
      }
      if (low.get(v) === idx.get(v)) {
        const component: string[] = [];
        let w: string;
        do {
          w = stack.pop()!;
          onStack.delete(w);
          component.push(w);
        } while (w !== v);
        if (component.length > 1) cycles.push(component.sort());
      }
    };
    for (const v of graph.keys()) if (!idx.has(v)) visit(v);
    const found = cycles.map((c) => c.join(' <-> '));
    expect(found.filter((c) => !PENDING_CYCLES.includes(c))).toEqual([]);
    expect(PENDING_CYCLES.filter((c) => !found.includes(c)), 'remove these from PENDING_CYCLES').toEqual([]);
  });

  test('no module imports src/app.ts', () => {
    const offenders = [...new Set(edges.filter((e) => e.from.startsWith('src/modules/') && e.to === 'src/app.ts').map((e) => e.from))].sort();
    expect(offenders.filter((f) => !PENDING_APP_IMPORT.includes(f))).toEqual([]);
    expect(PENDING_APP_IMPORT.filter((f) => !offenders.includes(f)), 'remove these from PENDING_APP_IMPORT').toEqual([]);
  });
});
