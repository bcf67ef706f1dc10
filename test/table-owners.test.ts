// docs/architecture.md's table-owner list must name every table of the schema, once, with a module
// that exists: a table added without an owner in the document fails here, so the list cannot drift.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');

/** Table names of the generated Kysely types (src/db/schema.ts, rewritten from the migrations). */
function schemaTables(): string[] {
  const text = readFileSync(join(ROOT, 'src/db/schema.ts'), 'utf8');
  const body = text.slice(text.indexOf('export interface Database {'));
  return [...body.slice(0, body.indexOf('\n}')).matchAll(/^ {2}(\w+): \w+;$/gm)].map((m) => m[1]!);
}

/** Rows of the "Table owners" table: each table named in the first cell, with the owner cell. */
function documentedOwners(): { table: string; owner: string }[] {
  const doc = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## Table owners'));
  const end = section.indexOf('\n## ', 3);
  const rows = (end > 0 ? section.slice(0, end) : section).split('\n').filter((l) => l.startsWith('| ') && !/^\| (table|---)/.test(l));
  return rows.flatMap((row) => {
    const [, tables = '', owner = ''] = row.split('|').map((c) => c.trim());
    return tables.split(',').map((t) => ({ table: t.trim().replace(/`/g, ''), owner }));
  });
}

describe('docs/architecture.md table owners', () => {
  const documented = documentedOwners();

  test('names every table of the schema exactly once, and no table that does not exist', () => {
    const tables = schemaTables();
    expect(tables.length).toBeGreaterThan(40);
    const names = documented.map((d) => d.table);
    expect(tables.filter((t) => !names.includes(t)), 'tables without an owner in docs/architecture.md').toEqual([]);
    expect(names.filter((t) => !tables.includes(t)), 'owners listed for tables that do not exist').toEqual([]);
    expect(names.filter((t, i) => names.indexOf(t) !== i), 'tables listed twice').toEqual([]);
  });

  test('each owner is a module folder, a named file or a stated exception', () => {
    const wrong = documented.filter(({ owner }) => {
      const file = /\(`([^`]+)`\)/.exec(owner)?.[1];
      if (file) return !existsSync(join(ROOT, file));
      const module = owner.split(/\s/)[0]!;
      if (module === 'no') return !/trigger/.test(owner);
      if (module === 'db') return false;
      return !existsSync(join(ROOT, 'src/modules', module));
    });
    expect(wrong).toEqual([]);
  });
});
