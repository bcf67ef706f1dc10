// The registry of the API document's operations, generated from the routes: each route
// declares its documentation on itself, `config: { operation: {...} }` (src/http/operation.ts), and
// collectOperations() gathers them, keyed by `METHOD /path/{param}/` exactly as the document lists
// the operation, as the routes register. src/http/openapi.ts applies them to the document
// @fastify/swagger builds; test/openapi*.test.ts check that it matches what the service answers.
// A route of the document without a declaration stops the app at startup, so a new route cannot
// ship undocumented.
import type { FastifyInstance, RouteOptions } from 'fastify';
import { accessFor, type Access } from './access.ts';
import type { ErrorCode } from './error-catalogue.ts';
import type { OperationDoc } from './operation.ts';

export type { ErrorVariant, OperationDoc } from './operation.ts';

/** One operation of the document: its declared documentation and the access rule that guards it. */
export interface DocumentedOperation {
  doc: OperationDoc;
  access: Access;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The operations of the API document, collected from the routes (test/openapi.test.ts reads it). */
    apiOperations: ReadonlyMap<string, DocumentedOperation>;
  }
}

/** The document's path of a registered URL: `:param` becomes `{param}` (as @fastify/swagger writes it). */
export function documentPath(url: string): string {
  return url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/**
 * Collects the operations of every route registered after this call (call it where @fastify/swagger
 * is registered, so both see the same routes) and, when the app is ready, refuses to start if a
 * route the document shows declares none. Also decorates the app with the map (`apiOperations`).
 */
export function collectOperations(app: FastifyInstance): ReadonlyMap<string, DocumentedOperation> {
  const operations = new Map<string, DocumentedOperation>();
  const ids = new Map<string, string>();
  const undocumented: { key: string; route: RouteOptions }[] = [];
  app.decorate('apiOperations', operations);
  app.addHook('onRoute', (route: RouteOptions) => {
    for (const method of [route.method].flat()) {
      // Fastify adds a HEAD route for every GET; the document does not show them.
      if (method === 'HEAD') continue;
      const key = `${method} ${documentPath(route.url)}`;
      const declared = route.config?.operation;
      const doc = declared;
      if (!doc) {
        // Whether the document shows the route is known only when every onRoute hook has run (a
        // plugin's own hook may hide it), so this is checked when the app is ready.
        undocumented.push({ key, route });
        continue;
      }
      if (operations.has(key)) throw new Error(`${key} is documented twice.`);
      const other = ids.get(doc.id);
      if (other) throw new Error(`operationId ${doc.id} of ${key} is already used by ${other}.`);
      ids.set(doc.id, key);
      operations.set(key, { doc, access: accessFor(method, route.url, route.config?.access), });
    }
  });
  app.addHook('onReady', (done) => {
    const missing = undocumented.filter(({ route }) => !route.schema?.hide).map(({ key }) => key);
    done(missing.length > 0 ? new Error(`Routes of the API document without an operation declaration (config: { operation }, src/http/operation.ts): ${missing.join(', ')}`) : undefined);
  });
  return operations;
}

/** Extra properties some error bodies carry, by their code or error_name. */
export const ERROR_EXTRAS: Partial<Record<ErrorCode, Record<string, unknown>>> = {
  mfa_required: {
    mfa_token: { type: 'string', description: 'For `POST /v1/users/token/mfa/`: 5 minutes, single use, bound to this account' },
    methods: { type: 'array', items: { type: 'string', enum: ['totp', 'webauthn'] }, description: 'The second factors the account enrolled (`webauthn`: a passkey)' },
  },
  mfa_enrolment_required: {
    enrolment_token: { type: 'string', description: 'For `POST /v1/users/token/mfa/enrol/` and `.../enrol/confirm/` only: 15 minutes, single use' },
    methods: { type: 'array', items: { type: 'string', enum: ['totp', 'webauthn'] }, description: 'The factors that can be enrolled' },
  },
  REGISTRATION_RATE_LIMITED: { retry_after: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'Seconds to wait (also in `Retry-After`)' } },
  PROFILE_INCOMPLETE: { missing_fields: { type: 'array', items: { type: 'string' }, description: 'Profile fields to fill first' } },
  QUESTIONNAIRE_INCOMPLETE: { missing_answers: { type: 'array', items: { type: 'string' }, description: 'Question keys still unanswered' } },
  SUBMISSION_REQUIRED: { category: { type: 'string' } },
  SUBMISSION_NOT_ELIGIBLE: { category: { type: 'string' }, outcome: { type: 'string' } },
  PLAN_NOT_AVAILABLE: { category: { type: 'string' }, plan: { type: 'string' } },
  CONSULTATION_ALREADY_OPEN: { consultation_id: { type: 'string', format: 'uuid' } },
  SUBMISSION_ALREADY_USED: { consultation_id: { type: 'string', format: 'uuid' }, category: { type: 'string' } },
  renewal_answers_required: { missing_keys: { type: 'array', items: { type: 'string' } } },
  // null when the answers are fine but the treatment itself is excluded (docs/renewals.md).
  renewal_answer_ineligible: { question_key: { type: ['string', 'null'] } },
  invalid_treatment_variant: { treatment_id: { type: 'string' }, dosage: { type: ['string', 'null'] } },
  patient_choice_not_pending: { patient_choice_status: { type: ['string', 'null'] } },
};
