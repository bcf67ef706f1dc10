// Request budgets attached to routes in one place. Each entry names an operation as it is
// registered (`METHOD /path/:param/`) and the budgets a request to it consumes, per signed-in account
// and/or per client address (an IPv6 address counts for its /64: src/lib/rate-limit.ts). Over a
// budget the request answers 429 `{detail, code: "throttled"}` with `Retry-After`, before its body is
// validated and before an Idempotency-Key is claimed (a throttled request stores no answer, so the
// retry after `Retry-After` runs for real). The OpenAPI document declares 429 on exactly these
// operations, from this table (src/http/openapi.ts), so the two cannot drift.
//
// The limits are far above what a patient does by hand (docs/rate-limits.md gives the reasoning for
// each); they stop scripts, not people. Operators can change any of them with ROUTE_BUDGETS
// (`name=points/seconds,...`, see src/config.ts), and the tests use that to reach them quickly.
// Budgets that depend on the outcome (failed sign-ins, wrong codes) stay in their services.
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import type { Deps } from '../deps.ts';
import { DetailCodeSchema } from './errors.ts';

export interface RouteBudget {
  /** The counter's name (a Redis key part; also the ROUTE_BUDGETS override key). */
  name: string;
  /** Keyed by the signed-in account or by the client address. */
  per: 'account' | 'address';
  points: number;
  seconds: number;
  /** Only requests with a multipart body (file uploads) count. */
  multipartOnly?: true;
  /** Counted after validation: a request refused for its input (a bad query value) costs nothing. */
  validInputOnly?: true;
}

const HOUR = 3600;
const QUARTER = 15 * 60;

/** The budgeted operations, keyed `METHOD /path` as registered. The reasons are in docs/rate-limits.md. */
export const ROUTE_BUDGETS: Readonly<Record<string, readonly RouteBudget[]>> = {
  'POST /v1/users/google-login/': [{ name: 'google-signin-ip', per: 'address', points: 60, seconds: QUARTER }],
  'POST /v1/users/reset-password/': [{ name: 'reset-password-ip', per: 'address', points: 30, seconds: HOUR }],
  'POST /v1/users/token/refresh/': [{ name: 'token-refresh-ip', per: 'address', points: 1200, seconds: QUARTER }],
  'POST /v1/users/conversations/:id/messages/': [
    { name: 'messages-account', per: 'account', points: 120, seconds: HOUR },
    { name: 'messages-ip', per: 'address', points: 600, seconds: HOUR },
    { name: 'uploads-account', per: 'account', points: 30, seconds: HOUR, multipartOnly: true },
    { name: 'uploads-ip', per: 'address', points: 150, seconds: HOUR, multipartOnly: true },
  ],
  // Clinical photos: one budget for both upload routes (each photo is decoded and re-encoded).
  'POST /v1/users/questionnaires/:slug/photos/': [
    { name: 'photos-account', per: 'account', points: 60, seconds: HOUR },
    { name: 'photos-ip', per: 'address', points: 300, seconds: HOUR },
  ],
  'POST /v1/users/consultations/:id/images/': [
    { name: 'photos-account', per: 'account', points: 60, seconds: HOUR },
    { name: 'photos-ip', per: 'address', points: 300, seconds: HOUR },
  ],
  'POST /v1/users/checkout/': [
    { name: 'checkout-account', per: 'account', points: 30, seconds: HOUR },
    { name: 'checkout-ip', per: 'address', points: 150, seconds: HOUR },
  ],
  // The public cancellation (§ 312k BGB): anyone may ask; each ask may mail an account.
  'POST /v1/public/cancel/': [{ name: 'cancel-request-ip', per: 'address', points: 10, seconds: HOUR }],
  'POST /v1/prescriptions/verify/': [{ name: 'prescription-verify-ip', per: 'address', points: 300, seconds: HOUR }],
  'GET /v1/users/me/export/': [
    { name: 'data-export', per: 'account', points: 5, seconds: HOUR, validInputOnly: true },
    { name: 'data-export-ip', per: 'address', points: 25, seconds: HOUR, validInputOnly: true },
  ],
};

/** The table key of an OpenAPI operation (`{param}` path segments as `:param`). */
export const budgetKey = (method: string, path: string) => `${method.toUpperCase()} ${path.replace(/\{([^}]+)\}/g, ':$1')}`;

/** The budgets of an operation after the operator's overrides. */
export function budgetsOf(key: string, overrides: ReadonlyMap<string, { points: number; seconds: number }> = new Map()): RouteBudget[] {
  return (ROUTE_BUDGETS[key] ?? []).map((b) => ({ ...b, ...overrides.get(b.name) }));
}

/**
 * Installs the budgets on every route registered after this call (call it before the modules and
 * after the access control, whose `onRequest` guard sets `request.user` first).
 */
export function installRouteBudgets(app: FastifyInstance, deps: Deps): void {
  const overrides = deps.config.ROUTE_BUDGETS;
  for (const name of overrides.keys()) {
    if (!Object.values(ROUTE_BUDGETS).some((list) => list.some((b) => b.name === name))) {
      throw new Error(`ROUTE_BUDGETS names an unknown budget "${name}" (src/http/budgets.ts lists them)`);
    }
  }
  app.addHook('onRoute', (route: RouteOptions) => {
    const methods = [route.method].flat();
    const key = methods.map((m) => `${m} ${route.url}`).find((k) => ROUTE_BUDGETS[k]);
    if (!key) return;
    const budgets = budgetsOf(key, overrides).map((b) => ({ ...b, counter: deps.limiters.budget(b.name, b.points, b.seconds) }));
    const schema = (route.schema ??= {});
    const response = (schema.response ??= {}) as Record<number, unknown>;
    response[429] ??= DetailCodeSchema;
    const consumeBudgets = (afterValidation: boolean) => async (request: FastifyRequest) => {
      const multipart = /^multipart\//i.test(request.headers['content-type'] ?? '');
      for (const b of budgets) {
        if (b.multipartOnly && !multipart) continue;
        if (Boolean(b.validInputOnly) !== afterValidation) continue;
        const subject = b.per === 'account' ? request.user?.id : request.ip;
        // A public route has no account: its budgets are per address only (the table says so).
        if (subject) await b.counter.consume(subject);
      }
    };
    if (budgets.some((b) => !b.validInputOnly)) route.preValidation = [consumeBudgets(false), ...[route.preValidation ?? []].flat()];
    if (budgets.some((b) => b.validInputOnly)) route.preHandler = [consumeBudgets(true), ...[route.preHandler ?? []].flat()];
  });
}
