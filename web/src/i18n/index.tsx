// Seven locales (de en es fr it nl pt), each complete (typed Dict). The profile's locale wins once
// signed in; before that the browser's language. English is in the first page's script; every other
// dictionary is its own chunk, loaded before the app first renders in that language (main.tsx) and
// before a switch to it (loadLocale), so a visitor downloads one language, not seven.
import { createContext, useContext, type ReactNode } from 'react';
import { en, type Dict, type Key } from './en';

export const LOCALES = ['en', 'de', 'es', 'fr', 'it', 'nl', 'pt'] as const;
export type Locale = (typeof LOCALES)[number];
export const LOCALE_NAMES: Record<Locale, string> = { en: 'English', de: 'Deutsch', es: 'Español', fr: 'Français', it: 'Italiano', nl: 'Nederlands', pt: 'Português' };

const DICTS: Partial<Record<Locale, Dict>> = { en };
const LOADERS: Record<Exclude<Locale, 'en'>, () => Promise<Dict>> = {
  de: () => import('./de').then((m) => m.de),
  es: () => import('./es').then((m) => m.es),
  fr: () => import('./fr').then((m) => m.fr),
  it: () => import('./it').then((m) => m.it),
  nl: () => import('./nl').then((m) => m.nl),
  pt: () => import('./pt').then((m) => m.pt),
};

/** Loads a locale's dictionary once (English is always there). */
export async function loadLocale(locale: Locale): Promise<void> {
  if (locale === 'en' || DICTS[locale]) return;
  DICTS[locale] = await LOADERS[locale]();
}

export const isLocale = (v: unknown): v is Locale => typeof v === 'string' && (LOCALES as readonly string[]).includes(v);

export function browserLocale(): Locale {
  const stored = typeof localStorage !== 'undefined' ? localStorage.getItem('pts.locale') : null;
  if (isLocale(stored)) return stored;
  const langs = typeof navigator !== 'undefined' ? navigator.languages ?? [navigator.language] : [];
  for (const l of langs) {
    const base = l.slice(0, 2).toLowerCase();
    if (isLocale(base)) return base;
  }
  return 'en';
}

export function translate(locale: Locale, key: Key, vars?: Record<string, string | number>): string {
  // English is the safety net: for a dictionary not loaded yet, and for a key one lacks (never at build time).
  const text = DICTS[locale]?.[key] ?? en[key] ?? key;
  return vars ? text.replace(/\{(\w+)\}/g, (m, k) => (k in vars ? String(vars[k]) : m)) : text;
}

export interface I18n {
  locale: Locale;
  t: (key: Key, vars?: Record<string, string | number>) => string;
  money: (cents: number, currency?: string) => string;
  date: (iso: string | null | undefined) => string;
  dateTime: (iso: string | null | undefined) => string;
  setLocale: (l: Locale) => void;
}

const Ctx = createContext<I18n | null>(null);

export function makeI18n(locale: Locale, setLocale: (l: Locale) => void = () => undefined): I18n {
  const tag = locale === 'en' ? 'en-GB' : locale;
  return {
    locale,
    t: (key, vars) => translate(locale, key, vars),
    money: (cents, currency = 'EUR') => new Intl.NumberFormat(tag, { style: 'currency', currency }).format(cents / 100),
    date: (iso) => (iso ? new Intl.DateTimeFormat(tag, { dateStyle: 'medium', timeZone: iso.length === 10 ? 'UTC' : undefined }).format(new Date(iso)) : '—'),
    dateTime: (iso) => (iso ? new Intl.DateTimeFormat(tag, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso)) : '—'),
    setLocale,
  };
}

export function I18nProvider({ value, children }: { value: I18n; children: ReactNode }) {
  return <Ctx.Provider value={value}>{children}</Ctx.Provider>;
}

export function useI18n(): I18n {
  return useContext(Ctx) ?? makeI18n('en');
}
