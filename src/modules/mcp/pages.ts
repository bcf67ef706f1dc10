// The sign-in and consent pages of the assistant connector, in the seven locales. Plain HTML forms
// (no script but Google's button), the forms carrying the request id and its CSRF token. The markup
// is in templates/*.html and the words in templates/strings/<locale>.json; template.ts renders them
// with every dynamic value escaped. Both are read once at start-up (scripts/build.mjs copies them
// beside the built code) and checked: a missing translation or a broken tag stops the start.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { LOCALES, isLocale, type Locale } from '../../lib/locales.ts';
import { SCOPES, type Scope } from './oauth.ts';
import { loadTemplate, type Html } from './template.ts';

// Every locale of the service (lib/locales.ts), English first: English is the pages' fallback, and
// this order is what the authorization server metadata publishes as `ui_locales_supported`.
export const PAGE_LOCALES: readonly Locale[] = ['en', ...LOCALES.filter((l) => l !== 'en')];
export type PageLocale = Locale;

const ERROR_KEYS = [
  'invalid_credentials',
  'user_inactive',
  'throttled',
  'staff',
  'google_account',
  'google_account_button',
  'google_invalid',
  'google_link_not_allowed',
  'expired',
  'unknown_client',
  'bad_redirect_uri',
  'mfa_code_required',
  'invalid_mfa_code',
] as const;
export type ErrorKey = (typeof ERROR_KEYS)[number];

/**
 * A phrase with named slots (`{client}`): exactly these, each once, so that a translation cannot
 * drop the client's name or ask for a value the page does not have.
 */
const phrase = (...slots: string[]) =>
  z.string().refine((s) => {
    const found = [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
    return JSON.stringify(found) === JSON.stringify([...slots].sort());
  }, `must hold the slots ${slots.map((n) => `{${n}}`).join(', ') || '(none)'} once each`);

const keyed = <K extends string>(keys: readonly K[]) => z.strictObject(Object.fromEntries(keys.map((k) => [k, phrase()])) as Record<K, ReturnType<typeof phrase>>);

const StringsSchema = z.strictObject({
  title: phrase(),
  signInIntro: phrase('client'),
  email: phrase(),
  password: phrase(),
  code: phrase(),
  signIn: phrase(),
  consentTitle: phrase(),
  consentIntro: phrase('client', 'host'),
  signedInAs: phrase('email'),
  scopes: keyed(SCOPES),
  notice: phrase(),
  allow: phrase(),
  deny: phrase(),
  or: phrase(),
  errors: keyed(ERROR_KEYS),
});
type Strings = z.infer<typeof StringsSchema>;

const TEMPLATES = join(dirname(fileURLToPath(import.meta.url)), 'templates');

function readStrings(locale: PageLocale): Strings {
  const file = join(TEMPLATES, 'strings', `${locale}.json`);
  const parsed = StringsSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
  if (!parsed.success) throw new Error(`${file}: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

const STRINGS = Object.fromEntries(PAGE_LOCALES.map((l) => [l, readStrings(l)])) as Record<PageLocale, Strings>;

/** The phrase with its slots filled in one pass (a value that looks like `{host}` stays as it is); the page escapes the result. */
const fill = (text: string, values: Record<string, string>): string => text.replace(/\{(\w+)\}/g, (slot, name: string) => values[name] ?? slot);

const LAYOUT = loadTemplate(TEMPLATES, 'layout.html');
const SIGN_IN = loadTemplate(TEMPLATES, 'sign-in.html');
const CONSENT = loadTemplate(TEMPLATES, 'consent.html');
const ERROR = loadTemplate(TEMPLATES, 'error.html');

/** `ui_locales` (space-separated, first supported wins), then Accept-Language, then English. */
export function pageLocale(uiLocales: unknown, acceptLanguage: string | undefined): PageLocale {
  const supported = (tag: string): PageLocale | undefined => {
    const language = tag.trim().toLowerCase().split(/[-_]/)[0];
    return isLocale(language) ? language : undefined;
  };
  if (typeof uiLocales === 'string') {
    for (const tag of uiLocales.split(/\s+/)) {
      const hit = supported(tag);
      if (hit) return hit;
    }
  }
  if (acceptLanguage) {
    const ranked = acceptLanguage
      .split(',')
      .map((part, i) => {
        const [tag, ...params] = part.trim().split(';');
        const qp = params.find((p) => p.trim().startsWith('q='));
        const qv = qp ? Number(qp.trim().slice(2)) : 1;
        return { tag, q: Number.isFinite(qv) ? qv : 0, i };
      })
      .filter((x) => x.q > 0)
      .sort((a, b) => b.q - a.q || a.i - b.i);
    for (const { tag } of ranked) {
      if (!tag) continue;
      const hit = supported(tag);
      if (hit) return hit;
    }
  }
  return 'en';
}

export const asLocale = (l: string): PageLocale => (isLocale(l) ? l : 'en');

// Google Identity Services reads the page's origin from the Referer header (it checks the authorised
// JavaScript origins): the page with the Google button sends the origin only, never the URL (which
// carries the authorization request); the other pages send nothing.
function layout(locale: PageLocale, title: string, body: Html, referrer: 'no-referrer' | 'strict-origin' = 'no-referrer'): string {
  return LAYOUT.render({ locale, referrer, title, body }).html;
}

export interface SignInView {
  locale: PageLocale;
  requestId: string;
  csrf: string;
  clientName: string;
  email?: string;
  error?: ErrorKey;
  /** The account has a second factor: the form asks for its code too (the connector honours it like the API's sign-in). */
  askCode?: boolean;
  /**
   * Present when Google sign-in is configured: the web client id for the "Sign in with Google" button
   * (Google Identity Services, ID-token flow) and the CSP nonce of the page's scripts. The library
   * hands the ID token to a callback, which posts it with the request id and CSRF token to the same
   * sign-in endpoint as the password form: the same CSRF check applies, and Google never needs a
   * redirect URI.
   */
  google?: { clientId: string; nonce: string };
}

export const GOOGLE_GSI_CLIENT = 'https://accounts.google.com/gsi/client';

export function signInPage(v: SignInView): string {
  const t = STRINGS[v.locale];
  const body = SIGN_IN.render({
    locale: v.locale,
    title: t.title,
    intro: fill(t.signInIntro, { client: v.clientName }),
    error: v.error ? t.errors[v.error] : undefined,
    requestId: v.requestId,
    csrf: v.csrf,
    emailLabel: t.email,
    email: v.email ?? '',
    passwordLabel: t.password,
    askCode: v.askCode === true,
    codeLabel: t.code,
    signIn: t.signIn,
    google: v.google ? { clientId: v.google.clientId, nonce: v.google.nonce, or: t.or, gsiClient: GOOGLE_GSI_CLIENT } : undefined,
  });
  return layout(v.locale, t.title, body, v.google ? 'strict-origin' : 'no-referrer');
}

export interface ConsentView {
  locale: PageLocale;
  requestId: string;
  csrf: string;
  clientName: string;
  redirectHost: string;
  scopes: Scope[];
  email: string;
}

export function consentPage(v: ConsentView): string {
  const t = STRINGS[v.locale];
  const body = CONSENT.render({
    title: t.consentTitle,
    intro: fill(t.consentIntro, { client: v.clientName, host: v.redirectHost }),
    scopes: v.scopes.map((s) => ({ scope: s, description: t.scopes[s] })),
    signedInAs: fill(t.signedInAs, { email: v.email }),
    notice: t.notice,
    requestId: v.requestId,
    csrf: v.csrf,
    allow: t.allow,
    deny: t.deny,
  });
  return layout(v.locale, t.consentTitle, body);
}

export function errorPage(locale: PageLocale, error: ErrorKey): string {
  const t = STRINGS[locale];
  return layout(locale, t.title, ERROR.render({ title: t.title, message: t.errors[error] }));
}
