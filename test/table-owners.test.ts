// docs/architecture.md's table-owner list must name every table of the schema and of the migrations,
// once, with a module that exists, and only that owner's repository files may write the table
// (rule 2 of the document): a table added without an owner, or written from another module, fails
// here, so neither the list nor the code can drift from it.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');
const MIGRATIONS = join(ROOT, 'src/db/migrations');

const TABLE_DDL =
  /\bcreate\s+(?:unlogged\s+)?table\s+(?:if\s+not\s+exists\s+)?"?(\w+)"?|\bdrop\s+table\s+(?:if\s+exists\s+)?([\w",\s]+?)(?:\s+cascade|\s+restrict)?\s*;|\balter\s+table\s+(?:if\s+exists\s+)?"?(\w+)"?\s+rename\s+to\s+"?(\w+)"?/gi;

/** Tables a sequence of SQL scripts leaves behind: every `create table`, less the dropped ones, renames followed. */
function tablesLeftBy(scripts: string[]): string[] {
  const tables = new Set<string>();
  for (const script of scripts) {
    // Comments out, so a table named in prose is not taken for one the script creates.
    const sql = script.replace(/--[^\n]*/g, '').replace(/\/\*[\s\S]*?\*\//g, '');
    for (const m of sql.matchAll(TABLE_DDL)) {
      if (m[1]) tables.add(m[1].toLowerCase());
      if (m[2]) for (const t of m[2].split(',')) tables.delete(t.replace(/"/g, '').trim().toLowerCase());
      if (m[3] && m[4]) {
        tables.delete(m[3].toLowerCase());
        tables.add(m[4].toLowerCase());
      }
    }
  }
  return [...tables].sort();
}

/** Tables the migrations (src/db/migrations/*.sql, in order) leave behind. */
function migrationTables(): string[] {
  const files = readdirSync(MIGRATIONS).filter((f) => f.endsWith('.sql')).sort();
  return tablesLeftBy(files.map((f) => readFileSync(join(MIGRATIONS, f), 'utf8')));
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return walk(path);
    return path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : [];
  });
}

const isRepository = (file: string) => /(^|\/)(repository|[\w-]+\.repository)\.ts$/.test(file);

interface WriteSite {
  file: string;
  /** The table written, or null when the statement names it through a variable. */
  table: string | null;
  what: string;
}

const WRITE_METHODS = ['insertInto', 'replaceInto', 'updateTable', 'deleteFrom', 'mergeInto'];
// A raw statement that writes: the table after insert into / delete from / update ... set.
const RAW_WRITE = /\b(?:insert\s+into|delete\s+from|update)\s+"?([a-z_]+)"?(?=[\s(])/gi;

/**
 * Every write in a file: a Kysely insertInto / updateTable / deleteFrom (and the rarer replace and
 * merge) with its table, and every raw SQL string that inserts, updates or deletes a known table.
 * Read with the TypeScript parser (as test/structure.test.ts does), so comments do not count.
 */
function writeSites(file: string, tables: Set<string>, text = readFileSync(join(ROOT, file), 'utf8')): WriteSite[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const sites: WriteSite[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const method = node.expression.name.text;
      const arg = node.arguments[0];
      if (WRITE_METHODS.includes(method) && arg) {
        const table = ts.isStringLiteralLike(arg) ? arg.text.split(/\s+as\s+/)[0]!.trim() : null;
        sites.push({ file, table, what: `${method}(${arg.getText(source)})` });
      }
    }
    if (ts.isStringLiteralLike(node) || ts.isTemplateExpression(node)) {
      for (const m of node.getText(source).matchAll(RAW_WRITE)) {
        const table = m[1]!.toLowerCase();
        if (tables.has(table)) sites.push({ file, table, what: `raw SQL ${m[0].replace(/\s+/g, ' ')}` });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return sites;
}

/**
 * Whether a file may write a table of this owner (the owner cell's first word): a repository file of
 * src/modules/<owner>/, or of src/<owner>/ (mail, http) or src/<owner>.*.repository.ts (lib/secrets,
 * lib/clock); `db` is the database layer itself (src/db/, the migration runner's own table); `no
 * module` is written by triggers only, so by no source file.
 */
function mayWrite(owner: string, file: string): boolean {
  const word = owner.split(/\s/)[0]!;
  if (word === 'no') return false;
  if (word === 'db') return file.startsWith('src/db/');
  if (!isRepository(file)) return false;
  return file.startsWith(`src/modules/${word}/`) || file.startsWith(`src/${word}/`) || file.startsWith(`src/${word}.`);
}

// Statements that name their table through a variable, as `file: statement`. Each was read: the
// forAccount builders (src/db/scope.ts) take the table from their caller, whose literal is checked
// where it is written; the journal's delete takes one of its own entry tables. A new one fails here
// until it is read and listed.
const VARIABLE_TABLE_WRITES = [
  'src/db/scope.ts: updateTable(table as AccountTable)',
  'src/db/scope.ts: deleteFrom(table as AccountTable)',
  'src/modules/journal/repository.ts: deleteFrom(table)',
];

// Writes outside the table's owner still to move behind the owner's index.ts, as `file: table`. Each
// entry is a debt: the list only shrinks, and the test fails when an entry is no longer needed.
const PENDING_FOREIGN_WRITES: string[] = [];

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

  test('names every table the migrations create (less the dropped ones)', () => {
    const tables = migrationTables();
    expect(tables.length).toBeGreaterThan(40);
    // The migration runner creates its own table (src/db/migrate.ts); every other one is a migration's.
    expect(tables).toEqual(schemaTables().filter((t) => t !== 'schema_migrations').sort());
    const names = documented.map((d) => d.table);
    expect(tables.filter((t) => !names.includes(t)), 'tables without an owner in docs/architecture.md').toEqual([]);
  });

  test('the migration reader follows a drop and a rename, and skips comments', () => {
    const scripts = ['create table a (id int);\ncreate table "b" (id int);\n-- create table c (id int)\n', 'drop table if exists a;\nalter table b rename to d;\ncreate table e (id int); drop table e cascade;'];
    expect(tablesLeftBy(scripts)).toEqual(['d']);
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

  describe('only the owner writes a table', () => {
    const ownerOf = new Map(documented.map((d) => [d.table, d.owner]));
    const tables = new Set(ownerOf.keys());
    const files = walk(join(ROOT, 'src')).map((p) => relative(ROOT, p)).filter((f) => !f.startsWith('src/db/migrations/'));
    const sites = files.flatMap((f) => writeSites(f, tables));

    test('the writes are found (a Kysely insert, a raw delete)', () => {
      expect(sites).toContainEqual({ file: 'src/modules/accounts/repository.ts', table: 'users', what: "insertInto('users')" });
      expect(sites.some((s) => s.file === 'src/modules/checkout/repository.ts' && s.table === 'checkout_sessions' && s.what.startsWith('raw SQL delete from'))).toBe(true);
    });

    test('every write of a table is in a repository file of its owner', () => {
      const foreign = [...new Set(sites.filter((s) => s.table !== null && !mayWrite(ownerOf.get(s.table) ?? 'no', s.file)).map((s) => `${s.file}: ${s.table}`))].sort();
      expect(foreign.filter((f) => !PENDING_FOREIGN_WRITES.includes(f)), 'written outside the owner of docs/architecture.md').toEqual([]);
      expect(PENDING_FOREIGN_WRITES.filter((f) => !foreign.includes(f)), 'remove these from PENDING_FOREIGN_WRITES').toEqual([]);
    });

    test('a statement naming its table through a variable is one that was read', () => {
      const variable = sites.filter((s) => s.table === null).map((s) => `${s.file}: ${s.what}`);
      expect(variable.sort()).toEqual([...VARIABLE_TABLE_WRITES].sort());
    });

    test('the check sees a write from another module (a mutant)', () => {
      const mutant = "export async function f(q: Q) { await q.deleteFrom('payments').execute(); await q.execute(`update users set locale = $1`); }";
      const found = writeSites('src/modules/journal/repository.ts', tables, mutant);
      expect(found.map((s) => s.table)).toEqual(['payments', 'users']);
      expect(found.every((s) => !mayWrite(ownerOf.get(s.table!)!, s.file))).toBe(true);
      expect(mayWrite(ownerOf.get('payments')!, 'src/modules/payments/repository.ts')).toBe(true);
      expect(mayWrite(ownerOf.get('payments')!, 'src/modules/payments/service.ts')).toBe(false);
    });
  });
});
