// buildApp(deps): the whole HTTP surface. Used by main.ts and by the tests.
import { randomUUID } from 'node:crypto';
import cors from '@fastify/cors';
import formbody from '@fastify/formbody';
import multipart from '@fastify/multipart';
import Fastify, { type FastifyInstance } from 'fastify';
import helmet from 'helmet';
import { validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Deps } from './deps.ts';
import { installAccessControl, type Access } from './http/access.ts';
import { installErrorHandling } from './http/errors.ts';
import { installIdempotency } from './http/idempotency.ts';
import { installRouteBudgets } from './http/budgets.ts';
import { installInputGuard } from './http/input-guard.ts';
import { loggerOptions, OneLinePerRequest } from './http/logging.ts';
import { registerMetrics } from './http/metrics.ts';
import { readiness, ReadinessSchema } from './http/readiness.ts';
import { registerApiDocument } from './http/openapi.ts';
import { defaultSerialisation, responseSerializerCompiler, type ResponseSerialisation } from './http/serializer.ts';
import { MODULES } from './modules/index.ts';
import { registerWebApp } from './web.ts';

export type App = FastifyInstance;

export interface RegisteredRoute {
  method: string;
  url: string;
  hidden: boolean;
  access: Access;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route the app registered (the OpenAPI test checks each is documented). */
    registeredRoutes: RegisteredRoute[];
  }
}

/** Largest JSON body accepted (uploads have their own limits in the messages module). */
export const JSON_BODY_LIMIT = 256 * 1024;
export const UPLOAD_LIMIT_BYTES = 10 * 1024 * 1024;

const REQUEST_ID = /^[A-Za-z0-9._-]{8,128}$/;

/**
 * Security headers of every answer, as helmet decides them (`contentSecurityPolicy: false`: the API
 * answers JSON; the interactive docs and the sandbox checkout page need inline assets; the web app
 * sets its own policy, src/web.ts; and a `same-site` resource policy). helmet's middleware is run
 * once, here, against a recording response: its headers are constants, so every answer gets them
 * from one synchronous hook instead of helmet's middleware chain per request. The
 * library stays the one that knows the right set; test/security-headers.test.ts spells it out.
 */
export const SECURITY_HEADERS: readonly (readonly [string, string])[] = (() => {
  const headers: [string, string][] = [];
  const recorder = {
    setHeader: (name: string, value: string) => void headers.push([name.toLowerCase(), String(value)]),
    removeHeader: () => undefined,
  };
  const middleware = helmet({ contentSecurityPolicy: false, crossOriginResourcePolicy: { policy: 'same-site' } }) as unknown as (req: unknown, res: typeof recorder, next: (err?: unknown) => void) => void;
  middleware({}, recorder, (err) => {
    if (err) throw err instanceof Error ? err : new Error('helmet refused its options');
  });
  return headers;
})();

/** Trusts the nearest `hops` proxies: each X-Forwarded-For entry within that many hops. */
const trustHops = (hops: number) => (_address: string, hop: number) => hop < hops;

export interface BuildOptions {
  logger?: boolean;
  logStream?: { write(line: string): void };
  /** Response writing: zod-validated (development, tests) or from the JSON schema (production). */
  serialisation?: ResponseSerialisation;
}

export async function buildApp(deps: Deps, options: BuildOptions = {}): Promise<App> {
  const app = Fastify({
    logger: options.logger === false ? false : { ...loggerOptions(deps.config.LOG_LEVEL), ...(options.logStream ? { stream: options.logStream } : {}) },
    loggerInstance: undefined,
    // One log line per answer, carrying the request too (src/http/logging.ts).
    logController: new OneLinePerRequest(),
    bodyLimit: JSON_BODY_LIMIT,
    // X-Forwarded-For is believed only from the proxies TRUST_PROXY names (default: none), so a
    // client cannot pick its own address and escape the per-IP budgets.
    trustProxy: typeof deps.config.TRUST_PROXY === 'number' ? trustHops(deps.config.TRUST_PROXY) : deps.config.TRUST_PROXY,
    routerOptions: { ignoreTrailingSlash: true },
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    },
    ajv: undefined,
  }).withTypeProvider<ZodTypeProvider>();

  // Authentication and roles first, on every route (deny by default): see src/http/access.ts.
  const accessLevels = installAccessControl(app, deps);
  // Idempotency-Key on the routes that opt in (config: { idempotent: true }): src/http/idempotency.ts.
  installIdempotency(app, deps);
  // Request budgets per account and address on the routes src/http/budgets.ts lists.
  installRouteBudgets(app, deps);
  const registeredRoutes: RegisteredRoute[] = [];
  app.decorate('registeredRoutes', registeredRoutes);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      if (method !== 'HEAD') {
        registeredRoutes.push({ method, url: route.url, hidden: Boolean(route.schema?.hide), access: accessLevels.get(`${method} ${route.url}`) ?? 'user' });
      }
    }
  });

  // An empty JSON body is no body (a client that sends `Content-Type: application/json` on a bodiless
  // POST); anything else goes through Fastify's parser with prototype poisoning refused.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) =>
    String(body).trim() === '' ? done(null, undefined) : parseJson(request, String(body), done),
  );

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(responseSerializerCompiler(options.serialisation ?? defaultSerialisation(deps.config.NODE_ENV)));
  installErrorHandling(app);
  installInputGuard(app);

  // One synchronous hook for what every answer carries, before CORS can answer a preflight (issue
  // 28: @fastify/helmet ran two async hooks and a chain of eleven middlewares per request to set the
  // same constant headers).
  app.addHook('onRequest', (request, reply, done) => {
    const raw = reply.raw;
    for (const [name, value] of SECURITY_HEADERS) raw.setHeader(name, value);
    reply.header('x-request-id', request.id);
    done();
  });
  // Browsers on other origins only when listed in CORS_ORIGINS (default: same origin only). Bearer
  // tokens travel in a header, never cookies, so credentials stay off.
  await app.register(cors, {
    origin: deps.config.CORS_ORIGINS.length > 0 ? deps.config.CORS_ORIGINS : false,
    credentials: false,
    methods: ['GET', 'HEAD', 'POST', 'PATCH', 'PUT', 'DELETE'],
    allowedHeaders: ['Authorization', 'Content-Type', 'X-Brand-Slug', 'X-Request-Id', 'Accept-Language', 'If-None-Match', 'Idempotency-Key', 'X-Session-Cookie', 'X-Call-Token'],
    exposedHeaders: ['Retry-After', 'X-Request-Id', 'Content-Disposition', 'ETag', 'Idempotent-Replayed'],
    maxAge: 600,
  });
  await app.register(formbody, { bodyLimit: JSON_BODY_LIMIT });
  await app.register(multipart, { limits: { fileSize: UPLOAD_LIMIT_BYTES, files: 1, fields: 5, fieldSize: 16 * 1024 } });

  registerMetrics(app, deps); // GET /metrics and the per-route request metrics
  // Account-scoped answers must never be cached by a browser or a proxy; routes that are public and
  // cacheable (questionnaire catalogue) set their own Cache-Control first.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (!reply.hasHeader('cache-control') && request.url.startsWith('/v1/')) reply.header('cache-control', 'no-store');
    done(null, payload);
  });

  // The OpenAPI document (/v1/schema/) and the interactive docs (/v1/docs/): src/http/openapi.ts.
  await registerApiDocument(app, {
    baseUrl: deps.config.PUBLIC_BASE_URL,
    brand: deps.config.BRAND_SLUG,
    tags: [
      { name: 'accounts', description: 'Registration, verification and sign-in' },
      { name: 'profile', description: 'The patient profile' },
      { name: 'questionnaires', description: 'Questionnaire catalogue, drafts and submission' },
      { name: 'billing', description: 'Checkout, payments, invoices, orders and prescriptions' },
      { name: 'consultations', description: 'Consultations' },
      { name: 'subscriptions', description: 'Subscriptions and renewals' },
      { name: 'messages', description: 'The conversation with the medical team' },
      { name: 'photos', description: 'Clinical photos for the doctor (questionnaire photo questions, an open consultation)' },
      { name: 'journal', description: 'Progress journal' },
      { name: 'notifications', description: 'Web push, SMS and reminders: preferences, subscriptions and the phone' },
      { name: 'referrals', description: 'Referrals and attribution' },
      { name: 'privacy', description: 'Consents, the access log, the data export and account erasure' },
      { name: 'verification', description: 'Identity and weight verification before prescribing' },
      { name: 'public', description: 'What the service publishes: its doctors, legal settings and cancelling a plan without signing in' },
      { name: 'clinician', description: 'Doctors only (outside the patient surface)' },
      { name: 'backoffice', description: 'Back office only (outside the patient surface)' },
      { name: 'sandbox', description: 'Built-in sandbox payment provider pages' },
      { name: 'operations', description: 'Health and readiness' },
    ],
  });

  app.get(
    '/healthz',
    { config: { access: 'public', operation: { id: 'getHealth', descriptions: { 200: 'The process is up' } } }, schema: { tags: ['operations'], summary: 'The process is up', security: [], response: { 200: z.object({ status: z.literal('ok') }) } } },
    () => Promise.resolve({ status: 'ok' as const }),
  );
  app.get(
    '/readyz',
    {
      config: {
        access: 'public',
        operation: { id: 'getReadiness', descriptions: { 200: 'The database answers', 503: 'The database does not answer' } },
      },
      schema: {
        tags: ['operations'],
        summary: 'The database is reachable and the process is not shutting down (degraded: rate limits per process)',
        security: [],
        response: { 200: ReadinessSchema, 503: ReadinessSchema },
      },
    },
    async (_req, reply) => {
      const { code, body } = await readiness(deps);
      return reply.code(code).send(body);
    },
  );

  for (const mod of MODULES) await app.register(mod, { deps });
  // the web app at `/` when web/dist holds a build (src/web.ts); it offers Google sign-in when configured
  await registerWebApp(app, undefined, { googleClientId: deps.config.GOOGLE_CLIENT_IDS[0] ?? '', brandSlug: deps.config.BRAND_SLUG });

  return app;
}
