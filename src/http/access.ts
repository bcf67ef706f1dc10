// Who may call what, decided in one place and before anything else (deny by default).
//
// Every route gets an `onRequest` hook when it is registered, so authentication and the role check
// run before the body is parsed or validated: an anonymous caller learns nothing about a body
// schema, and a patient posting a bad body to a staff route is refused with 403, not 400.
//
// The rule, by scope:
// - public:           a route that declares it on itself, `config: { access: 'public' }` (sign-up,
//                     sign-in, the public questionnaire catalogue, the provider webhook, health), and
//                     the few routes that are not API operations, listed in PUBLIC_ROUTES below (the
//                     API document, provider pages, the connector's OAuth endpoints);
// - doctor:           everything under /v1/clinician/;
// - backoffice_admin: everything under /v1/backoffice/;
// - pharmacist:       everything under /v1/pharmacy/ (the pharmacy desk, docs/pharmacy.md);
// - user:             every other route (any signed-in, verified, active account).
// A route outside /v1/ that neither declares nor is listed refuses to register, and so does a route
// declaring 'public' under a staff prefix: nothing becomes public by accident.
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { Deps } from '../deps.ts';
import { notAuthenticated, permissionDenied } from './errors.ts';
import { bearerToken, verifyAccessToken } from './auth.ts';
// The `config.access` declaration on routes (FastifyContextConfig).
import type {} from './operation.ts';

export type Access = 'public' | 'user' | 'doctor' | 'backoffice_admin' | 'pharmacist';

/**
 * Routes anyone may call that are not operations of the API document (those declare `access:
 * 'public'` on themselves), as `METHOD path` (path as registered) or a `prefix*`.
 */
export const PUBLIC_ROUTES: readonly string[] = [
  // CORS preflight: a browser sends it without credentials, by design.
  'OPTIONS *',
  'GET /metrics', // its own rule: loopback callers, or the METRICS_TOKEN bearer (src/http/metrics.ts)
  'GET /v1/schema/',
  'GET /v1/schema/staff/', // the staff and operations document (src/http/openapi.ts)
  '* /v1/docs*',
  // The sandbox provider's hosted pages stand in for a payment provider's own site.
  '* /sandbox/*',
  // Where a payment provider sends the browser back after checkout (plain pages, no data).
  'GET /checkout/*',
  // The assistant connector checks its own OAuth tokens (src/modules/mcp, docs/mcp.md).
  '* /mcp',
  '* /oauth/*',
  'GET /.well-known/*',
];

function matches(rule: string, method: string, url: string): boolean {
  const [ruleMethod, rulePath] = rule.split(' ') as [string, string];
  if (ruleMethod !== '*' && ruleMethod !== method) return false;
  return rulePath.endsWith('*') ? url.startsWith(rulePath.slice(0, -1)) : url === rulePath;
}

/** The staff prefixes and the role each needs (a route under one can never be public). */
const STAFF_PREFIXES: readonly [string, Exclude<Access, 'public' | 'user'>][] = [
  ['/v1/clinician/', 'doctor'],
  ['/v1/backoffice/', 'backoffice_admin'],
  ['/v1/pharmacy/', 'pharmacist'],
];

/**
 * The access level of a route: its own declaration (`config.access`, only ever 'public'), then the
 * public list, then the staff prefixes, else signed-in. A public declaration under a staff prefix
 * is a mistake, refused rather than obeyed.
 */
export function accessFor(method: string, url: string, declared?: 'public'): Access {
  const staff = STAFF_PREFIXES.find(([prefix]) => url.startsWith(prefix));
  if (declared === 'public') {
    if (staff) throw new Error(`Route ${method} ${url} declares public access under ${staff[0]}: staff routes are never public (src/http/access.ts).`);
    return 'public';
  }
  if (PUBLIC_ROUTES.some((rule) => matches(rule, method, url))) return 'public';
  if (staff) return staff[1];
  if (url.startsWith('/v1/')) return 'user';
  throw new Error(`Route ${method} ${url} is outside /v1/, declares no access and is not listed in PUBLIC_ROUTES (src/http/access.ts): declare who may call it.`);
}

function guard(deps: Deps, access: Exclude<Access, 'public'>) {
  return async function accessControl(request: FastifyRequest, _reply: FastifyReply) {
    const token = bearerToken(request);
    if (!token) throw notAuthenticated();
    const user = await verifyAccessToken(deps, token);
    request.user = user;
    if (access === 'doctor' && !user.is_doctor) throw permissionDenied();
    if (access === 'backoffice_admin' && !user.is_backoffice_admin) throw permissionDenied();
    if (access === 'pharmacist' && !user.is_pharmacist) throw permissionDenied();
  };
}

/**
 * Installs the access rule on every route registered after this call (call it before the
 * modules). Returns the access level given to each route, for the tests that walk them all.
 */
export function installAccessControl(app: FastifyInstance, deps: Deps): Map<string, Access> {
  const levels = new Map<string, Access>();
  const guards = { user: guard(deps, 'user'), doctor: guard(deps, 'doctor'), backoffice_admin: guard(deps, 'backoffice_admin'), pharmacist: guard(deps, 'pharmacist') };
  app.decorateRequest('user', null);
  app.addHook('onRoute', (route: RouteOptions) => {
    // A HEAD route (Fastify adds one for every GET) has the access level of its GET: without this,
    // the HEAD got no guard and its handler refused even a valid token for want of a user.
    const registered = [route.method].flat();
    const methods = [...new Set(registered.map((m) => (m === 'HEAD' ? 'GET' : m)))];
    const declared = route.config?.access;
    const found = new Set(methods.map((method) => accessFor(method, route.url, declared)));
    if (found.size > 1) throw new Error(`Route ${route.url} mixes access levels across methods: register them separately.`);
    for (const method of registered) if (method !== 'HEAD') levels.set(`${method} ${route.url}`, accessFor(method, route.url, declared));
    const [access] = found;
    if (access === undefined || access === 'public') return;
    route.onRequest = [guards[access], ...[route.onRequest ?? []].flat()];
  });
  return levels;
}
