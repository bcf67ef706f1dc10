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
// - doctor:           everything under /v1/clinician/ (permission clinician:desk);
// - backoffice_admin: everything under /v1/backoffice/ (permission backoffice:admin);
// - pharmacist:       everything under /v1/pharmacy/ (permission pharmacy:desk; docs/pharmacy.md);
// Roles grant permissions through one table, ROLE_PERMISSIONS below (requirePermission checks it).
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

/** The staff roles an account can hold, each a flag on the account (users.is_<role>). */
export type Role = 'doctor' | 'backoffice_admin' | 'marketer' | 'pharmacist';
/** What a staff member may do: each staff desk (route prefix below) needs one. */
export type Permission = 'clinician:desk' | 'backoffice:admin' | 'pharmacy:desk';
/** An account's role flags, as the token check (AuthUser) and the users row carry them. */
export type RoleFlags = { readonly [R in Role as `is_${R}`]: boolean };

/**
 * The one table of who may do what: the permissions each role grants. A new role is a row here
 * (and its flag on the account); a marketer is staff (a second factor, no patient-only actions) but
 * has no desk yet.
 */
export const ROLE_PERMISSIONS: { readonly [R in Role]: readonly Permission[] } = {
  doctor: ['clinician:desk'],
  backoffice_admin: ['backoffice:admin'],
  marketer: [],
  pharmacist: ['pharmacy:desk'],
};

const ROLES = Object.keys(ROLE_PERMISSIONS) as Role[];

/** The staff roles of an account. */
export const rolesOf = (u: RoleFlags): Role[] => ROLES.filter((r) => u[`is_${r}`]);

/** Whether an account holds any staff role (then it needs the second factor STAFF_MFA asks, and patient-only actions refuse it). */
export const isStaff = (u: RoleFlags): boolean => rolesOf(u).length > 0;

export const hasPermission = (u: RoleFlags, permission: Permission): boolean => rolesOf(u).some((r) => ROLE_PERMISSIONS[r].includes(permission));

/** Refuses (403 permission_denied) an account none of whose roles grants the permission. */
export function requirePermission(u: RoleFlags, permission: Permission): void {
  if (!hasPermission(u, permission)) throw permissionDenied();
}

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

type StaffAccess = Exclude<Access, 'public' | 'user'>;

/** The staff prefixes and the access level each needs (a route under one can never be public). */
const STAFF_PREFIXES: readonly [string, StaffAccess][] = [
  ['/v1/clinician/', 'doctor'],
  ['/v1/backoffice/', 'backoffice_admin'],
  ['/v1/pharmacy/', 'pharmacist'],
];

/** The permission each staff access level checks. */
const ACCESS_PERMISSION: { readonly [A in StaffAccess]: Permission } = {
  doctor: 'clinician:desk',
  backoffice_admin: 'backoffice:admin',
  pharmacist: 'pharmacy:desk',
};

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
    if (access !== 'user') requirePermission(user, ACCESS_PERMISSION[access]);
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
