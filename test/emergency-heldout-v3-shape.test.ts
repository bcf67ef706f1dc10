// Shape of the blind held-out red-flag corpus (v3). The corpus measures whether the detector
// generalises, so this test checks only its form, size and balance, and its failure messages name
// item indexes and counts, never a text: whoever tunes the detector must not learn the phrasings
// from a red test run.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// The fixed category ids of the shared red-flag taxonomy (emergency and urgent tiers).
const CATEGORIES = [
  'chest_pain', 'stroke', 'breathing', 'anaphylaxis', 'sepsis', 'meningitis', 'seizure', 'fainting',
  'overdose', 'suicidal', 'self_harm', 'heavy_bleeding', 'ectopic_pregnancy', 'priapism',
  'sudden_vision_or_hearing_loss', 'testicular_pain', 'pancreatitis', 'severe_skin_reaction',
  'serotonin_syndrome', 'hypoglycaemia', 'thrombosis', 'gallbladder', 'dehydration',
  'kidney_infection', 'liver',
] as const;
const LOCALES = ['en', 'de', 'fr', 'es', 'it', 'nl', 'pt'] as const;
const NEGATIVE_KINDS = ['history', 'negated', 'question', 'benign'] as const;
const KINDS = ['current', ...NEGATIVE_KINDS] as const;
const MIN_CURRENT_PER_CLASS_AND_LOCALE = 6;

interface Item {
  locale: string;
  text: string;
  category: string | null;
  kind: string;
}

const corpus = JSON.parse(
  readFileSync(new URL('./fixtures/emergency-heldout-v3.json', import.meta.url), 'utf8'),
) as { description: unknown; items: unknown };
const items = corpus.items as Item[];

function wordCount(text: string): number {
  return text.trim().split(/\s+/u).length;
}

function normalised(text: string): string {
  return text.normalize('NFC').toLowerCase().replace(/\s+/gu, ' ').trim();
}

describe('held-out red-flag corpus v3: shape', () => {
  it('says what it is and who may not read it', () => {
    expect(Object.keys(corpus).sort()).toEqual(['description', 'items']);
    expect(typeof corpus.description).toBe('string');
    const description = corpus.description as string;
    expect(description).toMatch(/held-out/iu);
    expect(description).toMatch(/blind/iu);
    expect(description).toMatch(/NOBODY WHO TUNES THE DETECTOR/u);
    expect(Array.isArray(corpus.items)).toBe(true);
  });

  it('has exactly the four fields of the taxonomy format, with valid values, on every item', () => {
    const bad: number[] = [];
    items.forEach((item, index) => {
      const keysOk = Object.keys(item).sort().join(',') === 'category,kind,locale,text';
      const localeOk = (LOCALES as readonly string[]).includes(item.locale);
      const kindOk = (KINDS as readonly string[]).includes(item.kind);
      const categoryOk =
        item.category === null
          ? item.kind !== 'current'
          : (CATEGORIES as readonly string[]).includes(item.category);
      const textOk = typeof item.text === 'string' && item.text === item.text.trim();
      if (!(keysOk && localeOk && kindOk && categoryOk && textOk)) bad.push(index);
    });
    expect(bad, `malformed item indexes`).toEqual([]);
  });

  it('keeps every text between 3 and 40 words', () => {
    const outOfRange = items.flatMap((item, index) => {
      const words = wordCount(item.text);
      return words < 3 || words > 40 ? [`#${index}: ${words} words`] : [];
    });
    expect(outOfRange).toEqual([]);
  });

  it('has no text twice (case and spacing ignored)', () => {
    const firstIndex = new Map<string, number>();
    const duplicates: string[] = [];
    items.forEach((item, index) => {
      const key = normalised(item.text);
      const first = firstIndex.get(key);
      if (first === undefined) firstIndex.set(key, index);
      else duplicates.push(`#${index} repeats #${first}`);
    });
    expect(duplicates).toEqual([]);
  });

  it(`has at least ${MIN_CURRENT_PER_CLASS_AND_LOCALE} current items for every class in every locale`, () => {
    const short: string[] = [];
    for (const category of CATEGORIES) {
      for (const locale of LOCALES) {
        const count = items.filter(
          (item) => item.kind === 'current' && item.category === category && item.locale === locale,
        ).length;
        if (count < MIN_CURRENT_PER_CLASS_AND_LOCALE) short.push(`${category}/${locale}: ${count}`);
      }
    }
    expect(short).toEqual([]);
  });

  it('has at least as many hard negatives as positives, of every negative kind, spread over classes and locales', () => {
    const positives = items.filter((item) => item.kind === 'current').length;
    const negatives = items.filter((item) => item.kind !== 'current');
    expect(positives).toBeGreaterThanOrEqual(CATEGORIES.length * LOCALES.length * MIN_CURRENT_PER_CLASS_AND_LOCALE);
    expect(negatives.length).toBeGreaterThanOrEqual(positives);
    for (const kind of NEGATIVE_KINDS) {
      for (const locale of LOCALES) {
        const count = negatives.filter((item) => item.kind === kind && item.locale === locale).length;
        expect(count, `${kind}/${locale}`).toBeGreaterThanOrEqual(CATEGORIES.length);
      }
    }
    const classesWithoutNegatives = CATEGORIES.flatMap((category) =>
      LOCALES.filter(
        (locale) => !negatives.some((item) => item.category === category && item.locale === locale),
      ).map((locale) => `${category}/${locale}`),
    );
    expect(classesWithoutNegatives).toEqual([]);
  });
});
