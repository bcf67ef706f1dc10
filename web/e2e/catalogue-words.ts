// The English catalogue words a page in another language must not show ("Languages"): every
// localised text of the catalogue (category titles and descriptions, step titles, question texts,
// option labels, and any treatment label that is localised) whose English differs from the locale's,
// plus the category slugs as a page that falls back to them would print them ("hair growth").
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface CataloguePhrase {
  text: string;
  /** Where it is in the catalogue (for the failure message). */
  where: string;
}

function walk(node: unknown, locale: string, where: string, out: Map<string, string>) {
  if (Array.isArray(node)) {
    node.forEach((n, i) => walk(n, locale, `${where}[${i}]`, out));
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  const o = node as Record<string, unknown>;
  if (typeof o.en === 'string' && typeof o[locale] === 'string') {
    const en = o.en.trim();
    if (en && en !== String(o[locale]).trim() && !out.has(en)) out.set(en, where);
    return;
  }
  for (const [k, v] of Object.entries(o)) walk(v, locale, `${where}.${k}`, out);
}

/** The catalogue's English phrases that differ from `locale`'s (every published version of every category). */
export function englishCatalogueWords(catalogueDir: string, locale: string): CataloguePhrase[] {
  const out = new Map<string, string>();
  const dir = join(catalogueDir, 'categories');
  for (const slug of readdirSync(dir)) {
    for (const file of readdirSync(join(dir, slug)).filter((f) => f.endsWith('.json'))) {
      walk(JSON.parse(readFileSync(join(dir, slug, file), 'utf8')), locale, `${slug}/${file}`, out);
    }
    const spaced = slug.replace(/_/g, ' ');
    if (!out.has(spaced)) out.set(spaced, `${slug} (slug)`);
  }
  return [...out].map(([text, where]) => ({ text, where }));
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The phrases that occur in `text` as whole words (a phrase inside a longer word does not count:
 * "Chlamydia" is not in "Chlamydien"). Case-sensitive, except for the slugs (printed in any case).
 */
export function englishFound(text: string, phrases: CataloguePhrase[]): CataloguePhrase[] {
  return phrases.filter((p) => new RegExp(`(?<![\\p{L}\\p{N}])${escape(p.text)}(?![\\p{L}\\p{N}])`, p.where.endsWith('(slug)') ? 'iu' : 'u').test(text));
}
