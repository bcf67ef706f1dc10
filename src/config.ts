// The environment, parsed once. The only module that reads process.env.
import { resolve } from 'node:path';
import { z } from 'zod';

const csv = z
  .string()
  .optional()
  .transform((v) => (v ? v.split(',').map((s) => s.trim()).filter(Boolean) : []));
const seconds = (fallback: number) => z.coerce.number().int().positive().default(fallback);

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
  PORT: z.coerce.number().int().min(0).max(65535).default(8000),
  HOST: z.string().default('127.0.0.1'),
  DATA_DIR: z.string().default('./.data'),
  DATABASE_URL: z.string().optional(),
  BRAND_SLUG: z.string().min(1).default('demo'),
  PUBLIC_BASE_URL: z.string().url().optional(),
  WEB_APP_URL: z.string().url().optional(),
  SMTP_URL: z.string().optional(),
  MAIL_FROM: z.string().default('no-reply@localhost'),
  PAYMENT_PROVIDER: z.enum(['sandbox', 'stripe']).default('sandbox'),
  STRIPE_SECRET_KEY: z.string().optional(),
  STRIPE_WEBHOOK_SECRET: z.string().optional(),
  STRIPE_API_HOST: z.string().optional(),
  STRIPE_API_PORT: z.coerce.number().int().optional(),
  STRIPE_API_PROTOCOL: z.enum(['http', 'https']).optional(),
  GOOGLE_CLIENT_IDS: csv,
  GOOGLE_JWKS_URL: z.string().url().default('https://www.googleapis.com/oauth2/v3/certs'),
  GOOGLE_ISSUERS: z
    .string()
    .default('accounts.google.com,https://accounts.google.com')
    .transform((v) => v.split(',').map((s) => s.trim()).filter(Boolean)),
  REDIS_URL: z.string().optional(),
  TRUST_PROXY: trustProxy,
  CORS_ORIGINS: origins,
  // Key lists for production (src/lib/keys.ts): `id:base64url-key` entries, comma-separated, the
  // first one active. Unset: keys are generated and kept in the database (zero set-up).
  JWT_SIGNING_KEYS: z.string().optional(),
  DATA_ENCRYPTION_KEYS: z.string().optional(),
  NODE_ENV: z.string().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  // Token lifetimes and account security budgets (documented in docs/accounts.md).
  ACCESS_TOKEN_TTL_SECONDS: seconds(15 * 60),
  REFRESH_TOKEN_TTL_SECONDS: seconds(14 * 24 * 3600),
  REGISTRATION_EMAIL_COOLDOWN_SECONDS: seconds(60),
  OTP_TTL_SECONDS: seconds(10 * 60),
  OTP_MAX_WRONG: seconds(5),
  OTP_LOCKOUT_SECONDS: seconds(15 * 60),
  RESET_TOKEN_TTL_SECONDS: seconds(3600),
  FORGOT_PASSWORD_COOLDOWN_SECONDS: seconds(60),
  SIGNIN_FAILURES_PER_ACCOUNT: seconds(10),
  SIGNIN_FAILURES_PER_IP: seconds(50),
  SIGNIN_FAILURE_WINDOW_SECONDS: seconds(15 * 60),
  REGISTRATIONS_PER_IP: seconds(100),
  REGISTRATION_WINDOW_SECONDS: seconds(3600),
  FORGOT_PASSWORD_PER_IP: seconds(20),
  FORGOT_PASSWORD_WINDOW_SECONDS: seconds(3600),
  MAIL_DISPATCH_INTERVAL_MS: seconds(500),
  SCHEDULER_INTERVAL_MS: seconds(30_000),
});

export type Config = Omit<z.infer<typeof EnvSchema>, 'PUBLIC_BASE_URL' | 'WEB_APP_URL'> & { PUBLIC_BASE_URL: string; WEB_APP_URL: string; DATA_DIR: string };

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  // Empty strings mean "unset", as a shell `VAR=` would suggest.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = EnvSchema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`).join('\n');
    throw new Error(`Invalid environment:\n${lines}`);
  }
  const c = parsed.data;
  return {
    ...c,
    DATA_DIR: resolve(c.DATA_DIR),
    PUBLIC_BASE_URL: (c.PUBLIC_BASE_URL ?? `http://localhost:${c.PORT}`).replace(/\/+$/, ''),
    // Base of every link in a mail (the web app's pages); default: the service, which serves the app.
    WEB_APP_URL: (c.WEB_APP_URL ?? c.PUBLIC_BASE_URL ?? `http://localhost:${c.PORT}`).replace(/\/+$/, ''),
  };
}
