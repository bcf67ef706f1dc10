// Checks answers against the OpenAPI document the service serves: the operation exists, the status
// is documented, the Content-Type is one the document lists for it, a JSON body validates against
// the schema of that status (ajv, JSON Schema 2020-12 as OpenAPI 3.1 uses), a 204/304 has no
// body, and the headers the document marks required are present.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { mergeDocuments } from '../../src/http/openapi.ts';
import { call, type CallOptions, type Res, type TestContext } from './harness.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

type Json = Record<string, any>;

export function documentAjv(doc: Json) {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  ajv.addFormat('binary', true);
  ajv.addSchema({ $id: 'openapi.json', components: doc.components });
  const cache = new Map<string, ValidateFunction>();
  /** A validator of one schema of the document (its #/components refs resolved in the document). */
  return (schema: Json): ValidateFunction => {
    const key = JSON.stringify(schema);
    let fn = cache.get(key);
    if (!fn) {
      const rebased = JSON.parse(key.replace(/"#\/components\//g, '"openapi.json#/components/'));
      fn = ajv.compile(rebased);
      cache.set(key, fn);
    }
    return fn;
  };
}

/**
 * The two published documents (patient: GET /v1/schema/; staff and operations: GET
 * /v1/schema/staff/) and both merged, for checks that cover every operation.
 */
export async function publishedDocuments(ctx: TestContext): Promise<{ patient: Json; staff: Json; all: Json }> {
  const patient = (await call(ctx, 'GET', '/v1/schema/')).body as Json;
  const staff = (await call(ctx, 'GET', '/v1/schema/staff/')).body as Json;
  return { patient, staff, all: mergeDocuments(patient, staff) };
}

export interface Operation {
  method: string;
  path: string;
  op: Json;
}

export function operations(doc: Json): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const method of ['get', 'put', 'post', 'delete', 'patch']) if (item[method]) out.push({ method, path, op: item[method] });
  }
  return out;
}

const templateRegex = (path: string) => new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`);

/** Records every answer, checked against the document, and which operations were exercised. */
export class DocumentChecker {
  readonly problems: string[] = [];
  readonly exercised = new Map<string, Set<number>>();
  private readonly validator: (schema: Json) => ValidateFunction;
  private readonly routes: { key: string; regex: RegExp; method: string; op: Json }[];

  constructor(readonly doc: Json) {
    this.validator = documentAjv(doc);
    this.routes = operations(doc).map(({ method, path, op }) => ({ key: `${method.toUpperCase()} ${path}`, regex: templateRegex(path), method, op }));
  }

  /** `METHOD /path` of every documented operation. */
  routesKeys(): string[] {
    return this.routes.map((r) => r.key);
  }

  /** Finds the documented operation of a request (undefined when the path is not an operation). */
  find(method: string, url: string) {
    const path = new URL(url, 'http://x').pathname;
    const withSlash = path.endsWith('/') ? path : `${path}/`;
    return this.routes.find((r) => r.method === method.toLowerCase() && (r.regex.test(path) || r.regex.test(withSlash)));
  }

  check(method: string, url: string, res: Res): void {
    const where = `${method} ${url} -> ${res.status}`;
    const route = this.find(method, url);
    if (!route) {
      this.problems.push(`${where}: no such operation in the document`);
      return;
    }
    const seen = this.exercised.get(route.key) ?? new Set<number>();
    seen.add(res.status);
    this.exercised.set(route.key, seen);
    const documented = route.op.responses?.[String(res.status)];
    if (!documented) {
      this.problems.push(`${where}: status not documented (documented: ${Object.keys(route.op.responses ?? {}).join(', ')}); body ${res.text.slice(0, 200)}`);
      return;
    }
    for (const [name, header] of Object.entries<Json>(documented.headers ?? {})) {
      const h = header.$ref ? this.doc.components.headers[header.$ref.split('/').pop()] : header;
      if (h.required && res.headers[name.toLowerCase()] === undefined) this.problems.push(`${where}: required header ${name} missing`);
    }
    const contentType = (String(res.headers['content-type'] ?? '').split(';')[0] ?? '').trim().toLowerCase();
    if (!documented.content) {
      if (res.text !== '' || res.headers['content-length'] !== undefined) this.problems.push(`${where}: documented without a body, answered ${JSON.stringify(res.text.slice(0, 40))} (Content-Length ${res.headers['content-length']})`);
      return;
    }
    const media = documented.content[contentType];
    if (!media) {
      this.problems.push(`${where}: Content-Type ${contentType || '(none)'} not documented (documented: ${Object.keys(documented.content).join(', ')})`);
      return;
    }
    if (contentType === 'application/json') {
      let body: unknown;
      try {
        body = JSON.parse(res.text);
      } catch {
        this.problems.push(`${where}: Content-Type application/json but the body is not JSON: ${res.text.slice(0, 80)}`);
        return;
      }
      const validate = this.validator(media.schema ?? {});
      if (!validate(body)) {
        this.problems.push(`${where}: body does not match the documented schema: ${JSON.stringify(validate.errors?.slice(0, 3))}; body ${res.text.slice(0, 300)}`);
      }
    } else if (res.text.length === 0) {
      this.problems.push(`${where}: empty ${contentType} body`);
    }
  }

  /** A request through the harness whose answer is checked against the document. */
  async call<T = any>(ctx: TestContext, method: string, url: string, opts: CallOptions = {}): Promise<Res<T>> {
    const res = await call<T>(ctx, method, url, opts);
    this.check(method, url, res);
    // A body the service accepted must be of a media type the document lists for the operation.
    const sent = opts.json !== undefined ? 'application/json' : opts.headers?.['content-type']?.split(';')[0]?.trim().toLowerCase();
    const route = this.find(method, url);
    if (sent && route && res.status < 300 && !route.op.requestBody?.content?.[sent]) {
      this.problems.push(`${method} ${url} -> ${res.status}: accepted a ${sent} body the document does not list (${Object.keys(route.op.requestBody?.content ?? {}).join(', ') || 'no request body'})`);
    }
    return res;
  }
}
