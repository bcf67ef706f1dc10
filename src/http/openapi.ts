// The OpenAPI document as a product. @fastify/swagger builds it from the routes' zod schemas
// (fastify-type-provider-zod); finishDocument() then adds, in one place, what integrators and
// generated clients need and the route schemas do not say: operationIds, a description on every
// response, examples, integer paging parameters, the X-Brand-Slug header, error bodies per status
// with their code/error_name enums, Retry-After on 429, binary downloads and the multipart upload.
// The per-operation facts are declared on each route (`config: { operation }`, src/http/operation.ts)
// and collected by openapi-registry.ts. Served at /v1/schema/ (ETag, gzip/br) and rendered at
// /v1/docs/. See docs/api-document.md.
import { createHash } from 'node:crypto';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { docsPagePolicy, originOf } from './csp.ts';
import { budgetKey, ROUTE_BUDGETS } from './budgets.ts';
import { ERROR_CATALOGUE, type ErrorCode } from './error-catalogue.ts';
import { MAX_PAGE_SIZE } from './pagination.ts';
import { collectOperations, ERROR_EXTRAS, type DocumentedOperation, type ErrorVariant, type OperationDoc } from './openapi-registry.ts';


/**
 * The specification (section 5) declares two bearer schemes, both carried as `Authorization: Bearer`
 * with the same JWT; an operation lists both as alternatives, so either satisfies it.
 */
export const BEARER_SECURITY: Record<string, string[]>[] = [{ bearerAuth: [] }, { jwtAuth: [] }];

export const SERVICE_NAME = 'Patient Treatment Service';
export const DOCUMENT_TITLE = `${SERVICE_NAME} API`;

/** A JSON object of the document (schemas, operations, responses): read through the guards below. */
type Json = Record<string, unknown>;

// The document comes from @fastify/swagger and zod, so its parts are checked as they are read:
// a part that is not the expected kind is treated like a missing one.
function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null;
}
function isArray(value: unknown): value is unknown[] {
  return Array.isArray(value);
}
/** The value if it is an object, else undefined (the `?.` of the untyped original). */
function recordOf(value: unknown): Json | undefined {
  return isRecord(value) ? value : undefined;
}
function numberOf(value: unknown): number | undefined {
  return typeof value === 'number' ? value : undefined;
}
/** parent[key] as an object, created empty when absent (`parent[key] ??= {}`). */
function ensureRecord(parent: Json, key: string): Json {
  const existing = parent[key];
  if (isRecord(existing)) return existing;
  const created: Json = {};
  parent[key] = created;
  return created;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'];
const BODY_METHODS = new Set(['post', 'put', 'patch']);
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** The error shapes every operation of a kind can answer (errors.ts builds them). */
const SHARED_SCHEMAS: Record<string, Json> = {
  FieldErrors: {
    type: 'object',
    description: 'Field-keyed validation errors: each invalid field with its messages; problems with the whole body under `non_field_errors`.',
    additionalProperties: { type: 'array', items: { type: 'string' } },
    example: { email: ['Enter a valid email address.'] },
  },
  NotFound: {
    type: 'object',
    description: 'No such record for this account (another account’s record answers the same).',
    properties: { detail: { type: 'string' } },
    required: ['detail'],
    additionalProperties: false,
    example: { detail: 'Not found.' },
  },
  MalformedJson: {
    type: 'object',
    description: 'The request body is not valid JSON.',
    properties: { detail: { type: 'string' } },
    required: ['detail'],
    additionalProperties: false,
    example: { detail: 'JSON parse error: the request body is not valid JSON.' },
  },
  EmptyObject: { type: 'object', description: 'An empty object.', additionalProperties: false, example: {} },
  TokenNotValid: {
    type: 'object',
    description: 'The bearer token is invalid, expired, revoked or of the wrong type: sign in again.',
    properties: {
      detail: { type: 'string' },
      code: { type: 'string', enum: ['token_not_valid'] },
      messages: {
        type: 'array',
        items: {
          type: 'object',
          properties: { token_class: { type: 'string' }, token_type: { type: 'string' }, message: { type: 'string' } },
          required: ['token_class', 'token_type', 'message'],
        },
      },
    },
    required: ['detail', 'code'],
    example: {
      detail: 'Given token not valid for any token type',
      code: 'token_not_valid',
      messages: [{ token_class: 'AccessToken', token_type: 'access', message: 'Token is invalid or expired' }],
    },
  },
  NotAuthenticated: detailCodeSchema(['not_authenticated'], 'No bearer token was sent.', ERROR_CATALOGUE.not_authenticated.message),
  PermissionDenied: detailCodeSchema(['permission_denied'], 'The account lacks the staff role this route needs.', ERROR_CATALOGUE.permission_denied.message),
  PayloadTooLarge: detailCodeSchema(['payload_too_large'], 'The request body is larger than the limit (JSON: 256 KiB).', ERROR_CATALOGUE.payload_too_large.message),
  UnsupportedMediaType: detailCodeSchema(['unsupported_media_type'], 'The Content-Type of the body is not accepted here.', ERROR_CATALOGUE.unsupported_media_type.message),
  DatabaseUnavailable: {
    type: 'object',
    description: 'The database cannot be reached right now (a lost connection, a timeout): retry after `Retry-After` seconds.',
    properties: { error: { type: 'string' }, code: { type: 'string', enum: ['database_unavailable'] } },
    required: ['error', 'code'],
    example: { error: ERROR_CATALOGUE.database_unavailable.message, code: 'database_unavailable' },
  },
  ServerError: {
    type: 'object',
    description: 'An unexpected failure; `error_id` identifies the log entry.',
    properties: { detail: { type: 'string' }, code: { type: 'string', enum: ['server_error'] }, error_id: { type: 'string', format: 'uuid' } },
    required: ['detail', 'code', 'error_id'],
    example: { detail: 'A server error occurred.', code: 'server_error', error_id: '6f1c1f4e-8d0c-4a51-9a55-0d7c1b3e2f10' },
  },
};

function detailCodeSchema(codes: ErrorCode[], description?: string, detail = 'Refused.'): Json {
  return {
    type: 'object',
    ...(description ? { description } : {}),
    properties: { detail: { type: 'string' }, code: { type: 'string', enum: codes }, ...extrasOf(codes) },
    required: ['detail', 'code'],
    example: { detail, code: codes[0] },
  };
}

function extrasOf(codes: ErrorCode[]): Json {
  const extras: Json = {};
  for (const c of codes) Object.assign(extras, ERROR_EXTRAS[c] ?? {});
  return extras;
}

function variantSchema(v: ErrorVariant): Json {
  if (v === 'fields') return ref('FieldErrors');
  if (v === 'detail') return ref('NotFound');
  if (v === 'empty') return ref('EmptyObject');
  if (v === 'token') return ref('TokenNotValid');
  if ('error' in v) {
    return { type: 'object', properties: { error: { type: 'string' }, code: { type: 'string', enum: v.error }, ...extrasOf(v.error) }, required: ['error', 'code'] };
  }
  if ('error_name' in v) {
    return {
      type: 'object',
      properties: { error_name: { type: 'string', enum: v.error_name }, message: { type: 'string' }, ...extrasOf(v.error_name) },
      required: ['error_name', 'message'],
    };
  }
  if ('detail_code' in v) {
    if (v.detail_code.length === 1 && v.detail_code[0] === 'throttled') return ref('Throttled');
    return detailCodeSchema(v.detail_code);
  }
  return { type: 'object', properties: { code: { type: 'string', enum: v.code }, detail: { type: 'string' }, ...extrasOf(v.code) }, required: ['code'] };
}

const STATUS_TEXT: Record<string, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  204: 'Done (no body)',
  304: 'Not modified: the `If-None-Match` ETag still matches (no body)',
  400: 'The request was refused: field errors or a refusal code',
  401: 'Not signed in: no bearer token, or one that is invalid, expired or revoked',
  402: 'The payment failed',
  403: 'Not allowed',
  404: 'Not found',
  406: 'Not acceptable',
  409: 'Conflicts with the current state (nothing changed)',
  413: 'The request body is too large',
  415: 'Unsupported Content-Type',
  422: 'The Idempotency-Key was sent with a different request',
  429: 'Too many requests: wait `Retry-After` seconds',
  500: 'Unexpected server error',
  502: 'The upstream provider failed',
  503: 'Unavailable',
};

const anyOf = (schemas: unknown[]): unknown => {
  const unique = schemas.filter((s, i) => schemas.findIndex((t) => JSON.stringify(t) === JSON.stringify(s)) === i);
  const [only] = unique;
  return unique.length === 1 && only !== undefined ? only : { anyOf: unique };
};

/**
 * Adds what the route schemas do not say, from the operations the routes declared. Mutates and
 * returns the document.
 */
export function finishDocument(doc: Json, options: { brand: string; operations: ReadonlyMap<string, DocumentedOperation> }): Json {
  const components = ensureRecord(doc, 'components');
  components.schemas = { ...recordOf(components.schemas), ...SHARED_SCHEMAS, Throttled: detailCodeSchema(['throttled'], 'Too many requests.', 'Request was throttled. Expected available in 30 seconds.') };
  components.parameters = {
    ...recordOf(components.parameters),
    BrandSlug: {
      name: 'X-Brand-Slug',
      in: 'header',
      required: true,
      description: 'The brand identifier this service answers for (its `BRAND_SLUG`). Required on the unauthenticated account endpoints.',
      schema: { type: 'string', maxLength: 64 },
      example: options.brand,
    },
  };
  components.headers = {
    ...recordOf(components.headers),
    // At most the window of the budget that refused, and windows are configurable (src/config.ts).
    RetryAfter: { description: 'Seconds to wait before trying again', required: true, schema: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER } },
    WwwAuthenticate: { description: 'The authentication scheme: `Bearer realm="api"`', required: true, schema: { type: 'string' } },
    ContentDisposition: { description: '`attachment; filename="..."`', required: true, schema: { type: 'string' } },
    ETag: { description: 'Strong validator of the body; send it back in `If-None-Match`', required: true, schema: { type: 'string' } },
    // Named as the header itself: every response (OWASP API8, .spectral.yaml) refers to it.
    [CORS_HEADER]: {
      description: 'The request’s `Origin`, when it is one of the configured `CORS_ORIGINS`; absent otherwise (by default only the same origin may call from a browser). Credentials are never allowed.',
      required: false,
      schema: { type: 'string', maxLength: 2048 },
    },
  };

  for (const [path, item] of Object.entries(recordOf(doc.paths) ?? {})) {
    if (!isRecord(item)) continue;
    for (const method of METHODS) {
      const op = item[method];
      if (!isRecord(op)) continue;
      const key = `${method.toUpperCase()} ${path}`;
      const operation = options.operations.get(key);
      // collectOperations refuses to start without one; this guards a path it could not foresee.
      if (!operation) throw new Error(`${key} is in the API document but declares no operation (src/http/operation.ts).`);
      // operationIds are unique: collectOperations refuses a second route with the same one.
      op.operationId = operation.doc.id;
      finishOperation(doc, path, method, op, operation.doc, operation.access);
    }
  }
  addImpliedBounds(doc.paths);
  addImpliedBounds(doc.components);
  pruneUnreferencedSchemas(doc);
  return doc;
}

const CORS_HEADER = 'Access-Control-Allow-Origin';
/** The multipart file limit (UPLOAD_LIMIT_BYTES of src/app.ts, which imports this file). */
const UPLOAD_LIMIT_BYTES = 10 * 1024 * 1024;
const INT32_LIMIT = 2 ** 31;
/** Formats whose values have one length, so the length is published with them. */
const FORMAT_LENGTH: Record<string, number> = { uuid: 36, date: 10 };
/** Keys whose values are data, not schemas. */
const DATA_KEYS = new Set(['example', 'examples', 'default', 'const', 'enum']);

/**
 * The bounds a schema implies but zod's JSON Schema does not write (OWASP API4, .spectral.yaml),
 * added in one place: every integer gets its `format` (int32 when its minimum and maximum fit, else
 * int64: zod integers are safe integers); a `uuid` or `date` string the `maxLength` of its format;
 * the `results` of a page at most the page size (limit is capped at MAX_PAGE_SIZE).
 */
function addImpliedBounds(node: unknown): void {
  if (isArray(node)) return node.forEach(addImpliedBounds);
  if (!isRecord(node)) return;
  const types = isArray(node.type) ? node.type : [node.type];
  if (types.includes('integer') && node.format === undefined) {
    const min = numberOf(node.minimum) ?? numberOf(node.exclusiveMinimum);
    const max = numberOf(node.maximum) ?? numberOf(node.exclusiveMaximum);
    node.format = min !== undefined && max !== undefined && min >= -INT32_LIMIT && max < INT32_LIMIT ? 'int32' : 'int64';
  }
  const length = typeof node.format === 'string' ? FORMAT_LENGTH[node.format] : undefined;
  if (types.includes('string') && length !== undefined && node.maxLength === undefined) node.maxLength = length;
  const properties = recordOf(node.properties);
  const results = recordOf(properties?.results);
  if (properties && 'count' in properties && 'next' in properties && results?.type === 'array' && results.maxItems === undefined) results.maxItems = MAX_PAGE_SIZE;
  for (const [key, value] of Object.entries(node)) if (!DATA_KEYS.has(key) || key === 'properties') addImpliedBounds(value);
}

function finishOperation(doc: Json, path: string, method: string, op: Json, reg: OperationDoc, access: DocumentedOperation['access']) {
  // Parameters: integer paging, the brand header.
  for (const p of isArray(op.parameters) ? op.parameters : []) {
    if (!isRecord(p) || p.in !== 'query') continue;
    if (p.name === 'limit') p.schema = { type: 'integer', format: 'int32', minimum: 1, maximum: MAX_PAGE_SIZE, default: 20 };
    // Any safe integer is read (pagination.ts); a larger one falls back to 0.
    if (p.name === 'offset') p.schema = { type: 'integer', format: 'int64', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0 };
  }
  if (reg.brand) {
    const others = (isArray(op.parameters) ? op.parameters : []).filter((p) => !(isRecord(p) && typeof p.name === 'string' && p.name.toLowerCase() === 'x-brand-slug'));
    op.parameters = [{ $ref: '#/components/parameters/BrandSlug' }, ...others];
  }

  // Request body: example; the multipart form of the message upload.
  const requestContent = recordOf(recordOf(op.requestBody)?.content);
  const json = recordOf(requestContent?.['application/json']);
  if (json?.schema) json.example = reg.requestExample ?? sample(doc, json.schema);
  if (reg.id === 'verifyPrescription') {
    op.requestBody = {
      required: true,
      content: {
        'multipart/form-data': {
          schema: { type: 'object', properties: { file: { type: 'string', format: 'binary', maxLength: 5 * 1024 * 1024, description: 'The prescription PDF as downloaded, at most 5 MiB' } }, required: ['file'] },
          encoding: { file: { contentType: 'application/pdf' } },
        },
      },
    };
  }
  if ((reg.id === 'sendMessage' || reg.id === 'replyToConversation') && requestContent) {
    requestContent['multipart/form-data'] = {
      schema: {
        type: 'object',
        properties: {
          file: { type: 'string', format: 'binary', maxLength: UPLOAD_LIMIT_BYTES, description: 'PDF, JPEG, PNG or HEIC (by its bytes), at most 10 MiB' },
          content: { type: 'string', maxLength: 5000, description: 'Optional text sent with the file' },
        },
        required: ['file'],
      },
      encoding: { file: { contentType: 'application/pdf, image/jpeg, image/png, image/heic' } },
    };
  }

  if (reg.multipartForm) {
    const form = reg.multipartForm;
    op.requestBody = {
      required: true,
      content: { 'multipart/form-data': { schema: { type: 'object', properties: form.properties, required: form.required }, ...(form.encoding ? { encoding: form.encoding } : {}) } },
    };
  }

  // Security from the access rule that guards the route (src/http/access.ts), not from what the
  // route schema says.
  op.security = access === 'public' ? [] : BEARER_SECURITY;
  const responses = ensureRecord(op, 'responses');
  const bearer = access !== 'public';
  // A DELETE with a JSON body (account erasure) is parsed like any other body.
  const takesBody = (BODY_METHODS.has(method) || Boolean(op.requestBody)) && !reg.rawBody;

  // Errors: the route-specific shapes from the registry, then the ones a kind of route shares.
  for (const [status, variants] of Object.entries(reg.errors ?? {})) {
    if (variants === null) delete responses[status];
    else responses[status] = { content: { 'application/json': { schema: anyOf(variants.map(variantSchema)) } } };
  }
  const addError = (status: number, schemas: unknown[]) => {
    const existing = recordOf(recordOf(recordOf(recordOf(responses[status])?.content)?.['application/json'])?.schema);
    const current = existing ? (isArray(existing.anyOf) && !existing.$ref ? existing.anyOf : [existing]) : [];
    responses[status] = { ...recordOf(responses[status]), content: { 'application/json': { schema: anyOf([...current, ...schemas]) } } };
  };
  // The request budgets of src/http/budgets.ts: the same table that installs them declares their 429.
  // (The route schema's generic 429 shape, added by the same table, gives way to the enumerated one.)
  if (ROUTE_BUDGETS[budgetKey(method, path)] && !JSON.stringify(responses[429] ?? {}).includes('Throttled')) {
    if (reg.errors?.[429]) addError(429, [ref('Throttled')]);
    else responses[429] = { content: { 'application/json': { schema: ref('Throttled') } } };
  }
  if (bearer) responses[401] = { content: { 'application/json': { schema: anyOf([ref('TokenNotValid'), ref('NotAuthenticated')]) } } };
  if (access === 'doctor' || access === 'backoffice_admin' || access === 'pharmacist') {
    if (reg.errors?.[403]) addError(403, [ref('PermissionDenied')]);
    else responses[403] = { content: { 'application/json': { schema: ref('PermissionDenied') } } };
  }
  // Text with U+0000 anywhere (path, query, body) is a field-keyed 400 on every route (input-guard.ts).
  addError(400, [ref('FieldErrors')]);
  if (takesBody) {
    addError(400, [ref('MalformedJson')]);
    addError(413, [ref('PayloadTooLarge')]);
    addError(415, [ref('UnsupportedMediaType')]);
  }
  // Idempotency-Key (src/http/idempotency.ts): a key reused with another request, or still in flight.
  if ((isArray(op.parameters) ? op.parameters : []).some((p) => isRecord(p) && p.in === 'header' && p.name === 'idempotency-key')) {
    addError(422, [variantSchema({ error: ['idempotency_key_reused'] })]);
    addError(409, [variantSchema({ error: ['idempotency_key_in_use'] })]);
  }
  // A malformed id in a path answers the not-found body.
  if (path.includes('{') && !reg.errors?.[404]) addError(404, [ref('NotFound')]);
  if (!responses[500]) responses[500] = { content: { 'application/json': { schema: ref('ServerError') } } };
  // Any route that reads or writes the database answers 503 while it cannot be reached (errors.ts).
  if (!responses[503] && path !== '/healthz') responses[503] = { content: { 'application/json': { schema: ref('DatabaseUnavailable') } } };

  // Descriptions, headers, media types, examples.
  for (const [status, res] of Object.entries(responses)) {
    if (!isRecord(res)) continue;
    const code = Number(status);
    const given = reg.descriptions?.[code];
    if (given || !res.description || res.description === 'Default Response') res.description = given ?? STATUS_TEXT[status] ?? `HTTP ${status}`;
    if (code === 429 || (code === 503 && JSON.stringify(res.content ?? {}).includes('DatabaseUnavailable'))) {
      res.headers = { ...recordOf(res.headers), 'Retry-After': { $ref: '#/components/headers/RetryAfter' } };
    }
    // Token failures carry WWW-Authenticate; sign-in's invalid_credentials does not.
    if (code === 401 && (bearer || JSON.stringify(res.content ?? {}).includes('TokenNotValid'))) {
      res.headers = { ...recordOf(res.headers), 'WWW-Authenticate': { $ref: '#/components/headers/WwwAuthenticate' } };
    }
    res.headers = { ...recordOf(res.headers), [CORS_HEADER]: { $ref: `#/components/headers/${CORS_HEADER}` } };
    if (code === 204 || code === 304) delete res.content;
    if (code === 304) res.headers = { ...recordOf(res.headers), ETag: { $ref: '#/components/headers/ETag' } };
    if (code === 200 && res.content && responses[304]) res.headers = { ...recordOf(res.headers), ETag: { $ref: '#/components/headers/ETag' } };
    if (code >= 200 && code < 300 && reg.binary) {
      res.content = Object.fromEntries(reg.binary.map((type) => [type, { schema: { type: 'string', format: 'binary' } }]));
      res.headers = { ...recordOf(res.headers), 'Content-Disposition': { $ref: '#/components/headers/ContentDisposition' } };
    }
    if (code === 200 && reg.eventStream !== undefined) {
      res.content = { 'text/event-stream': { schema: { type: 'string', maxLength: 1_000_000, description: 'Server-sent events (one `event:` / `data:` block per event, `:` comment lines as heartbeats)' }, example: reg.eventStream } };
    }
    if (code === 200 && reg.alsoBinary) {
      res.content = { ...recordOf(res.content), ...Object.fromEntries(reg.alsoBinary.map((type) => [type, { schema: { type: 'string', format: 'binary' } }])) };
      res.headers = { ...recordOf(res.headers), 'Content-Disposition': { $ref: '#/components/headers/ContentDisposition' } };
    }
    const media = recordOf(recordOf(res.content)?.['application/json']);
    if (media?.schema && code >= 200 && code < 300) {
      const first2xx = Object.keys(responses).find((s) => s.startsWith('2'));
      media.example = status === first2xx && reg.responseExample !== undefined ? reg.responseExample : sample(doc, media.schema);
    }
  }
  // Statuses in ascending order, as readers expect.
  op.responses = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b)));
}

// ---------------------------------------------------------------------------------------------
// Two published documents: the patient document holds the patient surface only; the
// staff document holds the staff desks (clinician, back office with the test clock, pharmacy), the
// payment provider's webhook and the health probes. Both are cut from the one finished document
// @fastify/swagger builds, so they cannot disagree on a shared schema.

export type Audience = 'patient' | 'staff';

/** Paths that are not the patient surface: staff desks, provider webhooks, operations probes. */
const STAFF_PATHS = [/^\/v1\/clinician\//, /^\/v1\/backoffice\//, /^\/v1\/pharmacy\//, /^\/v1\/webhooks\//, /^\/healthz$/, /^\/readyz$/];

/** Which published document a path (as documented, `{id}` templates) belongs to. */
export function audienceOf(path: string): Audience {
  return STAFF_PATHS.some((re) => re.test(path)) ? 'staff' : 'patient';
}

/** Where each document is served (GET, public, ETag and compression alike). */
export const DOCUMENT_PATHS: Record<Audience, string> = { patient: '/v1/schema/', staff: '/v1/schema/staff/' };

const AUDIENCE_INFO: Record<Audience, { title: string; description: string; internal: boolean }> = {
  patient: {
    title: DOCUMENT_TITLE,
    description:
      'The patient-facing API of a European telemedicine service. Sign in with `POST /v1/users/token/` (send `X-Brand-Slug`), then send `Authorization: Bearer <access>`. Errors: a client branches on `code` or `error_name`, never on the prose. Staff and operations endpoints are in a separate document (`GET /v1/schema/staff/`). Design decisions for what the specification leaves open are in docs/.',
    internal: false,
  },
  staff: {
    title: `${SERVICE_NAME} staff and operations API`,
    description:
      'The staff and operations surface of the Patient Treatment Service: the clinician desk (`/v1/clinician/`, doctors), the back office with the test clock (`/v1/backoffice/`, back-office admins), the pharmacy desk (`/v1/pharmacy/`, pharmacists), the payment provider webhook and the health probes. Staff sign in like patients (`POST /v1/users/token/`, in the patient document) and send `Authorization: Bearer <access>`; an account without the role answers 403 `permission_denied`.',
    internal: true,
  },
};

/** The published document of one audience, cut from the finished document (which is not changed). */
export function documentFor(full: Json, audience: Audience): Json {
  const doc = structuredClone(full);
  doc.paths = Object.fromEntries(Object.entries(recordOf(doc.paths) ?? {}).filter(([path]) => audienceOf(path) === audience));
  const { title, description, internal } = AUDIENCE_INFO[audience];
  doc.info = { ...recordOf(doc.info), title, description };
  doc.servers = (isArray(doc.servers) ? doc.servers : []).map((server) => ({ ...recordOf(server), 'x-internal': internal }));
  const used = new Set<unknown>();
  for (const item of Object.values(recordOf(doc.paths) ?? {})) {
    for (const op of Object.values(recordOf(item) ?? {})) {
      const tags = recordOf(op)?.tags;
      if (isArray(tags)) tags.forEach((tag) => used.add(tag));
    }
  }
  if (isArray(doc.tags)) doc.tags = doc.tags.filter((tag) => used.has(recordOf(tag)?.name));
  pruneUnreferencedSchemas(doc);
  return doc;
}

/** Both published documents as one (paths and components of each): the web app's typed client. */
export function mergeDocuments(patient: Json, staff: Json): Json {
  const merged = structuredClone(patient);
  merged.paths = { ...recordOf(merged.paths), ...recordOf(staff.paths) };
  const components = ensureRecord(merged, 'components');
  for (const [kind, entries] of Object.entries(recordOf(staff.components) ?? {})) components[kind] = { ...recordOf(entries), ...recordOf(components[kind]) };
  const tags = [...(isArray(patient.tags) ? patient.tags : []), ...(isArray(staff.tags) ? staff.tags : [])];
  merged.tags = tags.filter((tag, i) => tags.findIndex((t) => recordOf(t)?.name === recordOf(tag)?.name) === i);
  return merged;
}

/**
 * Removes the components no operation reaches: schemas (zod emits an `...Input` twin of each), and
 * the parameters and headers of a document cut for one audience.
 */
function pruneUnreferencedSchemas(doc: Json) {
  const components = recordOf(doc.components);
  if (!components) return;
  const kinds = ['schemas', 'parameters', 'headers'];
  const reached = new Set<string>();
  const visit = (node: unknown) => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!isRecord(node)) return;
    for (const [k, v] of Object.entries(node)) {
      const match = k === '$ref' && typeof v === 'string' ? /^#\/components\/(schemas|parameters|headers)\/(.+)$/.exec(v) : null;
      if (match) {
        const [, kind = '', name = ''] = match;
        if (!reached.has(`${kind}/${name}`)) {
          reached.add(`${kind}/${name}`);
          visit(recordOf(components[kind])?.[name]);
        }
      } else visit(v);
    }
  };
  visit(doc.paths);
  for (const kind of kinds) {
    const entries = recordOf(components[kind]);
    if (entries) for (const name of Object.keys(entries)) if (!reached.has(`${kind}/${name}`)) delete entries[name];
  }
}

// ---------------------------------------------------------------------------------------------
// Examples generated from a schema (used where the registry or the schema's own `examples` give
// none). test/openapi.test.ts validates every example against its schema.

const UUID = '3fa85f64-5717-4562-b3fc-2c963f66afa6';
const STRING_CANDIDATES = ['2026-03-02T09:30:00Z', '2026-03-02T09:30:00+00:00', '2026-03-02', '08:00', 'DEU', 'DE', 'en', '123456', 'ABC123', 'example'];

/** Follows `$ref`s (at most 20) to the schema they name; {} when there is none. */
function resolve(doc: Json, schema: unknown): Json {
  let s = schema;
  for (let i = 0; i < 20; i++) {
    const target = recordOf(s)?.$ref;
    if (typeof target !== 'string' || !target) break;
    s = target
      .split('/')
      .slice(1)
      .reduce<unknown>((o, k) => recordOf(o)?.[k.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
  }
  return recordOf(s) ?? {};
}

export function sample(doc: Json, schema: unknown, depth = 0): unknown {
  const s = resolve(doc, schema);
  if (depth > 12) return null;
  const { examples, enum: values, allOf } = s;
  if (isArray(examples) && examples.length) return examples[0];
  if (s.example !== undefined) return s.example;
  if (s.const !== undefined) return s.const;
  if (s.default !== undefined) return s.default;
  if (isArray(values) && values.length) return values.find((e) => e !== null) ?? values[0];
  const variants = s.anyOf ?? s.oneOf;
  if (isArray(variants) && variants.length) {
    const pick = variants.find((v) => resolve(doc, v).type !== 'null') ?? variants[0];
    return sample(doc, pick, depth + 1);
  }
  if (isArray(allOf) && allOf.length) {
    const merged: Json = {};
    for (const part of allOf.map((v) => sample(doc, v, depth + 1))) Object.assign(merged, part);
    return merged;
  }
  const declared = s.type;
  const type = isArray(declared) ? (declared.find((t) => t !== 'null') ?? 'null') : declared;
  switch (type) {
    case 'object':
    case undefined: {
      if (!s.properties && type === undefined) return s.items ? [] : null;
      const out: Json = {};
      for (const [k, v] of Object.entries(recordOf(s.properties) ?? {})) out[k] = sample(doc, v, depth + 1);
      return out;
    }
    case 'array': {
      const n = Math.max(1, numberOf(s.minItems) ?? 0);
      const item = s.items ? sample(doc, s.items, depth + 1) : 'example';
      return s.uniqueItems ? [item] : Array.from({ length: n }, () => item);
    }
    case 'string':
      return sampleString(s);
    case 'integer':
    case 'number': {
      const minimum = numberOf(s.minimum);
      const exclusiveMinimum = numberOf(s.exclusiveMinimum);
      const maximum = numberOf(s.maximum);
      let n = minimum ?? (exclusiveMinimum !== undefined ? exclusiveMinimum + 1 : 1);
      if (maximum !== undefined && n > maximum) n = maximum;
      return type === 'integer' ? Math.ceil(n) : n;
    }
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return null;
  }
}

function sampleString(s: Json): string {
  switch (s.format) {
    case 'uuid':
      return UUID;
    case 'date-time':
      return '2026-03-02T09:30:00Z';
    case 'date':
      return '2026-03-02';
    case 'email':
      return 'ada@example.org';
    case 'uri':
    case 'url':
      return 'https://api.example.org/v1/';
    case 'binary':
      return '';
  }
  const pattern = typeof s.pattern === 'string' && s.pattern ? new RegExp(s.pattern, 'u') : undefined;
  const minLength = numberOf(s.minLength) ?? 0;
  const maxLength = numberOf(s.maxLength) ?? Infinity;
  const fits = (v: string) => (!pattern || pattern.test(v)) && v.length >= minLength && v.length <= maxLength;
  const found = STRING_CANDIDATES.find(fits);
  if (found) return found;
  return 'x'.repeat(Math.max(1, numberOf(s.minLength) ?? 1));
}

// ---------------------------------------------------------------------------------------------
// Registration: the document, the interactive docs and GET /v1/schema/.

const LOGO_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="420" height="40" viewBox="0 0 420 40"><rect width="40" height="40" rx="8" fill="#0b7a75"/><path d="M17 9h6v8h8v6h-8v8h-6v-8H9v-6h8z" fill="#fff"/><text x="52" y="27" font-family="Helvetica, Arial, sans-serif" font-size="20" font-weight="600" fill="#fff">${SERVICE_NAME}</text></svg>`;
const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 40 40"><rect width="40" height="40" rx="8" fill="#0b7a75"/><path d="M17 9h6v8h8v6h-8v8h-6v-8H9v-6h8z" fill="#fff"/></svg>`;
// The top bar's definition picker switches between the two published documents.
const THEME_CSS = '.swagger-ui .topbar { background-color: #0b5f5b; }';

export interface ApiDocumentOptions {
  baseUrl: string;
  brand: string;
  tags: { name: string; description: string }[];
}

/**
 * Registers @fastify/swagger (with finishDocument: `app.swagger()` is the whole finished document,
 * never served as it is), the docs page at /v1/docs/ (both published documents) and the two
 * published documents: GET /v1/schema/ (patient) and GET /v1/schema/staff/ (staff and operations).
 */
export async function registerApiDocument(app: FastifyInstance, options: ApiDocumentOptions): Promise<void> {
  // Installed with @fastify/swagger so that both see the same routes: those registered from here on.
  const operations = collectOperations(app);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: DOCUMENT_TITLE,
        version: '1.0.0',
        description: AUDIENCE_INFO.patient.description,
        license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      },
      servers: [{ url: options.baseUrl }],
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'JWT',
            description:
              'Access token from /v1/users/token/: a JWS checked as RFC8725 (JWT best current practices) asks: one algorithm (HS256) allowed, a required `kid` naming a known key, issuer, audience, expiry and the type and shape of every claim verified before any use.',
          },
          jwtAuth: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'JWT',
            description:
              'The same access token under the name clients generated against the original API use: sent as `Authorization: Bearer <access>` and checked exactly as bearerAuth, following RFC8725 (JWT best current practices). Either scheme satisfies an operation.',
          },
        },
      },
      tags: options.tags,
    },
    transform: jsonSchemaTransform,
    // Schemas with .meta({ id }) become components/schemas entries that the $refs point to.
    // finishDocument mutates the document it is given.
    transformObject: (input) => {
      const document = jsonSchemaTransformObject(input);
      if (isRecord(document)) finishDocument(document, { brand: options.brand, operations });
      return document;
    },
  });
  await app.register(swaggerUi, {
    routePrefix: '/v1/docs',
    // A strict policy on every answer under /v1/docs/ (src/http/csp.ts; docs/hardening.md).
    staticCSP: docsPagePolicy(originOf(options.baseUrl)),
    logo: { type: 'image/svg+xml', content: LOGO_SVG, href: '/v1/docs/', target: '_self' },
    theme: {
      title: DOCUMENT_TITLE,
      css: [{ filename: 'theme.css', content: THEME_CSS }],
      favicon: [{ filename: 'favicon.svg', rel: 'icon', type: 'image/svg+xml', sizes: 'any', content: FAVICON_SVG }],
    },
    // The page offers the two published documents, the patient one first; its own /v1/docs/json
    // is the patient document too.
    transformSpecification: (spec) => documentFor(spec as Json, 'patient'),
    uiConfig: {
      deepLinking: true,
      displayOperationId: true,
      persistAuthorization: true,
      urls: [
        { url: DOCUMENT_PATHS.patient, name: AUDIENCE_INFO.patient.title },
        { url: DOCUMENT_PATHS.staff, name: AUDIENCE_INFO.staff.title },
      ],
    },
  });

  // Each published document is cut, serialised and compressed once per process.
  const served = new Map<Audience, { etag: string; identity: Buffer; gzip: Buffer; br: Buffer }>();
  const document = (audience: Audience) => {
    let doc = served.get(audience);
    if (!doc) {
      const identity = Buffer.from(JSON.stringify(documentFor(app.swagger() as unknown as Json, audience)));
      doc = {
        etag: `"${createHash('sha256').update(identity).digest('base64url').slice(0, 27)}"`,
        identity,
        gzip: gzipSync(identity, { level: 9 }),
        br: brotliCompressSync(identity, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11, [zlib.BROTLI_PARAM_SIZE_HINT]: identity.length } }),
      };
      served.set(audience, doc);
    }
    return doc;
  };

  for (const audience of ['patient', 'staff'] as const) {
    app.get(DOCUMENT_PATHS[audience], { schema: { hide: true } }, async (request: FastifyRequest, reply: FastifyReply) => {
      const doc = document(audience);
      reply.header('cache-control', 'public, max-age=60').header('etag', doc.etag).header('vary', 'Accept-Encoding');
      if (etagMatches(request.headers['if-none-match'], doc.etag)) return reply.code(304).send();
      const encoding = pickEncoding(request.headers['accept-encoding']);
      reply.type('application/json; charset=utf-8');
      if (encoding === 'identity') return reply.send(doc.identity);
      return reply.header('content-encoding', encoding).send(doc[encoding]);
    });
  }
}

function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((t) => {
    const tag = t.trim().replace(/^W\//, '');
    return tag === '*' || tag === etag;
  });
}

/** br, then gzip, then identity, honouring q-values (q=0 refuses). */
export function pickEncoding(header: string | string[] | undefined): 'br' | 'gzip' | 'identity' {
  const value = Array.isArray(header) ? header.join(',') : (header ?? '');
  const q = new Map<string, number>();
  for (const part of value.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const qp = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const weight = qp ? Number(qp.slice(2)) : 1;
    q.set(name, Number.isFinite(weight) ? weight : 0);
  }
  const weight = (name: string) => q.get(name) ?? (q.has('*') ? q.get('*')! : 0);
  const best = (['br', 'gzip'] as const).filter((e) => weight(e) > 0).sort((a, b) => weight(b) - weight(a))[0];
  return best ?? 'identity';
}
