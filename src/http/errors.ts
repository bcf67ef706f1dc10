// The error catalogue: every failure a client can see is an ApiError carrying its HTTP status and
// the exact body shape of spec section 7. Clients branch on `code` / `error_name`, never on prose.
import { randomUUID } from 'node:crypto';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError, throttled } from '../lib/api-error.ts';
import { isDatabaseUnavailable } from '../db/index.ts';
import { errorField, errorSummary } from '../lib/error-fields.ts';
import { fail } from './error-catalogue.ts';

export { ApiError, throttled };

export type FieldErrors = Record<string, string[]>;

// Shape: field-keyed object `{<field>: [<message>, ...]}` (no detail, no code).
export const fieldErrors = (errors: FieldErrors) => new ApiError(400, errors);

// Shape: `{detail}` for a missing record (another account's record is the same 404).
export const notFound = (detail = 'Not found.') => new ApiError(404, { detail });

// Refusals with a code: the catalogue (error-catalogue.ts) gives each code its status and shape.
export { ERROR_CATALOGUE, fail, type CodeOfShape, type ErrorCode, type ErrorEntry, type ErrorShape, type FailDetails } from './error-catalogue.ts';

export const permissionDenied = () => fail('permission_denied');

// Shape: `{detail, code, messages[]}` for token failures (SimpleJWT's body).
export const tokenNotValid = (message = 'Token is invalid or expired', tokenType: 'access' | 'refresh' = 'access') =>
  fail('token_not_valid', { extra: { messages: [{ token_class: tokenType === 'access' ? 'AccessToken' : 'RefreshToken', token_type: tokenType, message }] } });

export const notAuthenticated = () => fail('not_authenticated');

/** Sends a catalogued answer from the error handler (same status, body and headers as thrown). */
const sendFail = (reply: FastifyReply, err: ApiError) => {
  for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
  return reply.code(err.status).send(err.body);
};

// Response schemas of the shapes, for the OpenAPI document.
export const FieldErrorsSchema = z.record(z.string(), z.array(z.string())).meta({ description: 'Field-keyed validation errors' });
export const DetailSchema = z.object({ detail: z.string() });
export const DetailCodeSchema = z.object({ detail: z.string(), code: z.string() });
export const ErrorCodeSchema = z.object({ error: z.string(), code: z.string() }).catchall(z.unknown());
export const ErrorNameSchema = z.object({ error_name: z.string(), message: z.string() }).catchall(z.unknown());
export const CodeSchema = z.object({ code: z.string() }).catchall(z.unknown());
export const TokenErrorSchema = z.object({
  detail: z.string(),
  code: z.string(),
  messages: z.array(z.object({ token_class: z.string(), token_type: z.string(), message: z.string() })).optional(),
});

/** The 401 answers of a bearer route: a bad token, or none. */
export const UnauthorisedResponses = { 401: TokenErrorSchema.or(DetailCodeSchema) };

// DRF's messages for a value of the wrong type, for every schema at once (a schema's own message
// still wins). zod hands the error map the input, which its issues no longer carry.
const TYPE_MESSAGES: Record<string, string> = {
  string: 'Not a valid string.',
  number: 'A valid number is required.',
  int: 'A valid integer is required.',
  boolean: 'Must be a valid boolean.',
  array: 'Expected a list of items.',
  object: 'Invalid data. Expected a dictionary.',
};
z.config({
  customError: (issue) => {
    if (issue.code !== 'invalid_type') return undefined;
    if (issue.input === undefined) return 'This field is required.';
    if (issue.input === null) return 'This field may not be null.';
    return TYPE_MESSAGES[issue.expected] ?? 'Invalid value.';
  },
});

/** What is read of a validation issue (zod's own, or the zod provider's validation entry). */
export interface IssueLike {
  code?: unknown;
  path?: unknown;
  keys?: unknown;
  message?: unknown;
}

/** Turns zod issues into a field-keyed object; root-level problems go under non_field_errors. */
function zodIssuesToFields(issues: ReadonlyArray<IssueLike>): FieldErrors {
  // No prototype: body keys such as "constructor" or "__proto__" are plain field names here.
  const out = Object.create(null) as FieldErrors;
  for (const issue of issues) {
    const path: string[] = Array.isArray(issue.path) ? issue.path.map(String) : [];
    const keys: string[] =
      issue.code === 'unrecognized_keys' && Array.isArray(issue.keys) ? issue.keys.map((k) => [...path, String(k)].join('.')) : [path.join('.') || 'non_field_errors'];
    for (const key of keys) {
      const message = issue.code === 'unrecognized_keys' ? 'Unknown field.' : String(issue.message);
      const list = (out[key] ??= []);
      if (!list.includes(message)) list.push(message);
    }
  }
  return out;
}

export function installErrorHandling(app: FastifyInstance) {
  app.setNotFoundHandler((_req, reply) => {
    reply.code(404).send({ detail: 'Not found.' });
  });

  app.setErrorHandler((err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    // Error bodies are built here from the catalogue, never from records, so they are serialised as
    // they are: a route's response schema must not turn a client error into a 500.
    reply.serializer(JSON.stringify);
    // A custom serializer leaves the content type unset: every error body is JSON.
    reply.type('application/json; charset=utf-8');
    if (err instanceof ApiError) return sendFail(reply, err);
    if (hasZodFastifySchemaValidationErrors(err)) {
      // fastify-type-provider-zod 7 puts the issue's fields under params, its code in keyword, its
      // message in message and its path in instancePath.
      const issues = err.validation.map((v): IssueLike => {
        const issue = v.params.issue;
        if (typeof issue === 'object' && issue !== null) return { ...issue };
        return { ...v.params, code: v.keyword, message: v.message, path: v.instancePath.split('/').filter(Boolean) };
      });
      // Path and query parameters: a malformed id in a path is simply not found.
      if (err.validationContext === 'params') return reply.code(404).send({ detail: 'Not found.' });
      return reply.code(400).send(zodIssuesToFields(issues));
    }
    if (isResponseSerializationError(err)) {
      const error_id = randomUUID();
      request.log.error({ err, error_id, issues: err.cause.issues.map((i) => ({ path: i.path, code: i.code })) }, 'response did not match its schema');
      return sendFail(reply, fail('server_error', { extra: { error_id } }));
    }
    // A lost or slow database is the server's state, not the request's fault, and passes: 503 with
    // Retry-After, never a 500 (src/db/index.ts says which failures these are).
    if (isDatabaseUnavailable(err)) {
      request.log.warn({ err: errorSummary(err) }, 'database unavailable');
      return sendFail(reply, fail('database_unavailable'));
    }
    const status = err.statusCode ?? 500;
    if (err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' || errorField(err, 'type') === 'entity.parse.failed' || err instanceof SyntaxError) {
      return reply.code(400).send({ detail: 'JSON parse error: the request body is not valid JSON.' });
    }
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || status === 413) {
      return sendFail(reply, fail('payload_too_large'));
    }
    if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' || status === 415) {
      return sendFail(reply, fail('unsupported_media_type'));
    }
    if (status === 429) {
      return sendFail(reply, fail('throttled', { message: 'Request was throttled.' }));
    }
    if (status >= 400 && status < 500) {
      // Not catalogued: the status is the failing plugin's own, only the shape is fixed.
      return reply.code(status).send({ detail: err.message || 'Bad request.', code: 'bad_request' });
    }
    const error_id = randomUUID();
    request.log.error({ err, error_id }, 'unhandled error');
    return sendFail(reply, fail('server_error', { extra: { error_id } }));
  });
}
