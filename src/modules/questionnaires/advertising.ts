// What a public page may say about a category (Directive 2001/83/EC art. 88: no advertising of
// prescription-only medicines to the public). The public texts live apart from the versioned
// questionnaires (catalogue/public/categories.json) and are refused at start-up when they name a
// medicine, a class of medicine, a brand or a dosage form. The same scanner backs the tests that
// read the public pages and endpoints (docs/compliance.md).
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { CATEGORY_SLUGS, type CategorySlug } from '../../lib/categories.ts';
import { LOCALES, type Locale } from '../../lib/locales.ts';

const CATALOGUE_ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../../catalogue');
export const PUBLIC_CATEGORIES_FILE = join(CATALOGUE_ROOT, 'public/categories.json');
export const ADVERTISING_TERMS_FILE = join(CATALOGUE_ROOT, 'public/advertising-terms.json');

const Text = z.object(Object.fromEntries(LOCALES.map((l) => [l, z.string().min(1).max(600)])) as Record<Locale, z.ZodString>).strict();
const PublicCategoriesSchema = z
  .object({ description: z.string(), categories: z.record(z.string(), z.object({ title: Text, description: Text }).strict()) })
  .strict();
const TermsSchema = z
  .object({ description: z.string(), groups: z.array(z.object({ name: z.string(), source: z.string().min(1), terms: z.array(z.string().min(2)).min(1) }).strict()).min(1) })
  .strict();

/** Lower case without accents, so "Sémaglutide" and "semaglutide" are one word. */
export const fold = (s: string) => s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

const INN_PART = /^[a-z]{5,}$/;
/**
 * Every medicine name the catalogue knows: the INNs of the treatment ids and of the prescribing
 * titration tables, each one's spelling in the seven languages (a word of a localised name that
 * starts like an INN: "Doxiciclina", "Ulipristalacetat"), the brands the names carry in brackets,
 * and the substances the prescribing files' hypersensitivity codes name.
 */
export function medicineNames(root = CATALOGUE_ROOT): string[] {
  const names = z.object({ names: z.record(z.string(), z.record(z.string(), z.string())) }).parse(JSON.parse(readFileSync(join(root, 'treatment-names.json'), 'utf8'))).names;
  const inns = new Set<string>();
  for (const id of Object.keys(names)) for (const part of id.split('-')) if (INN_PART.test(part) && part !== 'spray') inns.add(part);
  const prescribingDir = join(root, 'prescribing');
  for (const file of readdirSync(prescribingDir).filter((f) => f.endsWith('.json'))) {
    const p = z.object({ titration: z.record(z.string(), z.unknown()).optional(), absolute: z.record(z.string(), z.unknown()).optional() }).passthrough().parse(JSON.parse(readFileSync(join(prescribingDir, file), 'utf8')));
    for (const id of Object.keys(p.titration ?? {})) inns.add(fold(id));
    for (const code of Object.keys(p.absolute ?? {})) {
      const m = /^HYPERSENSITIVITY_(.+)$/.exec(code);
      if (m) for (const part of m[1]!.toLowerCase().split('_')) if (INN_PART.test(part)) inns.add(part);
    }
  }
  const out = new Set(inns);
  for (const text of Object.values(names).flatMap((n) => Object.values(n))) {
    for (const brand of text.matchAll(/\(([A-Za-z][\w-]+)\)/g)) out.add(fold(brand[1]!));
    for (const word of fold(text).split(/[^\p{L}]+/u)) {
      if (word.length >= 6 && [...inns].some((inn) => word.startsWith(inn.slice(0, 3)))) out.add(word);
    }
  }
  return [...out].sort();
}

/** The class, form and brand words of catalogue/public/advertising-terms.json (each group sourced). */
export function advertisingTerms(file = ADVERTISING_TERMS_FILE): string[] {
  const parsed = TermsSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
  return [...new Set(parsed.groups.flatMap((g) => g.terms.map(fold)))].sort();
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A checker over whole words (a term may span words: "pille danach"). */
export function advertisingChecker(terms: string[]): (text: string) => string[] {
  const patterns = terms.map((t) => ({ term: t, re: new RegExp(`(?<![\\p{L}\\p{N}])${escape(t)}(?![\\p{L}\\p{N}])`, 'u') }));
  return (text) => {
    const folded = fold(text);
    return patterns.filter((p) => p.re.test(folded)).map((p) => p.term);
  };
}

let defaultChecker: ((text: string) => string[]) | undefined;
/** The words of `text` that would make it advertising (medicine names and the sourced terms). */
export function advertisingFound(text: string): string[] {
  defaultChecker ??= advertisingChecker([...medicineNames(), ...advertisingTerms()]);
  return defaultChecker(text);
}

export interface PublicCategoryText {
  title: Record<Locale, string>;
  description: Record<Locale, string>;
}

/** Loads and checks the public texts: one per category, every locale, no advertising word. */
export function loadPublicCategories(file = PUBLIC_CATEGORIES_FILE): Map<CategorySlug, PublicCategoryText> {
  const parsed = PublicCategoriesSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
  if (!parsed.success) throw new Error(`catalogue/public/categories.json: ${z.prettifyError(parsed.error)}`);
  const out = new Map<CategorySlug, PublicCategoryText>();
  const problems: string[] = [];
  for (const slug of CATEGORY_SLUGS) {
    const entry = parsed.data.categories[slug];
    if (!entry) {
      problems.push(`${slug} has no public text`);
      continue;
    }
    for (const l of LOCALES) {
      const found = advertisingFound(`${entry.title[l]} ${entry.description[l]}`);
      if (found.length) problems.push(`${slug}.${l} names ${found.join(', ')}`);
    }
    out.set(slug, entry);
  }
  for (const slug of Object.keys(parsed.data.categories)) if (!(CATEGORY_SLUGS as readonly string[]).includes(slug)) problems.push(`unknown category ${slug}`);
  if (problems.length) throw new Error(`catalogue/public/categories.json: ${problems.join('; ')}`);
  return out;
}

// Loaded once at start-up: an invalid or advertising text stops the process, like the catalogue.
const PUBLIC_CATEGORIES = loadPublicCategories();
/** The public title and description of a category in a locale. */
export function publicCategoryText(slug: string, locale: Locale): { title: string; description: string } {
  const t = PUBLIC_CATEGORIES.get(slug as CategorySlug);
  if (!t) throw new Error(`catalogue/public/categories.json: no public text for ${slug}`);
  return { title: t.title[locale], description: t.description[locale] };
}
