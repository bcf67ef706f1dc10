// The layering rules of docs/architecture.md, checked over the source tree so they hold without
// anyone remembering them:
//   1. SQL lives only in repository files (`repository.ts`, `*.repository.ts`) and src/db/.
//   2. A module is reached from outside only through its index.ts.
//   3. No import cycle between folders (type-only imports excluded: they vanish at run time).
//   4. No module imports src/app.ts: modules are Fastify plugins typed by the zod provider.
//   5. Repository files are private to their module: no route file imports a repository, and no
//      module's index.ts re-exports a repository's functions (it exports services).
//   6. Every statement on an account table starts from forAccount (src/db/scope.ts), or for raw SQL
//      is built by accountSql, unless its function is named as deliberately unscoped
//      (...ForClinician, ...ForScheduler, ...).
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';
import { accountSql } from '../src/db/scope.ts';

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

// Files that still break a rule while their refactor is under way. Each entry is a debt:
// the list only shrinks, and the test fails when a listed file no longer needs its entry.
const PENDING_SQL: string[] = [];
const PENDING_BOUNDARY: string[] = [];
const PENDING_APP_IMPORT: string[] = [];
// Route files still importing their repository, index.ts files still re-exporting one.
const PENDING_ROUTE_REPOSITORY: string[] = [];
const PENDING_INDEX_REPOSITORY: string[] = [];
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

  test('no route file imports a repository: routes call their module\'s service', () => {
    // routes.ts, x.routes.ts, and the files of a routes/ folder (the connector's).
    const isRoutes = (f: string) => /(^|\/)(routes|[\w-]+\.routes)\.ts$/.test(f) || /\/routes\/[\w-]+\.ts$/.test(f);
    const offenders = [...new Set(edges.filter((e) => isRoutes(e.from) && isRepository(e.to)).map((e) => e.from))].sort();
    expect(offenders.filter((f) => !PENDING_ROUTE_REPOSITORY.includes(f))).toEqual([]);
    expect(PENDING_ROUTE_REPOSITORY.filter((f) => !offenders.includes(f)), 'remove these from PENDING_ROUTE_REPOSITORY').toEqual([]);
  });

  test("a module's index.ts exports services, not repository functions", () => {
    // Type-only re-exports (row types) are allowed: they vanish at run time.
    const offenders = [...new Set(edges.filter((e) => /^src\/modules\/[\w-]+\/index\.ts$/.test(e.from) && !e.typeOnly && isRepository(e.to)).map((e) => e.from))].sort();
    expect(offenders.filter((f) => !PENDING_INDEX_REPOSITORY.includes(f))).toEqual([]);
    expect(PENDING_INDEX_REPOSITORY.filter((f) => !offenders.includes(f)), 'remove these from PENDING_INDEX_REPOSITORY').toEqual([]);
  });

  test('no module imports src/app.ts', () => {
    const offenders = [...new Set(edges.filter((e) => e.from.startsWith('src/modules/') && e.to === 'src/app.ts').map((e) => e.from))].sort();
    expect(offenders.filter((f) => !PENDING_APP_IMPORT.includes(f))).toEqual([]);
    expect(PENDING_APP_IMPORT.filter((f) => !offenders.includes(f)), 'remove these from PENDING_APP_IMPORT').toEqual([]);
  });
});

// ------------------------------------------------------------------ account scoping

/** Tables with an owner column (`user_id: string` in src/db/schema.ts), read from the generated types. */
function accountTables(): Set<string> {
  const schema = readFileSync(join(SRC, 'db/schema.ts'), 'utf8');
  const tableOf = new Map<string, string>();
  const db = /export interface (?:DB|Database) \{([\s\S]*?)\n\}/.exec(schema)?.[1] ?? '';
  for (const m of db.matchAll(/(\w+): (\w+);/g)) tableOf.set(m[2]!, m[1]!);
  const owned = new Set<string>();
  for (const m of schema.matchAll(/export interface (\w+) \{([\s\S]*?)\n\}/g)) {
    const table = tableOf.get(m[1]!);
    if (table && /\n\s+user_id: string;/.test(m[2]!)) owned.add(table);
  }
  return owned;
}

// Credentials looked up by the secret they hold (a token's hash, a challenge) before any account is
// known: the secret is their scope. Owned by accounts; src/http/idempotency.repository.ts keys by
// (user_id, key) in each statement.
const CREDENTIAL_TABLES = [
  'email_verifications',
  'password_reset_tokens',
  'refresh_families',
  'mfa_totp',
  'mfa_recovery_codes',
  'mfa_tickets',
  'mfa_passkeys',
  'webauthn_challenges',
  // The public cancellation's one-click links (src/modules/compliance): found by the link's hash.
  'plan_cancel_requests',
];

/**
 * Function names of the deliberately unscoped queries: the actor is staff, a job or a provider.
 * `Staff`: any staff role alike (the access log looks up the owner of what a doctor, a pharmacist or
 * the back office read, src/modules/audit/repository.ts). `Operator`: the operator's commands and
 * start-up jobs that walk every account's stored files (key rotation, the import of disk uploads).
 */
const UNSCOPED_NAME = /For(Clinician|Scheduler|Backoffice|Pharmacy|Provider|Staff|Operator|LinkHolder)$/;

interface QuerySite {
  file: string;
  fn: string;
  what: string;
  scoped: boolean;
}

/**
 * Every selectFrom / updateTable / deleteFrom (and raw SQL literal) on an account table in a file.
 * A raw literal is scoped when it sits inside an `accountSql` callback (src/db/scope.ts), or in a
 * module constant (a fragment) whose every use is inside one or inside another such fragment.
 */
function querySites(file: string, tables: Set<string>, text = readFileSync(join(ROOT, file), 'utf8')): QuerySite[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const sites: (QuerySite & { fragment: string | null })[] = [];
  const rawTable = new RegExp(`\\b(?:from|join|update|into)\\s+(${[...tables].join('|')})\\b`, 'i');
  // Where each module constant is used: inside an accountSql callback, or in another constant's value.
  const uses = new Map<string, { inAccountSql: boolean; fragment: string | null }[]>();
  const constants = new Set<string>();
  const nameOf = (node: ts.Node): string | null => {
    if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) && node.name) return node.name.getText(source);
    if ((ts.isArrowFunction(node) || ts.isFunctionExpression(node)) && node.parent) {
      const p = node.parent;
      if ((ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p)) && p.name) return p.name.getText(source);
    }
    return null;
  };
  const visit = (node: ts.Node, fn: string, inAccountSql: boolean, fragment: string | null) => {
    const named = nameOf(node);
    // The outermost named function decides: a helper inside a ...ForClinician function is its part.
    const inFn = fn === '<module>' && named ? named : fn;
    // A module constant's value (not a function): the fragment its literals belong to.
    let inFragment = fragment;
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && inFn === '<module>' && ts.isSourceFile(node.parent.parent.parent)) {
      inFragment = node.name.text;
      constants.add(inFragment);
    }
    if (ts.isIdentifier(node) && !(ts.isVariableDeclaration(node.parent) && node.parent.name === node)) {
      uses.set(node.text, [...(uses.get(node.text) ?? []), { inAccountSql, fragment: inFragment }]);
    }
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const method = node.expression.name.text;
      const arg = node.arguments[0];
      if (['selectFrom', 'updateTable', 'deleteFrom'].includes(method) && arg) {
        const table = ts.isStringLiteralLike(arg) ? arg.text.split(/\s+as\s+/)[0]!.trim() : null;
        // A table named by a variable may be any table: it counts as an account table.
        if (table === null || tables.has(table)) {
          const receiver = node.expression.expression;
          const scoped = ts.isCallExpression(receiver) && receiver.expression.getText(source) === 'forAccount';
          sites.push({ file, fn: inFn, what: `${method}(${table ?? arg.getText(source)})`, scoped, fragment: null });
        }
      }
    }
    if (ts.isStringLiteralLike(node) || ts.isTemplateExpression(node)) {
      const literal = node.getText(source);
      const m = rawTable.exec(literal);
      if (m && SQL_PATTERN.test(literal)) {
        sites.push({ file, fn: inFn, what: `raw SQL on ${m[1]}`, scoped: inAccountSql, fragment: inAccountSql || inFn !== '<module>' ? null : inFragment });
      }
    }
    // The callback of accountSql(...) builds an owner-filtered statement.
    const opensAccountSql = ts.isCallExpression(node) && node.expression.getText(source) === 'accountSql';
    ts.forEachChild(node, (child) => visit(child, inFn, inAccountSql || opensAccountSql, inFragment));
  };
  visit(source, '<module>', false, null);
  // A fragment is scoped when it is used, and only inside accountSql callbacks or scoped fragments.
  const scopedFragments = new Set<string>();
  for (let changed = true; changed; ) {
    changed = false;
    for (const name of constants) {
      if (scopedFragments.has(name)) continue;
      const at = uses.get(name) ?? [];
      if (at.length > 0 && at.every((u) => u.inAccountSql || (u.fragment !== null && u.fragment !== name && scopedFragments.has(u.fragment)))) {
        scopedFragments.add(name);
        changed = true;
      }
    }
  }
  return sites.map(({ fragment, ...s }) => ({ ...s, scoped: s.scoped || (fragment !== null && scopedFragments.has(fragment)) }));
}

// Functions still to move onto forAccount (or to name as unscoped), as `file: function`. Each entry
// is a debt: the list only shrinks, and the test fails when a listed function no longer needs it.
const PENDING_SCOPE: string[] = [
];

describe('account scoping', () => {
  const tables = accountTables();
  for (const t of CREDENTIAL_TABLES) tables.delete(t);
  const sources = files.filter((f) => (isRepository(f) || isDbLayer(f)) && f !== 'src/db/scope.ts');
  const sites = sources.flatMap((f) => querySites(f, tables));

  test('the account tables are found in src/db/schema.ts', () => {
    for (const t of ['prescriptions', 'orders', 'consultations', 'payments', 'subscriptions', 'weight_entries']) expect(tables).toContain(t);
    expect(tables).not.toContain('users');
  });

  test('every query on an account table is scoped through forAccount or named as unscoped', () => {
    const offenders = [...new Set(sites.filter((s) => !s.scoped && !UNSCOPED_NAME.test(s.fn)).map((s) => `${s.file}: ${s.fn}`))].sort();
    expect(offenders.filter((o) => !PENDING_SCOPE.includes(o))).toEqual([]);
    expect(PENDING_SCOPE.filter((o) => !offenders.includes(o)), 'remove these from PENDING_SCOPE').toEqual([]);
  });

  test('the check sees an owner filter deleted (prescriptionForPdf without forAccount)', () => {
    const file = 'src/modules/fulfilment/repository.ts';
    const pdf = sites.filter((s) => s.file === file && s.fn === 'prescriptionForPdf');
    expect(pdf.length).toBeGreaterThan(0);
    expect(pdf.every((s) => s.scoped)).toBe(true);
    // The same file with that function's scope removed, as a mutant would write it, fails the rule.
    const text = readFileSync(join(ROOT, file), 'utf8');
    const start = text.indexOf('export async function prescriptionForPdf');
    const mutant = text.slice(0, start) + text.slice(start).replace('forAccount(q, userId)', 'sqlOf(q)');
    const unscoped = querySites(file, tables, mutant).filter((s) => s.fn === 'prescriptionForPdf' && !s.scoped);
    expect(unscoped.length).toBeGreaterThan(0);
  });

  test('the check sees raw SQL written outside accountSql (the consultations list, its fragments)', () => {
    const file = 'src/modules/consultations/repository.ts';
    const text = readFileSync(join(ROOT, file), 'utf8');
    expect(sites.filter((s) => s.file === file && s.what.startsWith('raw SQL')).every((s) => s.scoped)).toBe(true);
    // The list statement built as a plain string, as before account scoping: its literal is caught, and so
    // are the fragments it uses (the JSON of payments; SUMMARY_COLUMNS, though userSummaries' accountSql
    // statement uses it too).
    const wrapper = 'return accountSql(\n    (owner) =>';
    expect(text).toContain(wrapper);
    const mutant = text.replace(wrapper, 'return ((owner: string) =>');
    const unscoped = querySites(file, tables, mutant).filter((s) => !s.scoped);
    expect(unscoped.map((s) => s.fn)).toContain('consultationListSql');
    expect(unscoped.filter((s) => s.fn === '<module>').map((s) => s.what)).toContain('raw SQL on payments');
    expect(unscoped.filter((s) => s.fn === '<module>').map((s) => s.what)).toContain('raw SQL on subscriptions');
  });

  test('accountSql refuses a statement that does not use its owner, or binds $1 by hand', () => {
    expect(() => accountSql(() => 'select id from consultations where user_id = $2')).toThrow(/never refers to its owner/);
    expect(() => accountSql((owner) => `select id from consultations where user_id = $1 or user_id = ${owner}`)).toThrow(/\$1 is the owner/);
    const ok = accountSql((owner) => `select id from consultations where user_id = ${owner} and id = $2`);
    expect(ok.text).toBe('select id from consultations where user_id = $1 and id = $2');
  });
});
