// Bad input must never be a 5xx: a seeded fuzz of malformed requests over every
// operation of the OpenAPI document the service serves. Path parameters get odd values, bodies are
// generated from each operation's request schema and then mutated (wrong types, null, huge and deep
// values, NUL characters, prototype keys, unknown keys, odd numbers), raw payloads carry invalid
// UTF-8 and odd content types, query strings get odd values, and tokens are right, wrong-role,
// garbage or absent. Every answer must be below 500. Reproduce a failure with FUZZ_SEED=<seed>.
import { seededRandom } from '../src/lib/seeded-random.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, newStaff, seedPatient, TEST_BRAND, type Patient, type TestContext } from './support/harness.ts';
import { operations, publishedDocuments, type Operation } from './support/openapi.ts';
import { issueTokenPair } from '../src/modules/accounts/tokens.ts';

type Json = Record<string, any>;

/** Operations not fuzzed, each with the reason. None so far: even the Stripe webhook, with Stripe not configured, must refuse bad input below 500. */
const SKIPPED: Record<string, string> = {};

const SEED = Number(process.env.FUZZ_SEED ?? 0x5eed_0009) >>> 0;
const TOTAL = 10_500;
const PER_OPERATION_CAP = 150;
/** Operations that hash or verify a password (argon2) or otherwise do slow work get fewer requests. */
const SLOW: Record<string, number> = {
  'POST /v1/users/register/': 40,
  'POST /v1/users/token/': 40,
  'POST /v1/users/reset-password/': 40,
  'POST /oauth/sign-in': 40,
  'POST /v1/users/google-login/': 60,
};

// A run is reproducible from its seed.
const rand = seededRandom(SEED);
const int = (n: number) => Math.floor(rand() * n);
const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
const chance = (p: number) => rand() < p;

const MB = 'x'.repeat(1024 * 1024);
const PROTO_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty', '__defineGetter__', 'isPrototypeOf'];
const ODD_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\u0000'.repeat(64),
  '\uFFFF',
  '\uD800',
  '\uDC00x',
  '😀'.repeat(100),
  '%00',
  '..%2F..%2Fetc%2Fpasswd',
  '../../etc/passwd',
  "'; drop table users; --",
  '" OR 1=1 --',
  '<script>alert(1)</script>',
  '${jndi:ldap://x}',
  '{{7*7}}',
  'NaN',
  'Infinity',
  '-0',
  '1e309',
  'true',
  'null',
  'undefined',
  '0x1F',
  '9'.repeat(400),
  '2026-02-30',
  '0000-00-00',
  '9999-99-99T99:99:99Z',
  'x'.repeat(5000),
  '\r\n\r\n',
  '\t\v\f',
  '__proto__',
  'constructor',
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
];
const ODD_NUMBERS = [0, -0, -1, 1.5, 2 ** 31, -(2 ** 31) - 1, 2 ** 53 + 1, Number.MAX_VALUE, Number.MIN_VALUE, -Number.MAX_VALUE, 1e21, 1.2345678901234568e29];
/** Number literals JSON.stringify cannot produce, spliced into the raw text. */
const ODD_NUMBER_LITERALS = ['1e309', '-1e309', '-0', '1e-400', '0.0000000000000000000000001', '123456789012345678901234567890123456789', '-9223372036854775809', '1E+2', '00012', '.5', '+1', 'NaN', 'Infinity'];

/** Percent-encodes a string byte by byte (lone surrogates become the UTF-8 replacement bytes). */
const enc = (s: string) => [...Buffer.from(s, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');

function uuid(): string {
  const h = () => int(16).toString(16);
  return `${Array.from({ length: 8 }, h).join('')}-${Array.from({ length: 4 }, h).join('')}-4${Array.from({ length: 3 }, h).join('')}-a${Array.from({ length: 3 }, h).join('')}-${Array.from({ length: 12 }, h).join('')}`;
}

const ODD_PATH_VALUES = [
  'x',
  '0',
  '-1',
  '1e309',
  '%00',
  'a%00b',
  '..%2F..%2F',
  '..',
  '%2e%2e',
  '%FF%FE',
  '%C0%AF',
  '%E2%82',
  '%',
  '%zz',
  '%20',
  '__proto__',
  'constructor',
  'toString',
  'null',
  'undefined',
  'NaN',
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  'FFFFFFFF-FFFF-4FFF-AFFF-FFFFFFFFFFFF',
  '{00000000-0000-0000-0000-000000000000}',
  '9223372036854775808',
  'cs_test_x',
  'weight_loss',
  '%F0%9F%98%80',
  "'%20OR%201=1",
];

function oddPathValue(): string {
  switch (int(5)) {
    case 0:
      return uuid();
    case 1:
      return 'a'.repeat(pick([64, 300, 2000, 8000]));
    case 2:
      return enc(pick(ODD_STRINGS).slice(0, 600)) || 'x';
    default:
      return pick(ODD_PATH_VALUES);
  }
}

const ODD_QUERY_VALUES = ['', '-1', '0', '1e309', 'NaN', '99999999999999999999', '1.5', 'abc', '%00', '%FF', '%', 'true', '[]', '{}', 'a'.repeat(3000), '__proto__', '-created_at', 'created_at,-id', '%E2%82'];

function oddQuery(op: Json): string {
  const names: string[] = (op.parameters ?? []).filter((p: Json) => p.in === 'query').map((p: Json) => p.name);
  const all = [...names, 'limit', 'offset', 'ordering', 'locale', '__proto__', 'constructor[prototype][x]', 'a[b][c]', 'x'];
  const parts: string[] = [];
  const n = int(5);
  for (let i = 0; i < n; i++) {
    const name = pick(all);
    const value = chance(0.3) ? enc(pick(ODD_STRINGS).slice(0, 2000)) : pick(ODD_QUERY_VALUES);
    parts.push(chance(0.1) ? name : `${name}=${value}`);
    if (chance(0.15)) parts.push(`${name}=${value}`); // repeated parameter, which parses to an array
  }
  if (chance(0.05)) parts.push('%');
  return parts.length ? `?${parts.join('&')}` : '';
}

// ---------------------------------------------------------------- bodies from the request schema

let components: Json = {};
function deref(schema: Json | undefined, depth = 0): Json {
  if (!schema || typeof schema !== 'object') return {};
  if (schema.$ref && depth < 20) {
    const name = String(schema.$ref).replace('#/components/schemas/', '');
    return deref(components.schemas?.[name], depth + 1);
  }
  return schema;
}

/** A value that (roughly) matches a schema. */
function generate(raw: Json | undefined, depth = 0): unknown {
  const schema = deref(raw);
  if (depth > 6) return null;
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length) return pick(schema.enum);
  if (schema.example !== undefined && chance(0.3)) return schema.example;
  const variants = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(variants) && variants.length) return generate(pick(variants), depth + 1);
  if (Array.isArray(schema.allOf) && schema.allOf.length) return Object.assign({}, ...schema.allOf.map((s: Json) => generate(s, depth + 1)).filter((v: unknown) => v && typeof v === 'object'));
  const type = Array.isArray(schema.type) ? pick(schema.type) : schema.type;
  switch (type ?? (schema.properties ? 'object' : undefined)) {
    case 'object': {
      const out: Json = {};
      for (const [k, v] of Object.entries<Json>(schema.properties ?? {})) if ((schema.required ?? []).includes(k) || chance(0.6)) out[k] = generate(v, depth + 1);
      return out;
    }
    case 'array':
      return Array.from({ length: int(3) }, () => generate(schema.items, depth + 1));
    case 'string':
      if (schema.format === 'email') return `fuzz${int(1e6)}@example.org`;
      if (schema.format === 'uuid') return uuid();
      if (schema.format === 'date') return '1985-04-12';
      if (schema.format === 'date-time') return new Date(Date.UTC(2026, 0, 1 + int(300))).toISOString();
      if (schema.format === 'uri') return 'https://example.org/x';
      return 'fuzz'.slice(0, schema.maxLength ?? 4);
    case 'integer':
      return schema.minimum !== undefined && Number.isFinite(schema.minimum) && schema.minimum > -1e6 ? schema.minimum + int(3) : int(100);
    case 'number':
      return rand() * 100;
    case 'boolean':
      return chance(0.5);
    case 'null':
      return null;
    default:
      return pick(['x', 1, true, null, {}]);
  }
}

function deep(n: number, kind: 'array' | 'object'): unknown {
  let v: unknown = 'bottom';
  for (let i = 0; i < n; i++) v = kind === 'array' ? [v] : { a: v };
  return v;
}

/** A wrong value to put in place of a field. */
function wrongValue(): unknown {
  switch (int(14)) {
    case 0:
      return null;
    case 1:
      return [];
    case 2:
      return [pick(ODD_STRINGS), 1, null];
    case 3:
      return {};
    case 4:
      return { [pick(PROTO_KEYS)]: { polluted: true } };
    case 5:
      return pick(ODD_NUMBERS);
    case 6:
      return chance(0.5);
    case 7:
      return chance(0.25) ? MB : 'y'.repeat(pick([256, 4096, 70_000]));
    case 8:
      return deep(pick([50, 200, 500]), chance(0.5) ? 'array' : 'object');
    case 9:
      return pick(['NaN', 'Infinity', '-0', '1e309', '-1e309', '']);
    default:
      return pick(ODD_STRINGS);
  }
}

function mutate(value: unknown): unknown {
  if (value && typeof value === 'object' && !Array.isArray(value) && chance(0.85)) {
    const obj: Json = { ...(value as Json) };
    const keys = Object.keys(obj);
    const n = 1 + int(3);
    for (let i = 0; i < n; i++) {
      const r = int(6);
      if (r <= 1 && keys.length) obj[pick(keys)] = wrongValue();
      else if (r === 2 && keys.length) delete obj[pick(keys)];
      else if (r === 3) Object.defineProperty(obj, pick(PROTO_KEYS), { value: chance(0.5) ? { isAdmin: true, role: 'backoffice_admin' } : wrongValue(), enumerable: true, configurable: true, writable: true });
      else if (r === 4) obj[`unknown_${int(1000)}`] = wrongValue();
      else if (keys.length) {
        const k = pick(keys);
        if (obj[k] && typeof obj[k] === 'object') obj[k] = mutate(obj[k]);
        else obj[k] = wrongValue();
      }
    }
    return obj;
  }
  if (Array.isArray(value) && value.length && chance(0.7)) return value.map((v) => (chance(0.5) ? mutate(v) : v));
  return wrongValue();
}

interface Payload {
  body: string | Buffer | undefined;
  contentType: string | undefined;
  describe: string;
}

const truncate = (s: string, n = 300) => (s.length > n ? `${s.slice(0, n)}…(${s.length} chars)` : s);

function jsonText(value: unknown): string {
  let text = JSON.stringify(value) ?? 'null';
  // Splice number literals JSON.stringify cannot produce (1e309, -0, huge integers) into the text.
  if (chance(0.15)) text = text.replace(/:(-?\d+(\.\d+)?(e[+-]?\d+)?|null|true|false|"[^"]{0,40}")/i, () => `:${pick(ODD_NUMBER_LITERALS)}`);
  return text;
}

function makePayload(op: Json): Payload {
  const content = op.requestBody?.content ?? {};
  const schema = content['application/json']?.schema;
  const base = schema ? generate(schema) : {};
  const r = int(100);
  if (r < 55) {
    const value = chance(0.9) ? mutate(base) : base;
    const text = jsonText(value);
    return { body: text, contentType: pick(['application/json', 'application/json', 'application/json; charset=utf-8', 'Application/JSON', 'application/vnd.api+json']), describe: `json ${truncate(text)}` };
  }
  if (r < 62) {
    const v = pick<() => unknown>([
      () => deep(200, 'object'),
      () => deep(200, 'array'),
      () => ({ ...(base as Json), blob: MB }),
      () => Array.from({ length: 20_000 }, (_, i) => i),
      () => Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, i])),
    ])();
    // Nesting too deep for JSON.stringify here is written as text.
    const text = chance(0.2) ? `${'['.repeat(20_000)}1${']'.repeat(20_000)}` : chance(0.1) ? `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}` : JSON.stringify(v);
    return { body: text, contentType: 'application/json', describe: `json(large) ${truncate(text, 120)}` };
  }
  if (r < 72) {
    const bytes = pick([
      [0xff, 0xfe, 0x22],
      [0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d], // {"a":"\xC3("}
      [0x7b, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x3a, 0x31, 0x7d], // lone surrogate in a key
      [0xef, 0xbb, 0xbf, 0x7b, 0x7d], // BOM + {}
      [0x00, 0x7b, 0x00, 0x7d], // {} as UTF-16BE-ish
      [0xc0, 0xaf],
      [0xf8, 0x88, 0x80, 0x80, 0x80],
      [0x7b, 0x22, 0x65, 0x6d, 0x61, 0x69, 0x6c, 0x22, 0x3a, 0x22, 0x00, 0xff, 0x22, 0x7d],
    ]);
    const buf = Buffer.from(bytes);
    return { body: buf, contentType: pick(['application/json', 'application/json; charset=utf-8', 'text/plain', 'multipart/form-data; boundary=x']), describe: `bytes ${buf.toString('hex')}` };
  }
  if (r < 80) {
    const text = pick(['{', '[1,', '{"a":}', 'null', '"x"', '1', 'true', '[]', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{"x":1}}}', '{"a":1,"a":2}', '{"a":"\\u0000"}', '{"a":"\\ud800"}', '', ' ', '\u0000', '{}garbage', '/*c*/{}', "{'a':1}", '[' .repeat(10_000)]);
    return { body: text, contentType: 'application/json', describe: `raw ${truncate(JSON.stringify(text), 80)}` };
  }
  if (r < 95) {
    const ct = pick([
      'text/plain',
      'application/xml',
      'application/x-www-form-urlencoded',
      'multipart/form-data',
      'multipart/form-data; boundary=',
      'multipart/form-data; boundary="unterminated',
      'multipart/form-data; boundary=abc',
      'application/json; charset=utf-16',
      'application/json; charset=latin1',
      'application/json; charset=nope',
      'application/octet-stream',
      '*/*',
      'application/',
      ';;;',
      'application/json\u0000',
      'text/html; charset=utf-8',
      'application/merge-patch+json',
    ]);
    const text = pick([jsonText(base), '<a>1</a>', 'a=1&b=2&__proto__[x]=1', '--abc\r\nContent-Disposition: form-data; name="x"\r\n\r\nv\r\n', '--abc--', 'x', 'hello\u0000world']);
    return { body: text, contentType: ct.replace('\u0000', ''), describe: `${ct} ${truncate(JSON.stringify(text), 100)}` };
  }
  if (r < 98) return { body: jsonText(base), contentType: undefined, describe: `no content-type ${truncate(jsonText(base), 100)}` };
  return { body: undefined, contentType: pick([undefined, 'application/json']), describe: 'no body' };
}

// ---------------------------------------------------------------- the run

let ctx: TestContext;
let doc: Json;
let patient: Patient;
let doctor: Patient;
let admin: Patient;
beforeAll(async () => {
  ctx = await createTestContext({
    REGISTRATIONS_PER_IP: '100000',
    SIGNIN_FAILURES_PER_IP: '100000',
    SIGNIN_FAILURES_PER_ACCOUNT: '100000',
    FORGOT_PASSWORD_PER_IP: '100000',
  });
  // Every operation of both published documents (patient, staff and operations).
  doc = (await publishedDocuments(ctx)).all;
  components = doc.components ?? {};
  patient = await seedPatient(ctx, { date_of_birth: '1985-04-12', country_of_residence: 'DEU', gender: '0' });
  doctor = await newStaff(ctx, 'doctor');
  admin = await newStaff(ctx, 'backoffice_admin');
}, 120_000);
afterAll(async () => ctx?.close());

/** New sessions for the three accounts (sign-out, which the fuzz also calls, ends a session). */
async function freshTokens() {
  for (const who of [patient, doctor, admin]) who.access = (await issueTokenPair(ctx.deps, ctx.db, who.id)).access;
}

function rightToken(path: string): string {
  if (path.startsWith('/v1/clinician/')) return doctor.access;
  if (path.startsWith('/v1/backoffice/')) return admin.access;
  return patient.access;
}

function token(path: string): { header?: string; kind: string } {
  const r = int(100);
  if (r < 70) return { header: `Bearer ${rightToken(path)}`, kind: 'right' };
  if (r < 80) return { kind: 'none' };
  if (r < 88) {
    const others = [patient, doctor, admin].map((p) => p.access).filter((t) => t !== rightToken(path));
    return { header: `Bearer ${pick(others)}`, kind: 'wrong-role' };
  }
  return {
    header: pick(['Bearer ', 'Bearer not.a.token', 'Basic Zm9vOmJhcg==', `Bearer ${rightToken(path)}x`, `bearer ${rightToken(path)}`, 'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.', `Bearer ${'a'.repeat(9000)}`, 'Bearer \u00ff\u00fe']),
    kind: 'garbage',
  };
}

/** Ids of real resources seen in 2xx answers, so some requests get past the 404 of an unknown id. */
const realIds: string[] = [];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
function collectIds(path: string, body: string) {
  // Not user ids: disabling the fuzz's own accounts would leave every later request a 401.
  if (path.startsWith('/v1/backoffice/users/') || realIds.length > 500) return;
  let json: any;
  try {
    json = JSON.parse(body);
  } catch {
    return;
  }
  const users = new Set([patient.id, doctor.id, admin.id]);
  for (const item of [json, ...(Array.isArray(json?.results) ? json.results : [])]) {
    for (const k of ['id', 'session_id', 'message_id', 'consultation_id', 'conversation_id', 'payment_id', 'subscription_id']) {
      const v = item?.[k];
      if (typeof v === 'string' && (UUID.test(v) || v.startsWith('cs_')) && !users.has(v) && !realIds.includes(v)) realIds.push(v);
    }
  }
}

function fillPath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    if (name === 'slug' && chance(0.4)) return pick(['weight_loss', 'hair_loss', 'astrology', 'WEIGHT_LOSS']);
    if (realIds.length && !path.startsWith('/v1/backoffice/users/') && chance(0.3)) return pick(realIds);
    return oddPathValue();
  });
}

describe('malformed requests over every documented operation', () => {
  it(
    'never answer 5xx',
    async () => {
      const ops = operations(doc).filter((o: Operation) => !SKIPPED[`${o.method.toUpperCase()} ${o.path}`]);
      const budget = new Map<string, number>();
      for (const o of ops) {
        const key = `${o.method.toUpperCase()} ${o.path}`;
        budget.set(key, Math.min(SLOW[key] ?? PER_OPERATION_CAP, Math.ceil(TOTAL / ops.length)));
      }
      // Spread what the slow operations gave up over the others, up to the cap.
      let missing = TOTAL - [...budget.values()].reduce((a, b) => a + b, 0);
      while (missing > 0) {
        let moved = 0;
        for (const [key, n] of budget) {
          if (missing <= 0) break;
          if (SLOW[key] || n >= PER_OPERATION_CAP) continue;
          budget.set(key, n + 1);
          missing--;
          moved++;
        }
        if (!moved) break;
      }

      const histogram = new Map<number, number>();
      const covered = new Set<string>();
      const perOperation = new Map<string, Set<number>>();
      const failures: string[] = [];
      let sent = 0;
      const started = Date.now();
      for (const o of ops) {
        const key = `${o.method.toUpperCase()} ${o.path}`;
        const n = budget.get(key)!;
        await freshTokens();
        for (let i = 0; i < n; i++) {
          if (o.path.includes('logout') || o.path.includes('/disable/')) await freshTokens();
          const url = fillPath(o.path) + (chance(0.5) ? oddQuery(o.op) : '');
          const headers: Record<string, string> = {};
          const auth = token(o.path);
          if (auth.header) headers.authorization = auth.header;
          if (chance(0.85)) headers['x-brand-slug'] = chance(0.9) ? TEST_BRAND : pick(['nope', '', '__proto__', 'x'.repeat(500), '%00']);
          const hasBody = o.method !== 'get' || chance(0.1);
          const payload: Payload = hasBody ? makePayload(o.op) : { body: undefined, contentType: undefined, describe: 'no body' };
          if (payload.contentType !== undefined) headers['content-type'] = payload.contentType;
          if (chance(0.05)) headers.accept = pick(['application/xml', 'text/html', '*/*', '', 'application/json;q=0']);
          if (chance(0.03)) headers['if-none-match'] = pick(['*', '"x"', 'W/"', '\u00ff']);
          let status: number;
          let text = '';
          try {
            const res = await ctx.app.inject({
              method: o.method.toUpperCase() as any,
              url,
              headers,
              payload: payload.body,
              remoteAddress: `10.${int(256)}.${int(256)}.${int(256)}`,
            });
            status = res.statusCode;
            if (status >= 500) text = res.body;
            else if (status < 300) collectIds(o.path, res.body);
          } catch (err) {
            status = 599;
            text = `inject threw: ${(err as Error).message}`;
          }
          sent++;
          histogram.set(status, (histogram.get(status) ?? 0) + 1);
          covered.add(key);
          perOperation.set(key, (perOperation.get(key) ?? new Set<number>()).add(status));
          if (status >= 500) failures.push(`${status} ${o.method.toUpperCase()} ${truncate(url, 200)} [token: ${auth.kind}] ${payload.describe} -> ${truncate(text, 300)}`);
        }
      }
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const hist = [...histogram.entries()]
        .sort((a, b) => a[0] - b[0])
        .map(([s, c]) => `${s}: ${c}`)
        .join(', ');
      const onlyRefused = [...perOperation].filter(([, set]) => [...set].every((st) => st === 401 || st === 403 || st === 414)).map(([k]) => k);
      process.stdout.write(
        `\nfuzz-openapi: seed ${SEED} (FUZZ_SEED=${SEED}), ${sent} requests in ${seconds}s over ${covered.size}/${operations(doc).length} operations` +
          ` (skipped: ${Object.keys(SKIPPED).join(', ') || 'none'})\nstatus histogram: ${hist}` +
          `\nreal resource ids reused in paths: ${realIds.length}; operations never past authentication: ${onlyRefused.join(', ') || 'none'}\n`,
      );
      expect(sent).toBeGreaterThanOrEqual(10_000);
      expect(covered.size).toBe(ops.length);
      expect(failures, `seed ${SEED}: ${failures.length} responses >= 500:\n${failures.slice(0, 30).join('\n')}`).toEqual([]);
    },
    600_000,
  );
});
