// Country names follow the page's language (Intl.DisplayNames), not the catalogue's English.
import { describe, expect, it } from 'vitest';
import { COUNTRIES, countryName, countryOptions } from '../src/countries';

describe('countries', () => {
  it('names every catalogue country in the page language and sorts them for it', () => {
    expect(countryName('DEU', 'de')).toBe('Deutschland');
    expect(countryName('ESP', 'es')).toBe('España');
    expect(countryName('NLD', 'fr')).toBe('Pays-Bas');
    const de = countryOptions('de');
    expect(de).toHaveLength(COUNTRIES.length);
    // Every code has a localised name (a missing alpha-2 would leave the English one in German).
    for (const c of COUNTRIES) if (!['Island', 'Liechtenstein', 'Malta', 'Luxemburg', 'Portugal'].includes(countryName(c.code, 'de'))) expect(countryName(c.code, 'de'), c.code).not.toBe(c.name);
    expect(de.map((o) => o.label)).toEqual([...de.map((o) => o.label)].sort((a, b) => a.localeCompare(b, 'de')));
  });
});
