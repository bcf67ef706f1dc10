// The error catalogue: every failure a client can see is an ApiError carrying its HTTP status and
// the exact body shape of spec section 7. Clients branch on `code` / `error_name`, never on prose.
import { randomUUID } from 'node:crypto';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError, throttled } from '../lib/api-error.ts';
import { errorField } from '../lib/error-fields.ts';

export { ApiError, throttled };

export type FieldErrors = Record<string, string[]>;

// Shape: field-keyed object `{<field>: [<message>, ...]}` (no detail, no code).
export const fieldErrors = (errors: FieldErrors) => new ApiError(400, errors);

// Shape: `{detail}` for a missing record (another account's record is the same 404).
export const notFound = (detail = 'Not found.') => new ApiError(404, { detail });

// Shape: `{error, code}` for sign-in, registration, identity provider and messages.
export const errorCode = (status: number, code: string, error: string, extra: Record<string, unknown> = {}) =>
  new ApiError(status, { error, code, ...extra });

// Shape: `{error_name, ...}` for registration, verification and checkout refusals.
export const errorName = (status: number, error_name: string, message: string, extra: Record<string, unknown> = {}, headers?: Record<string, string>) =>
  new ApiError(status, { error_name, message, ...extra }, headers);

// Shape: `{code, ...extras}` for renewal options and confirmation.
export const coded = (status: number, code: string, extra: Record<string, unknown> = {}) => new ApiError(status, { code, ...extra });

// Shape: `{detail, code}` (permission, session checks, throttling).
export const detailCode = (status: number, code: string, detail: string, headers?: Record<string, string>) =>
  new ApiError(status, { detail, code }, headers);

export const permissionDenied = () =>
  detailCode(403, 'permission_denied', 'You do not have permission to perform this action.');

// Shape: `{detail, code, messages[]}` for token failures (SimpleJWT's body).
export const tokenNotValid = (message = 'Token is invalid or expired', tokenType: 'access' | 'refresh' = 'access') =>
  new ApiError(
    401,
    {
      detail: 'Given token not valid for any token type',
      code: 'token_not_valid',
      messages: [{ token_class: tokenType === 'access' ? 'AccessToken' : 'RefreshToken', token_type: tokenType, message }],
    },
    { 'www-authenticate': 'Bearer realm="api"' },
  );

export const notAuthenticated = () =>
  new ApiError(401, { detail: 'Authentication credentials were not provided.', code: 'not_authenticated' }, { 'www-authenticate': 'Bearer realm="api"' });

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
    if (err instanceof ApiError) {
      for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
      return reply.code(err.status).send(err.body);
    }
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
      return reply.code(500).send({ detail: 'A server error occurred.', code: 'server_error', error_id });
    }
    const status = err.statusCode ?? 500;
    if (err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' || errorField(err, 'type') === 'entity.parse.failed' || err instanceof SyntaxError) {
      return reply.code(400).send({ detail: 'JSON parse error: the request body is not valid JSON.' });
    }
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || status === 413) {
      return reply.code(413).send({ detail: 'Request body is too large.', code: 'payload_too_large' });
    }
    if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' || status === 415) {
      return reply.code(415).send({ detail: 'Unsupported media type in request.', code: 'unsupported_media_type' });
    }
    if (status === 429) {
      return reply.code(429).send({ detail: 'Request was throttled.', code: 'throttled' });
    }
    if (status >= 400 && status < 500) {
      return reply.code(status).send({ detail: err.message || 'Bad request.', code: 'bad_request' });
    }
    const error_id = randomUUID();
    request.log.error({ err, error_id }, 'unhandled error');
    return reply.code(500).send({ detail: 'A server error occurred.', code: 'server_error', error_id });
  });
}
