// Locales: every locale has every key English has (a missing key fails here, not silently in English),
// the same placeholders, no stray keys, and is really translated (not English copied over).
import { describe, expect, it } from 'vitest';
import { de } from '../src/i18n/de';
import { en } from '../src/i18n/en';
import { es } from '../src/i18n/es';
import { fr } from '../src/i18n/fr';
import { it as itDict } from '../src/i18n/it';
import { nl } from '../src/i18n/nl';
import { pt } from '../src/i18n/pt';
import { LOCALES, translate } from '../src/i18n';

const placeholders = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
const DICTS: Record<string, Record<string, string>> = { de, es, fr, it: itDict, nl, pt };

/** The keys English has that `dict` lacks or leaves empty. */
function missingKeys(dict: Record<string, unknown>): string[] {
  return Object.keys(en).filter((k) => typeof dict[k] !== 'string' || !(dict[k] as string).trim());
}

describe('locales', () => {
  it('covers the seven locales of the service', () => {
    expect([...LOCALES].sort()).toEqual(['de', 'en', 'es', 'fr', 'it', 'nl', 'pt']);
    expect(Object.keys(DICTS).sort()).toEqual(LOCALES.filter((l) => l !== 'en').sort());
  });

  it('the completeness check notices a missing or empty key', () => {
    const { ['desk.approve']: _gone, ...partial } = de;
    expect(missingKeys(partial)).toEqual(['desk.approve']);
    expect(missingKeys({ ...de, 'journal.title': ' ' })).toEqual(['journal.title']);
  });

  for (const [name, dict] of Object.entries(DICTS)) {
    describe(name, () => {
      it('has every key English has, and no other', () => {
        expect(missingKeys(dict)).toEqual([]);
        expect(Object.keys(dict).filter((k) => !(k in en))).toEqual([]);
      });
      it('keeps the placeholders of each string', () => {
        for (const [k, v] of Object.entries(dict)) expect(placeholders(v), k).toEqual(placeholders(en[k as keyof typeof en]));
      });
      it('is translated, not English copied over', () => {
        // A few strings are the same word in both languages (Consultations, Messages, Date, Note in French); most are not.
        const same = Object.keys(en).filter((k) => dict[k] === en[k as keyof typeof en]);
        expect(same.length, same.join(', ')).toBeLessThan(Object.keys(en).length * 0.1);
      });
    });
  }

  it('fills placeholders and follows the locale', () => {
    expect(translate('de', 'emergency.call', { number: '112' })).toBe('112 anrufen');
    expect(translate('nl', 'desk.approve')).toBe('Goedkeuren en voorschrijven');
    expect(translate('en', 'desk.approve')).toBe(en['desk.approve']);
  });
});
