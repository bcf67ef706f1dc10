// The error catalogue (src/http/error-catalogue.ts) is the one place a refusal code gets its status
// and body shape. Checked here: the bodies `fail` builds; that the source throws every code and
// pairs no literal status with a code against the catalogue; that the OpenAPI document lists each
// code under its catalogue status with a schema its body validates against; and that the docs'
// `<status> <code>` mentions agree with the catalogue.
import { randomUUID } from 'node:crypto';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE, fail, type ErrorCode, type ErrorEntry, type ErrorShape } from '../src/http/errors.ts';
import { createTestContext, type TestContext } from './support/harness.ts';
import { documentAjv, operations, publishedDocuments } from './support/openapi.ts';

const ROOT = join(import.meta.dirname, '..');
const CATALOGUE_FILE = 'src/http/error-catalogue.ts';
// Files that list codes to document them, not to throw them.
const DOCUMENTING = ['src/http/openapi-registry.ts', 'src/http/openapi.ts', 'src/http/operation.ts'];
// The code lists of an operation's documented errors, declared on its route (`errors: { 409: [{ error:
// ['...'] }] }`, src/http/operation.ts): documentation, not a use of the codes.
const DOCUMENTED_CODES = /\b(?:error|error_name|detail_code|code)\s*:\s*\[[^\]]*\]/g;

const entries = Object.entries(ERROR_CATALOGUE) as [ErrorCode, ErrorEntry][];
const codes = new Set<string>(entries.map(([c]) => c));
const entry = (code: string): ErrorEntry | undefined => (codes.has(code) ? ERROR_CATALOGUE[code as ErrorCode] : undefined);

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : path.endsWith('.ts') ? [relative(ROOT, path)] : [];
  });
}

/** The source without comment lines (a code named in a comment is not a use of it). */
const code = (text: string) =>
  text
    .split('\n')
    .filter((line) => !/^\s*(\/\/|\/?\*)/.test(line))
    .join('\n');

const sources = walk(join(ROOT, 'src')).map((file) => ({ file, text: code(readFileSync(join(ROOT, file), 'utf8')) }));

/** `fail(code, {message})`'s body for any code (the `message` every shape accepts). */
const failAny = (c: ErrorCode, extra: Record<string, unknown> = {}) => (fail as (c: ErrorCode, d: object) => ReturnType<typeof fail>)(c, { message: 'A message.', extra });

const KEYS: Record<ErrorShape, (c: string) => Record<string, unknown>> = {
  error_code: (c) => ({ error: 'A message.', code: c }),
  error_name: (c) => ({ error_name: c, message: 'A message.' }),
  code: (c) => ({ code: c, detail: 'A message.' }),
  detail_code: (c) => ({ detail: 'A message.', code: c }),
};

describe('fail', () => {
  it('builds each code with its catalogue status, headers and shape, keys in the shape’s order', () => {
    for (const [c, e] of entries) {
      const err = failAny(c, { extra_key: 1 });
      expect(err.status, c).toBe(e.status);
      expect(err.headers, c).toEqual({ ...e.headers });
      expect(JSON.stringify(err.body), c).toBe(JSON.stringify({ ...KEYS[e.shape](c), extra_key: 1 }));
    }
  });

  it('uses the catalogue message unless the throw site gives one, and adds the site’s headers', () => {
    expect(fail('user_inactive').body).toEqual({ error: 'This account is disabled.', code: 'user_inactive' });
    expect(fail('invalid_google_credential', { message: 'No.' }).body).toEqual({ error: 'No.', code: 'invalid_google_credential' });
    expect(fail('renewal_answers_required', { extra: { missing_keys: ['a'] } }).body).toEqual({ code: 'renewal_answers_required', missing_keys: ['a'] });
    const limited = fail('REGISTRATION_RATE_LIMITED', { extra: { retry_after: 3 }, headers: { 'retry-after': '3' } });
    expect([limited.status, limited.body, limited.headers]).toEqual([429, { error_name: 'REGISTRATION_RATE_LIMITED', message: 'Please wait before requesting another code.', retry_after: 3 }, { 'retry-after': '3' }]);
    expect(fail('authentication_failed').headers).toEqual({ 'www-authenticate': 'Bearer realm="metrics"' });
  });

  it('is typed by the catalogue', () => {
    // Compile-time checks (npm run typecheck fails if these lines stop being errors).
    // @ts-expect-error an unknown code does not compile
    expect(() => fail('no_such_code')).toThrow();
    // @ts-expect-error a code without a catalogue message needs the throw site's
    expect(fail('invalid_status_transition').body.detail).toBeUndefined();
  });
});

describe('the source', () => {
  it('no longer builds coded refusals with a status at the throw site', () => {
    const legacy = sources.filter((s) => /\b(?:errorCode|errorName|coded|detailCode)\(\s*\d{3}\b/.test(s.text)).map((s) => s.file);
    expect(legacy).toEqual([]);
  });

  it('pairs no literal status with a code other than the catalogue’s', () => {
    // `new ApiError(<status>, {... code: '<code>' ...})` outside the catalogue: the code must be
    // catalogued with that status (the rate limiter's `throttled` in lib is one).
    const wrong: string[] = [];
    let seen = 0;
    for (const { file, text } of sources.filter((s) => s.file !== CATALOGUE_FILE)) {
      for (const m of text.matchAll(/new ApiError\(\s*(\d{3})\s*,\s*\{([^;]*)/g)) {
        const pair = /\b(?:code|error_name)\s*:\s*'([A-Za-z0-9_]+)'/.exec(m[2]!);
        if (!pair) continue;
        seen++;
        const e = entry(pair[1]!);
        if (!e) wrong.push(`${file}: ${pair[1]} is not in the catalogue`);
        else if (e.status !== Number(m[1])) wrong.push(`${file}: ${pair[1]} with ${m[1]}, the catalogue says ${e.status}`);
      }
    }
    expect(seen).toBeGreaterThan(0);
    expect(wrong).toEqual([]);
  });

  it('throws only catalogued codes, and every catalogued code is used', () => {
    // (The connector's OAuth code has a `fail` of its own: only files importing the catalogue's count.)
    const importing = sources.filter((s) => /import \{[^}]*\bfail\b[^}]*\} from '[^']*\/(?:errors|error-catalogue)\.ts'/.test(s.text));
    expect(importing.length).toBeGreaterThan(15);
    const thrown = importing.flatMap((s) => [...s.text.matchAll(/\bfail\(\s*'([A-Za-z0-9_]+)'/g)].map((m) => m[1]!));
    expect(thrown.length).toBeGreaterThan(50);
    expect([...new Set(thrown)].filter((c) => !codes.has(c))).toEqual([]);
    // Used: named as a string outside the catalogue and the files that only document codes (most in
    // `fail('<code>')`; a few through a typed value, such as the renewal options' blocked_code).
    const literals = new Set<string>();
    for (const { file, text } of sources) {
      if (file === CATALOGUE_FILE || DOCUMENTING.includes(file)) continue;
      for (const m of text.replace(DOCUMENTED_CODES, '').matchAll(/'([A-Za-z0-9_]+)'/g)) literals.add(m[1]!);
    }
    expect([...codes].filter((c) => !literals.has(c))).toEqual([]);
  });
});

describe('the OpenAPI document', () => {
  let ctx: TestContext;
  let doc: any;
  beforeAll(async () => {
    ctx = await createTestContext();
    // Both published documents (patient and staff) as one: a staff-only code is in the staff one.
    doc = (await publishedDocuments(ctx)).all;
  });
  afterAll(async () => ctx?.close());

  it('lists each code under its catalogue status, in a schema its body validates against', () => {
    const validator = documentAjv(doc);
    const resolve = (node: any): any => (node?.$ref ? resolve(doc.components.schemas[node.$ref.split('/').pop()]) : node);
    /** The codes and error_names a response schema enumerates. */
    const enumerated = (node: any, out = new Set<string>()): Set<string> => {
      const n = resolve(node);
      if (!n || typeof n !== 'object') return out;
      for (const key of ['code', 'error_name']) for (const c of n.properties?.[key]?.enum ?? []) out.add(c);
      for (const sub of [...(n.anyOf ?? []), ...(n.oneOf ?? [])]) enumerated(sub, out);
      return out;
    };
    // Extras a documented schema requires beyond the shape's own keys, and null extras the source
    // sends (subscriptions/service.ts) that the schema must admit.
    const SAMPLE_EXTRAS: Partial<Record<ErrorCode, Record<string, unknown>>> = {
      server_error: { error_id: randomUUID() },
      renewal_answer_ineligible: { question_key: null },
      invalid_treatment_variant: { treatment_id: 'semaglutide', dosage: null },
    };
    const problems: string[] = [];
    let checked = 0;
    for (const o of operations(doc)) {
      for (const [status, response] of Object.entries<any>(o.op.responses)) {
        const schema = response.content?.['application/json']?.schema;
        if (Number(status) < 400 || !schema) continue;
        for (const c of enumerated(schema)) {
          const e = entry(c);
          const where = `${o.method.toUpperCase()} ${o.path} ${status} ${c}`;
          if (!e) {
            problems.push(`${where}: not in the catalogue`);
            continue;
          }
          checked++;
          if (e.status !== Number(status)) problems.push(`${where}: the catalogue says ${e.status}`);
          const validate = validator(schema);
          if (!validate(failAny(c as ErrorCode, SAMPLE_EXTRAS[c as ErrorCode]).body)) problems.push(`${where}: ${JSON.stringify(validate.errors?.slice(0, 2))}`);
        }
      }
    }
    expect(checked).toBeGreaterThan(100);
    expect(problems).toEqual([]);
  });
});

describe('docs/', () => {
  it('gives each code the catalogue’s status and shape where it names them (`400 <code>`, `400 {error, code: "<code>"}`)', () => {
    const SHAPE_OF_FIRST_KEY: Record<string, ErrorShape> = { error: 'error_code', error_name: 'error_name', code: 'code', detail: 'detail_code' };
    const docs = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md'));
    const problems: string[] = [];
    let checked = 0;
    for (const file of docs) {
      const text = readFileSync(join(ROOT, 'docs', file), 'utf8');
      for (const [, span] of text.matchAll(/`([^`\n]+)`/g)) {
        const m = /^\s*(\d{3})\s+(?:\{([^}]*)\}|([A-Za-z0-9_]+)\b)/.exec(span!);
        if (!m) continue;
        const body = m[2];
        const c = body === undefined ? m[3]! : /"?\b(?:code|error_name)\b"?\s*:\s*"([A-Za-z0-9_]+)"/.exec(body)?.[1];
        const e = c === undefined ? undefined : entry(c);
        if (!e) continue;
        checked++;
        if (e.status !== Number(m[1])) problems.push(`docs/${file}: \`${span}\`: the catalogue says ${e.status}`);
        const firstKey = body === undefined ? undefined : /^\s*"?([A-Za-z_]+)/.exec(body)?.[1];
        const shape = firstKey === undefined ? undefined : SHAPE_OF_FIRST_KEY[firstKey];
        if (shape && shape !== e.shape) problems.push(`docs/${file}: \`${span}\`: the catalogue's shape is ${e.shape}`);
      }
    }
    expect(checked).toBeGreaterThan(50);
    expect(problems).toEqual([]);
  });
});
