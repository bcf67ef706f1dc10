// The journey's check for English catalogue words on a page in another language (e2e/catalogue-words.ts).
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { englishCatalogueWords, englishFound } from '../e2e/catalogue-words';

const CATALOGUE = resolve(__dirname, '..', '..', 'catalogue');

describe('English catalogue words on a German page', () => {
  const words = englishCatalogueWords(CATALOGUE, 'de');

  it('collects titles, question texts and option labels whose English differs, and the slugs', () => {
    const texts = words.map((w) => w.text);
    expect(texts).toContain('Weight loss');
    expect(texts).toContain('Chest pain');
    expect(texts).toContain('Do you have any of these right now?');
    expect(texts).toContain('hair growth');
    expect(texts).not.toContain('Gewichtsabnahme');
  });

  it('finds them as whole words only, slugs in any case', () => {
    const found = (s: string) => englishFound(s, words).map((w) => w.text);
    expect(found('Ihre Behandlung: Weight loss, 219 €')).toContain('Weight loss');
    expect(found('Gewichtsabnahme · Brustschmerzen')).toEqual([]);
    expect(found('Hair Growth: Ada Lovelace')).toContain('hair growth');
    expect(found('Haben Sie gerade eines davon? Chest painful')).not.toContain('Chest pain');
  });
});
