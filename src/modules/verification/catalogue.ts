// What each category requires before a doctor may approve (catalogue/verification.json): data, not
// code, with the reason per category and its source (docs/verification.md). Validated once at load;
// a category of the service missing from the file, or an unknown one, stops the process.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { CATEGORY_SLUGS } from '../../lib/categories.ts';

export type Requirement = 'identity' | 'weight';

const Rule = z.strictObject({ identity: z.boolean(), weight: z.boolean(), why: z.string().min(10) });
const FileSchema = z.strictObject({
  format: z.literal(1),
  source: z.string().min(10),
  weight_valid_days: z.number().int().min(1).max(3650),
  categories: z.record(z.string(), Rule),
});

export const VERIFICATION_CATALOGUE_PATH = join(dirname(fileURLToPath(import.meta.url)), '../../../catalogue/verification.json');

export function parseVerificationCatalogue(text: string) {
  const parsed = FileSchema.parse(JSON.parse(text));
  const slugs = Object.keys(parsed.categories);
  const missing = CATEGORY_SLUGS.filter((c) => !slugs.includes(c));
  const unknown = slugs.filter((c) => !(CATEGORY_SLUGS as readonly string[]).includes(c));
  if (missing.length || unknown.length) throw new Error(`catalogue/verification.json: categories missing (${missing.join(', ')}) or unknown (${unknown.join(', ')})`);
  return parsed;
}

const CATALOGUE = parseVerificationCatalogue(readFileSync(VERIFICATION_CATALOGUE_PATH, 'utf8'));

/** How long a verified weight counts (days from the photo). */
export const WEIGHT_VALID_DAYS = CATALOGUE.weight_valid_days;

/** What the category requires, in a fixed order (identity first); an unknown category requires identity. */
export function requirementsOf(category: string): Requirement[] {
  const rule = CATALOGUE.categories[category] ?? { identity: true, weight: false };
  return [...(rule.identity ? (['identity'] as const) : []), ...(rule.weight ? (['weight'] as const) : [])];
}

export const VERIFICATION_CATEGORIES: readonly string[] = Object.keys(CATALOGUE.categories);
