// The environment, parsed once. The only module that reads process.env.
import { resolve } from 'node:path';
import { z } from 'zod';
import { parseKeyList } from './lib/keys.ts';

const csv = z
  .string()
  .optional()
  .transform((v) => (v ? v.split(',').map((s) => s.trim()).filter(Boolean) : []));
const seconds = (fallback: number) => z.coerce.number({ error: 'must be a whole number' }).int({ error: 'must be a whole number' }).positive({ error: 'must be positive' }).default(fallback);
/** A URL whose scheme is one of `schemes` (the message never repeats the value: it may hold a password). */
const urlOf = (schemes: string[], needsHost = true) =>
  z.string().refine(
    (v) => {
      try {
        const u = new URL(v);
        return schemes.includes(u.protocol.slice(0, -1)) && (!needsHost || u.hostname !== '');
      } catch {
        return false;
      }
    },
    { error: `must be a ${schemes.join(':// or ')}:// URL${needsHost ? ' with a host' : ''}` },
  );

// TRUST_PROXY: unset trusts no proxy (the socket address is the client); a whole number trusts that
// many hops of X-Forwarded-For; otherwise a comma-separated list of proxy addresses or CIDRs.
const IP_OR_CIDR = /^(?:\d{1,3}(?:\.\d{1,3}){3}|[0-9a-fA-F:]*:[0-9a-fA-F:.]*)(?:\/\d{1,3})?$/;
const trustProxy = z
  .string()
  .optional()
  .transform((v, ctx): false | number | string[] => {
    if (!v) return false;
    if (/^\d+$/.test(v)) return Number(v);
    const list = v.split(',').map((s) => s.trim()).filter(Boolean);
    const bad = list.filter((entry) => !IP_OR_CIDR.test(entry));
    if (bad.length > 0) {
      ctx.addIssue({ code: 'custom', message: `expected a hop count or a comma-separated list of IP addresses/CIDRs, got ${bad.join(', ')}` });
      return z.NEVER;
    }
    return list;
  });
// CORS_ORIGINS: exact origins (scheme://host[:port]) allowed to call the API from a browser.
const origins = csv.superRefine((list, ctx) => {
  for (const origin of list) {
    let ok = false;
    try {
      const u = new URL(origin);
      ok = (u.protocol === 'https:' || u.protocol === 'http:') && u.origin === origin;
    } catch {
      ok = false;
    }
    if (!ok) ctx.addIssue({ code: 'custom', message: `${origin} is not an origin (scheme://host[:port], no path or trailing slash)` });
  }
});

const EnvSchema = z.object({
  PORT: z.coerce.number({ error: 'must be a port number (0-65535)' }).int({ error: 'must be a port number (0-65535)' }).min(0, { error: 'must be a port number (0-65535)' }).max(65535, { error: 'must be a port number (0-65535)' }).default(8000),
  HOST: z.string().default('127.0.0.1'),
  DATA_DIR: z.string().default('./.data'),
  DATABASE_URL: urlOf(['postgres', 'postgresql'], false).optional(),
  // A read replica (streaming standby) that list and detail reads use when set; writes and every
  // read inside a write's transaction stay on DATABASE_URL.
  DATABASE_REPLICA_URL: urlOf(['postgres', 'postgresql'], false).optional(),
  BRAND_SLUG: z.string().min(1).default('demo'),
  // PostgreSQL timeouts (docs/operations.md, "Losing the database"): opening a connection or waiting
  // for a free one, a statement (server-side statement_timeout), a session idle inside a transaction.
  DB_CONNECT_TIMEOUT_MS: z.coerce.number({ error: 'must be a whole number of milliseconds (100-60000)' }).int({ error: 'must be a whole number of milliseconds (100-60000)' }).min(100, { error: 'must be a whole number of milliseconds (100-60000)' }).max(60_000, { error: 'must be a whole number of milliseconds (100-60000)' }).default(3000),
  DB_STATEMENT_TIMEOUT_MS: seconds(15_000),
  DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: seconds(30_000),
  PUBLIC_BASE_URL: urlOf(['https', 'http']).optional(),
  WEB_APP_URL: urlOf(['https', 'http']).optional(),
  SMTP_URL: urlOf(['smtp', 'smtps']).optional(),
  MAIL_FROM: z.string().regex(/^(?:[^<>]*<[^\s@<>]+@[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+)$/, { error: 'must be an address, or "Name <address>"' }).default('no-reply@localhost'),
  PAYMENT_PROVIDER: z.enum(['sandbox', 'stripe']).default('sandbox'),
  STRIPE_SECRET_KEY: z.string().regex(/^(sk|rk)_/, { error: 'must be a Stripe secret key (sk_... or rk_...)' }).optional(),
  STRIPE_WEBHOOK_SECRET: z.string().regex(/^whsec_/, { error: 'must be a Stripe webhook signing secret (whsec_...)' }).optional(),
  STRIPE_API_HOST: z.string().optional(),
  STRIPE_API_PORT: z.coerce.number({ error: 'must be a port number (0-65535)' }).int({ error: 'must be a port number (0-65535)' }).min(0).max(65535).optional(),
  STRIPE_API_PROTOCOL: z.enum(['http', 'https']).optional(),
  // Identity verification (docs/verification.md): the built-in sandbox page, or Veriff (document +
  // liveness) with its API key and the shared secret that signs its decision webhooks.
  IDENTITY_PROVIDER: z.enum(['sandbox', 'veriff'], { error: 'must be sandbox or veriff' }).default('sandbox'),
  IDENTITY_VERIFF_BASE_URL: urlOf(['https', 'http']).default('https://stationapi.veriff.com'),
  IDENTITY_VERIFF_API_KEY: z.string().min(8, { error: 'must be the integration API key' }).optional(),
  IDENTITY_VERIFF_SHARED_SECRET: z.string().min(16, { error: 'must be at least 16 characters' }).optional(),
  IDENTITY_WEBHOOK_TOLERANCE_SECONDS: seconds(24 * 3600),
  // Whether approvals wait for the category's verification (docs/verification.md): default required
  // with NODE_ENV=production, optional elsewhere (the desk then shows a warning).
  PATIENT_VERIFICATION: z.enum(['required', 'optional'], { error: 'must be required or optional' }).optional(),
  // Days a photo uploaded for a questionnaire is kept when no consultation shows it (docs/photos.md, "Retention").
  DRAFT_PHOTO_RETENTION_DAYS: z.coerce.number({ error: 'must be a number of days' }).int({ error: 'must be a whole number of days' }).min(1).max(3650).default(30),
  GOOGLE_CLIENT_IDS: csv,
  GOOGLE_JWKS_URL: z.string().url().default('https://www.googleapis.com/oauth2/v3/certs'),
  GOOGLE_ISSUERS: z
    .string()
    .default('accounts.google.com,https://accounts.google.com')
    .transform((v) => v.split(',').map((s) => s.trim()).filter(Boolean)),
  REDIS_URL: urlOf(['redis', 'rediss']).optional(),
  // Prefix of every rate-limit key in Redis; default `pts:<BRAND_SLUG>`. Give each deployment that
  // shares a Redis its own (docs/operations.md).
  RATE_LIMIT_KEY_PREFIX: z.string().regex(/^[A-Za-z0-9:._-]{1,64}$/, { error: 'must be 1-64 letters, digits, ":", ".", "_" or "-"' }).optional(),
  TRUST_PROXY: trustProxy,
  CORS_ORIGINS: origins,
  // Key lists for production (src/lib/keys.ts): `id:base64url-key` entries, comma-separated, the
  // first one active. Unset: keys are generated and kept in the database (zero set-up).
  JWT_SIGNING_KEYS: z.string().optional(),
  DATA_ENCRYPTION_KEYS: z.string().optional(),
  // Where message attachments are kept (docs/messages.md, "Storage"): in the database (default), or
  // in an S3-compatible object store (AWS S3, MinIO, Ceph, R2...). Both seal the bytes with
  // DATA_ENCRYPTION_KEYS' key ring. S3_ACCESS_KEY_ID/S3_SECRET_ACCESS_KEY: both or neither (neither:
  // the AWS SDK's default credentials, e.g. an instance role or AWS_* variables).
  FILE_STORE: z.enum(['database', 's3'], { error: 'must be database or s3' }).default('database'),
  S3_BUCKET: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{1,254}$/, { error: 'must be a bucket name (letters, digits, ".", "_", "-")' }).optional(),
  S3_ENDPOINT: urlOf(['https', 'http']).optional(),
  S3_REGION: z.string().regex(/^[a-z0-9-]{1,32}$/, { error: 'must be a region name such as eu-central-1' }).optional(),
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  S3_FORCE_PATH_STYLE: z
    .enum(['true', 'false', '1', '0'], { error: 'must be true or false' })
    .default('false')
    .transform((v) => v === 'true' || v === '1'),
  NODE_ENV: z.string().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  // Operations (docs/operations.md): the /metrics bearer token for non-loopback scrapers, and how
  // long a stopping process keeps serving with /readyz at 503 before it closes its listener.
  METRICS_TOKEN: z.string().min(16, { error: 'must be at least 16 characters' }).optional(),
  SHUTDOWN_DRAIN_SECONDS: z.coerce.number({ error: 'must be a whole number of seconds (0-300)' }).int({ error: 'must be a whole number of seconds (0-300)' }).min(0, { error: 'must be a whole number of seconds (0-300)' }).max(300, { error: 'must be a whole number of seconds (0-300)' }).default(0),
  // Memory for served consultation-list pages, per process (docs/performance.md); 0 turns the cache off.
  LIST_CACHE_MB: z.coerce.number({ error: 'must be a whole number of megabytes (0-4096)' }).int({ error: 'must be a whole number of megabytes (0-4096)' }).min(0, { error: 'must be a whole number of megabytes (0-4096)' }).max(4096, { error: 'must be a whole number of megabytes (0-4096)' }).default(64),
  // The embedded database in a worker thread (src/db/pglite-worker.ts, docs/performance.md); 0 runs
  // it on the server's own thread as before.
  PGLITE_WORKER: z
    .enum(['true', 'false', '1', '0'], { error: 'must be 1 or 0' })
    .default('1')
    .transform((v) => v === 'true' || v === '1'),
  // Token lifetimes and account security budgets (documented in docs/accounts.md).
  ACCESS_TOKEN_TTL_SECONDS: seconds(15 * 60),
  REFRESH_TOKEN_TTL_SECONDS: seconds(14 * 24 * 3600),
  // The refresh cookie shared by a browser's tabs: a rotated cookie presented again within this many
  // seconds is answered once more instead of ending the session (0 turns it off; at most 60).
  REFRESH_COOKIE_REUSE_GRACE_SECONDS: z.coerce.number({ error: 'must be a whole number' }).int({ error: 'must be a whole number' }).min(0, { error: 'must be 0 to 60' }).max(60, { error: 'must be 0 to 60' }).default(10),
  REGISTRATION_EMAIL_COOLDOWN_SECONDS: seconds(60),
  OTP_TTL_SECONDS: seconds(10 * 60),
  OTP_MAX_WRONG: seconds(5),
  OTP_LOCKOUT_SECONDS: seconds(15 * 60),
  RESET_TOKEN_TTL_SECONDS: seconds(3600),
  FORGOT_PASSWORD_COOLDOWN_SECONDS: seconds(60),
  SIGNIN_FAILURES_PER_ACCOUNT: seconds(10),
  SIGNIN_FAILURES_PER_IP: seconds(50),
  SIGNIN_FAILURE_WINDOW_SECONDS: seconds(15 * 60),
  // A second factor for staff accounts (docs/accounts.md): default required with NODE_ENV=production.
  STAFF_MFA: z.enum(['required', 'optional'], { error: 'must be required or optional' }).optional(),
  // Passkeys (docs/accounts.md, "Passkeys"): the relying party ID (a domain; default: the host of
  // WEB_APP_URL, i.e. of PUBLIC_BASE_URL unless set) and the origins a passkey ceremony may run on
  // (comma-separated; default: the origin of WEB_APP_URL). Checked at start: each origin's host
  // must be the RP ID or under it.
  WEBAUTHN_RP_ID: z.string().regex(/^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/, { error: 'must be a domain name in lower case, such as example.org (no scheme, port or path)' }).optional(),
  WEBAUTHN_ORIGINS: origins,
  REGISTRATIONS_PER_IP: seconds(100),
  REGISTRATION_WINDOW_SECONDS: seconds(3600),
  FORGOT_PASSWORD_PER_IP: seconds(20),
  FORGOT_PASSWORD_WINDOW_SECONDS: seconds(3600),
  MAIL_DISPATCH_INTERVAL_MS: seconds(500),
  // Overrides of the per-route request budgets (src/http/budgets.ts, docs/rate-limits.md):
  // `name=points/seconds,...`, e.g. `messages-account=240/3600`. An unknown name stops the start.
  ROUTE_BUDGETS: z
    .string()
    .optional()
    .transform((v, ctx) => {
      const out = new Map<string, { points: number; seconds: number }>();
      for (const item of (v ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
        const m = /^([a-z0-9-]+)=(\d{1,9})\/(\d{1,9})$/.exec(item);
        if (!m || Number(m[2]) < 1 || Number(m[3]) < 1) {
          ctx.addIssue({ code: 'custom', message: 'must be name=points/seconds pairs separated by commas, such as messages-account=240/3600' });
          return z.NEVER;
        }
        out.set(m[1]!, { points: Number(m[2]), seconds: Number(m[3]) });
      }
      return out;
    }),
  SCHEDULER_INTERVAL_MS: seconds(30_000),
  // Notifications (docs/notifications.md). Web push: the VAPID key pair (base64url, as web-push's
  // generateVAPIDKeys gives them; both or neither: without them the service generates a pair on
  // first start and keeps it in the database) and the contact the push services see.
  VAPID_PUBLIC_KEY: z.string().regex(/^[A-Za-z0-9_-]{87}$/, 'must be an uncompressed P-256 public key in base64url (87 characters)').optional(),
  VAPID_PRIVATE_KEY: z.string().regex(/^[A-Za-z0-9_-]{43}$/, 'must be a P-256 private key in base64url (43 characters)').optional(),
  VAPID_SUBJECT: z.string().regex(/^(mailto:\S+@\S+|https:\/\/\S+)$/, 'must be a mailto: or https: URL').optional(),
  // The push services the service may POST to (a browser gives the endpoint URL): host names, or
  // `*.domain` for its subdomains. Default: the browser vendors' services.
  PUSH_ENDPOINT_HOSTS: z
    .string()
    .optional()
    .transform((v) => (v ? v : 'fcm.googleapis.com,updates.push.services.mozilla.com,*.notify.windows.com,web.push.apple.com').split(',').map((s) => s.trim().toLowerCase()).filter(Boolean)),
  // Tests only: hosts of PUSH_ENDPOINT_HOSTS that may be reached over plain http and on private or
  // loopback addresses (a test push service on 127.0.0.1). Never set it in production.
  PUSH_INSECURE_TEST_HOSTS: csv,
  PUSH_TIMEOUT_MS: seconds(10_000),
  // SMS: `outbox` writes each SMS as a file in $DATA_DIR/outbox (like mail without SMTP_URL).
  SMS_PROVIDER: z.enum(['outbox'], { error: 'must be outbox' }).default('outbox'),
  // The assistant connector (docs/mcp.md).
  MCP_PUBLIC_URL: z.string().url().optional(),
  MCP_ALLOWED_ORIGINS: csv,
  MCP_ACCESS_TOKEN_TTL_SECONDS: seconds(15 * 60),
  MCP_REFRESH_TOKEN_TTL_SECONDS: seconds(30 * 24 * 3600),
  MCP_TOOL_CALLS_PER_MINUTE: seconds(60),
  // The per-patient budget above sits under a larger ceiling per client (every patient of
  // one assistant platform shares its client), and registrations are budgeted per redirect host.
  MCP_CLIENT_TOOL_CALLS_PER_MINUTE: seconds(3000),
  MCP_REGISTRATIONS_PER_HOUR: seconds(1000),
  // Links the assistant directories require in the authorization server metadata (https URLs).
  MCP_POLICY_URL: urlOf(['https']).optional(),
  MCP_TOS_URL: urlOf(['https']).optional(),
  // The seller printed on invoices (docs/billing.md): all four or none; required with NODE_ENV=production.
  SELLER_NAME: z.string().max(200).optional(),
  SELLER_ADDRESS: z.string().max(500).optional(),
  SELLER_VAT_ID: z.string().regex(/^[A-Z]{2}[0-9A-Za-z+*]{2,13}$/, 'Use a VAT identification number such as DE123456789.').optional(),
  SELLER_COUNTRY: z.string().regex(/^[A-Z]{3}$/, 'Use an ISO 3166 alpha-3 code such as DEU.').optional(),
  SELLER_EMAIL: z.string().email().optional(),
  // The pharmacy that dispenses what is sold at a distance and its entry in the national register
  // the EU common logo links to (Regulation (EU) 699/2014, Directive 2001/83/EC art. 85c;
  // docs/compliance.md): all three or none; required with NODE_ENV=production.
  DISTANCE_SELLING_REGISTER_URL: urlOf(['https']).optional(),
  DISTANCE_SELLING_PHARMACY_NAME: z.string().max(200).optional(),
  DISTANCE_SELLING_COUNTRY: z.string().regex(/^[A-Z]{3}$/, 'Use an ISO 3166 alpha-3 code such as DEU.').optional(),
  // The imprint (§ 5 DDG, Directive 2000/31/EC art. 5) beyond the seller above, each optional.
  IMPRINT_REPRESENTATIVE: z.string().max(200).optional(),
  IMPRINT_REGISTER: z.string().max(200).optional(),
  IMPRINT_PHONE: z.string().max(40).optional(),
  IMPRINT_SUPERVISORY_AUTHORITY: z.string().max(300).optional(),
  IMPRINT_PROFESSIONAL_RULES: z.string().max(300).optional(),
  // Where accessibility feedback goes (the accessibility statement): default SELLER_EMAIL.
  ACCESSIBILITY_CONTACT_EMAIL: z.string().email().optional(),
  // Days between the notice of a plan's new price and its first charge at that price (at least 30).
  PRICE_CHANGE_NOTICE_DAYS: z.coerce.number().int().min(30).max(365).default(30),
  // The prescriber's direct line printed on prescriptions when the doctor's profile has none
  // (Implementing Directive 2012/52/EU: telephone with the international prefix); required with
  // NODE_ENV=production, with the seller (the prescriber's work address). docs/prescriptions.md.
  SELLER_PHONE: z.string().regex(/^\+[1-9][0-9]{6,14}$/, 'Use the international format without spaces, such as +4930123456.').optional(),
  // Who signs prescriptions (docs/prescriptions.md): `sandbox` (keys and certificates from the
  // service's own test CA) or `csc` (a qualified trust service provider's Cloud Signature Consortium
  // API v2). PRESCRIPTION_CA_CERT/KEY: the sandbox CA as PEM files (both or neither; neither: one is
  // generated and kept sealed in the database).
  PRESCRIPTION_SIGNER: z.enum(['sandbox', 'csc'], { error: 'must be sandbox or csc' }).default('sandbox'),
  PRESCRIPTION_CA_CERT: z.string().optional(),
  PRESCRIPTION_CA_KEY: z.string().optional(),
  // The CSC API: its base URL (ending in /csc/v2), and either an OAuth 2.0 client (client
  // credentials, `oauth2/token` under CSC_OAUTH_URL, default the base URL's origin) or a fixed bearer
  // token. CSC_PIN: the credential's PIN when the provider's SCAL asks for one (explicit authorisation).
  CSC_BASE_URL: urlOf(['https', 'http']).optional(),
  CSC_OAUTH_URL: urlOf(['https', 'http']).optional(),
  CSC_CLIENT_ID: z.string().max(500).optional(),
  CSC_CLIENT_SECRET: z.string().max(500).optional(),
  CSC_BEARER_TOKEN: z.string().max(4000).optional(),
  CSC_PIN: z.string().max(200).optional(),
  CSC_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  // PAdES B-T (docs/prescriptions.md): an RFC 3161 timestamp authority that timestamps each
  // prescription's signature; `sandbox`: the service's own TSA (certificate from the sandbox CA);
  // unset: signatures are B-B.
  SIGNING_TSA_URL: z.union([z.literal('sandbox'), urlOf(['https', 'http'])], { error: 'must be sandbox or an http(s) URL' }).optional(),
  SIGNING_TSA_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  // Video calls (docs/appointments.md): the STUN/TURN servers the browsers are given, comma-separated
  // (`turn:turn.example.org:3478?transport=udp,turns:turn.example.org:5349`), and the secret shared
  // with coturn (`static-auth-secret`) that signs the time-limited TURN credentials.
  TURN_URLS: csv.superRefine((list, ctx) => {
    for (const u of list) if (!/^(stun|stuns|turn|turns):[^\s,]+$/.test(u)) ctx.addIssue({ code: 'custom', message: 'each URL must start with stun:, stuns:, turn: or turns:' });
  }),
  TURN_SECRET: z.string().min(16, { error: 'must be at least 16 characters' }).max(500).optional(),
});

export type Config = Omit<z.infer<typeof EnvSchema>, 'PUBLIC_BASE_URL' | 'MCP_PUBLIC_URL' | 'WEB_APP_URL' | 'RATE_LIMIT_KEY_PREFIX' | 'STAFF_MFA' | 'WEBAUTHN_RP_ID' | 'PATIENT_VERIFICATION'> & {
  PUBLIC_BASE_URL: string;
  DATA_DIR: string;
  MCP_PUBLIC_URL: string;
  WEB_APP_URL: string;
  RATE_LIMIT_KEY_PREFIX: string;
  STAFF_MFA: 'required' | 'optional';
  PATIENT_VERIFICATION: 'required' | 'optional';
  WEBAUTHN_RP_ID: string;
};

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  // Empty strings mean "unset", as a shell `VAR=` would suggest.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = EnvSchema.safeParse(cleaned);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  }
  const c = parsed.data;
  const problems = crossChecks(c);
  const webauthn = webauthnSettings(c, problems);
  if (problems.length) throw new ConfigError(problems);
  return {
    ...c,
    ...webauthn,
    DATA_DIR: resolve(c.DATA_DIR),
    RATE_LIMIT_KEY_PREFIX: c.RATE_LIMIT_KEY_PREFIX ?? `pts:${c.BRAND_SLUG}`,
    STAFF_MFA: c.STAFF_MFA ?? (c.NODE_ENV === 'production' ? 'required' : 'optional'),
    PATIENT_VERIFICATION: c.PATIENT_VERIFICATION ?? (c.NODE_ENV === 'production' ? 'required' : 'optional'),
    PUBLIC_BASE_URL: (c.PUBLIC_BASE_URL ?? `http://localhost:${c.PORT}`).replace(/\/+$/, ''),
    MCP_PUBLIC_URL: (c.MCP_PUBLIC_URL ?? `${(c.PUBLIC_BASE_URL ?? `http://localhost:${c.PORT}`).replace(/\/+$/, '')}/mcp`).replace(/\/+$/, ''),
    // Base of every link in a mail (the web app's pages); default: the service, which serves the app.
    WEB_APP_URL: (c.WEB_APP_URL ?? c.PUBLIC_BASE_URL ?? `http://localhost:${c.PORT}`).replace(/\/+$/, ''),
  };
}

/** A refused configuration: one line per problem, each naming its variable. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.map((p) => `Invalid environment: ${p}`).join('\n'));
    this.name = 'ConfigError';
  }
}

/** https, or http on a loopback host (never crosses a network). */
function httpsOrLoopback(v: string): boolean {
  try {
    const u = new URL(v);
    return u.protocol === 'https:' || ['localhost', '127.0.0.1', '[::1]'].includes(u.hostname);
  } catch {
    return false;
  }
}

/**
 * The passkey relying party: its ID and the origins allowed, derived from the public URLs unless set.
 * A browser refuses a ceremony whose RP ID is not the page's host or a parent domain of it, so an
 * origin outside the RP ID is a set-up mistake, refused at start rather than at the first passkey.
 */
function webauthnSettings(c: z.infer<typeof EnvSchema>, problems: string[]): { WEBAUTHN_RP_ID: string; WEBAUTHN_ORIGINS: string[] } {
  const publicBase = c.PUBLIC_BASE_URL ?? `http://localhost:${c.PORT}`;
  const origins = c.WEBAUTHN_ORIGINS.length ? c.WEBAUTHN_ORIGINS : [new URL(c.WEB_APP_URL ?? publicBase).origin];
  const rpId = c.WEBAUTHN_RP_ID ?? new URL(c.WEB_APP_URL ?? publicBase).hostname;
  const outside = origins.filter((o) => {
    const host = new URL(o).hostname;
    return host !== rpId && !host.endsWith(`.${rpId}`);
  });
  if (outside.length) problems.push(`WEBAUTHN_RP_ID: ${rpId} is not the host, nor a parent domain of the host, of ${outside.join(', ')} (set WEBAUTHN_RP_ID and WEBAUTHN_ORIGINS to match the web app's address)`);
  return { WEBAUTHN_RP_ID: rpId, WEBAUTHN_ORIGINS: origins };
}

/** Settings that are valid alone but not together. */
function crossChecks(c: z.infer<typeof EnvSchema>): string[] {
  const problems: string[] = [];
  if (c.PAYMENT_PROVIDER === 'stripe') {
    for (const name of ['STRIPE_SECRET_KEY', 'STRIPE_WEBHOOK_SECRET'] as const) {
      if (!c[name]) problems.push(`${name}: required when PAYMENT_PROVIDER=stripe`);
    }
  }
  if (Boolean(c.VAPID_PUBLIC_KEY) !== Boolean(c.VAPID_PRIVATE_KEY)) problems.push('VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY: set both or neither');
  const unlistedTestHosts = c.PUSH_INSECURE_TEST_HOSTS.filter((h) => !c.PUSH_ENDPOINT_HOSTS.includes(h.toLowerCase()));
  if (unlistedTestHosts.length) problems.push('PUSH_INSECURE_TEST_HOSTS: every host must also be in PUSH_ENDPOINT_HOSTS');
  if (c.PUSH_INSECURE_TEST_HOSTS.length && c.NODE_ENV === 'production') problems.push('PUSH_INSECURE_TEST_HOSTS: not allowed with NODE_ENV=production');
  // Invoices name a real seller: a partial seller is refused anywhere, a missing one in production.
  const sellerKeys = ['SELLER_NAME', 'SELLER_ADDRESS', 'SELLER_VAT_ID', 'SELLER_COUNTRY'] as const;
  const sellerMissing = sellerKeys.filter((k) => !c[k]);
  if (sellerMissing.length && (sellerMissing.length < sellerKeys.length || c.NODE_ENV === 'production')) {
    problems.push(`${sellerMissing.join(', ')}: required to issue invoices (${sellerMissing.length < sellerKeys.length ? 'set all four seller settings or none' : 'NODE_ENV=production'})`);
  }
  if (c.IDENTITY_PROVIDER === 'veriff') {
    for (const name of ['IDENTITY_VERIFF_API_KEY', 'IDENTITY_VERIFF_SHARED_SECRET'] as const) {
      if (!c[name]) problems.push(`${name}: required when IDENTITY_PROVIDER=veriff`);
    }
  }
  // Pages that sell medicines show the EU common logo linking to the dispensing pharmacy's register
  // entry: a partial set is refused anywhere, a missing one in production (docs/compliance.md).
  const distanceKeys = ['DISTANCE_SELLING_REGISTER_URL', 'DISTANCE_SELLING_PHARMACY_NAME', 'DISTANCE_SELLING_COUNTRY'] as const;
  const distanceMissing = distanceKeys.filter((k) => !c[k]);
  if (distanceMissing.length && (distanceMissing.length < distanceKeys.length || c.NODE_ENV === 'production')) {
    problems.push(`${distanceMissing.join(', ')}: required for the EU common logo of distance selling (${distanceMissing.length < distanceKeys.length ? 'set all three or none' : 'NODE_ENV=production'})`);
  }
  // Prescriptions name the prescriber's work address (the seller's) and direct line (2012/52/EU).
  if (c.NODE_ENV === 'production' && !c.SELLER_PHONE) problems.push('SELLER_PHONE: required to issue prescriptions (NODE_ENV=production): the prescriber\'s direct line when a doctor\'s profile has none');
  if (!c.PRESCRIPTION_CA_CERT !== !c.PRESCRIPTION_CA_KEY) problems.push('PRESCRIPTION_CA_CERT, PRESCRIPTION_CA_KEY: set both or neither (neither: the sandbox CA is generated and kept sealed in the database)');
  if (c.PRESCRIPTION_SIGNER === 'csc') {
    if (!c.CSC_BASE_URL) problems.push('CSC_BASE_URL: required when PRESCRIPTION_SIGNER=csc');
    if (!c.CSC_BEARER_TOKEN && !(c.CSC_CLIENT_ID && c.CSC_CLIENT_SECRET)) problems.push('CSC_CLIENT_ID, CSC_CLIENT_SECRET: required when PRESCRIPTION_SIGNER=csc without CSC_BEARER_TOKEN');
    if (c.NODE_ENV === 'production' && c.CSC_BASE_URL && !httpsOrLoopback(c.CSC_BASE_URL)) problems.push('CSC_BASE_URL: must be an https:// URL in production');
  }
  if (c.NODE_ENV === 'production' && c.SIGNING_TSA_URL && c.SIGNING_TSA_URL !== 'sandbox' && !httpsOrLoopback(c.SIGNING_TSA_URL)) problems.push('SIGNING_TSA_URL: must be an https:// URL in production');
  if (c.DATABASE_REPLICA_URL && !c.DATABASE_URL) problems.push('DATABASE_REPLICA_URL: needs DATABASE_URL (the embedded database has no replica)');
  // Keys apart from the data they protect: a database dump must not carry them (src/lib/keys.ts).
  if (c.NODE_ENV === 'production' && c.DATABASE_URL) {
    for (const name of ['JWT_SIGNING_KEYS', 'DATA_ENCRYPTION_KEYS'] as const) {
      if (!c[name]) problems.push(`${name}: required in production (NODE_ENV=production) on PostgreSQL; see docs/operations.md, key rotation`);
    }
  }
  // The connector's authorization server (OAuth 2.1, docs/mcp.md) needs an https issuer in
  // production; http is accepted on a loopback host only (a local trial such as compose.yaml).
  if (c.NODE_ENV === 'production') {
    for (const name of ['PUBLIC_BASE_URL', 'MCP_PUBLIC_URL'] as const) {
      const v = c[name];
      if (v && !httpsOrLoopback(v)) problems.push(`${name}: must be an https:// URL in production (NODE_ENV=production): the assistant connector's OAuth authorization server refuses http (http is accepted on localhost only)`);
    }
  }
  const s3Names = ['S3_BUCKET', 'S3_ENDPOINT', 'S3_REGION', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY'] as const;
  if (c.FILE_STORE === 's3') {
    for (const name of ['S3_BUCKET', 'S3_REGION'] as const) if (!c[name]) problems.push(`${name}: required when FILE_STORE=s3`);
    if (!c.S3_ACCESS_KEY_ID !== !c.S3_SECRET_ACCESS_KEY) problems.push('S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY: set both or neither (neither: the AWS SDK default credentials)');
  } else {
    // An S3 setting without FILE_STORE=s3 would silently keep files in the database.
    for (const name of s3Names) if (c[name]) problems.push(`${name}: only used with FILE_STORE=s3 (FILE_STORE is ${c.FILE_STORE})`);
  }
  for (const name of ['JWT_SIGNING_KEYS', 'DATA_ENCRYPTION_KEYS'] as const) {
    const raw = c[name];
    if (!raw) continue;
    try {
      parseKeyList(name, raw);
    } catch (err) {
      problems.push((err as Error).message);
    }
  }
  return problems;
}
