// One place per operation: what the OpenAPI document says about an operation beyond its
// zod schemas is declared on the route itself, `config: { operation: {...} }`, and a public route
// says so there too, `config: { access: 'public', ... }`. src/http/openapi-registry.ts collects the
// declarations as the routes register; src/http/openapi.ts applies them to the document and
// src/http/access.ts installs the access rule. This file holds the types and the fragments several
// modules' routes share (docs/api-document.md).
import type { CodeOfShape } from './error-catalogue.ts';

/**
 * One error body shape of a status:
 * - `fields`: the field-keyed validation object `{<field>: [<message>, ...]}`
 * - `detail`: `{detail}` (not found)
 * - `empty`: `{}`
 * - `token`: `{detail, code: "token_not_valid", messages}` (a refresh token refused)
 * - `{ error: [...] }`: `{error, code}` with these codes (each variant takes only codes of its shape in
 *   src/http/error-catalogue.ts, so a code listed under the wrong shape does not compile)
 * - `{ error_name: [...] }`: `{error_name, message, ...}` with these names
 * - `{ detail_code: [...] }`: `{detail, code}` with these codes
 * - `{ code: [...] }`: `{code, ...extras}` with these codes
 */
export type ErrorVariant =
  | 'fields'
  | 'detail'
  | 'empty'
  | 'token'
  | { error: CodeOfShape<'error_code'>[] }
  | { error_name: CodeOfShape<'error_name'>[] }
  | { detail_code: CodeOfShape<'detail_code'>[] }
  | { code: CodeOfShape<'code'>[] };

export interface OperationDoc {
  /** Stable camelCase operationId (generated clients name their functions after it). */
  id: string;
  /**
   * The route-specific error answers per status (replacing the route's declared shape for that
   * status). `null` removes a status the route declares but never answers. Errors every operation
   * of a kind shares (401, 403 on staff routes, malformed JSON, 413, 415, 500) are added by
   * openapi.ts and need not be listed.
   */
  errors?: Record<number, ErrorVariant[] | null>;
  /** Descriptions of responses (else the generic text of the status). */
  descriptions?: Record<number, string>;
  /** Needs the `X-Brand-Slug` header. */
  brand?: true;
  /** The body is read raw (webhook): no JSON parse error, no 415. */
  rawBody?: true;
  /** Media types of a binary 200 answer instead of JSON. */
  binary?: string[];
  /** The 200 answer is a stream of server-sent events (text/event-stream): this example of it. */
  eventStream?: string;
  /** Media types of a binary 200 answer besides JSON (an operation that answers either). */
  alsoBinary?: string[];
  /** The body is multipart/form-data with these parts (read in the handler, so no JSON schema describes it). */
  multipartForm?: { properties: Record<string, Record<string, unknown>>; required: string[]; encoding?: Record<string, { contentType: string }> };
  /** Hand-written request body example (else one is generated from the schema). */
  requestExample?: unknown;
  /** Hand-written example of the main (2xx) answer (else generated from the schema). */
  responseExample?: unknown;
}


declare module 'fastify' {
  interface FastifyContextConfig {
    /** The operation's documentation (operationId, errors, examples): required on every route of the API document. */
    operation?: OperationDoc;
    /**
     * `'public'`: anyone may call the route. Without it a route under /v1/ takes the level of its
     * prefix (src/http/access.ts); a staff prefix refuses `'public'` at registration.
     */
    access?: 'public';
  }
}

/** The field-keyed validation body (400). */
export const fields = 'fields' as const;
/** The `{detail}` not-found body (404). */
export const notFoundDetail = 'detail' as const;
/** A missing or wrong `X-Brand-Slug` on the unauthenticated account routes. */
export const invalidBrand = { error: ['invalid_brand'] } satisfies ErrorVariant;
/** A desk decision on a record that is no longer in a state it applies to. */
export const transitionConflict = { 409: [{ detail_code: ['invalid_status_transition'] }] } satisfies OperationDoc['errors'];
/** A checkout session id of the provider that names no session of this account. */
export const session = (provider: 'sandbox' | 'stripe') => ({ 404: [{ detail_code: [`${provider}_session_not_found` as const] }] }) satisfies OperationDoc['errors'];

/** Example tokens of the account answers (not real keys: the signature part is a placeholder). */
export const EXAMPLE_ACCESS =
  'eyJhbGciOiJIUzI1NiJ9.eyJ0b2tlbl90eXBlIjoiYWNjZXNzIiwidXNlcl9pZCI6IjNmYTg1ZjY0LTU3MTctNDU2Mi1iM2ZjLTJjOTYzZjY2YWZhNiJ9.c2lnbmF0dXJl';
export const EXAMPLE_REFRESH =
  'eyJhbGciOiJIUzI1NiJ9.eyJ0b2tlbl90eXBlIjoicmVmcmVzaCIsInVzZXJfaWQiOiIzZmE4NWY2NC01NzE3LTQ1NjItYjNmYy0yYzk2M2Y2NmFmYTYifQ.c2lnbmF0dXJl';
export const tokenPair = { access: EXAMPLE_ACCESS, refresh: EXAMPLE_REFRESH, is_doctor: false, is_backoffice_admin: false, is_marketer: false, is_pharmacist: false };
export const credentials = { email: 'ada@example.org', password: 'Quiet-Harbour-Lantern-42' };
