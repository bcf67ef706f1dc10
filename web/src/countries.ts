// Countries where the service accepts patients: the service's own catalogue file, read at build time.
// Their names are the browser's own, in the page's language (Intl.DisplayNames), sorted for it.
import data from '../../catalogue/countries.json';

export const COUNTRIES: { code: string; name: string }[] = data.countries.map((c: { code: string; name: string }) => ({ code: c.code, name: c.name }));

/** ISO 3166-1 alpha-3 (the API's codes) to alpha-2 (what Intl.DisplayNames takes). */
const ALPHA2: Record<string, string> = {
  AUT: 'AT', BEL: 'BE', BGR: 'BG', CHE: 'CH', CYP: 'CY', CZE: 'CZ', DEU: 'DE', DNK: 'DK', ESP: 'ES', EST: 'EE', FIN: 'FI', FRA: 'FR',
  GBR: 'GB', GRC: 'GR', HRV: 'HR', HUN: 'HU', IRL: 'IE', ISL: 'IS', ITA: 'IT', LIE: 'LI', LTU: 'LT', LUX: 'LU', LVA: 'LV', MLT: 'MT',
  NLD: 'NL', NOR: 'NO', POL: 'PL', PRT: 'PT', ROU: 'RO', SVK: 'SK', SVN: 'SI', SWE: 'SE',
};

/** A country's name in `locale` (the catalogue's English name when the browser has none). */
export function countryName(code: string, locale: string): string {
  const english = COUNTRIES.find((c) => c.code === code)?.name ?? code;
  const alpha2 = ALPHA2[code];
  if (!alpha2) return english;
  try {
    return new Intl.DisplayNames([locale], { type: 'region' }).of(alpha2) ?? english;
  } catch {
    return english;
  }
}

/** The select's options: every country, named and sorted in `locale`. */
export function countryOptions(locale: string): { value: string; label: string }[] {
  return COUNTRIES.map((c) => ({ value: c.code, label: countryName(c.code, locale) })).sort((a, b) => a.label.localeCompare(b.label, locale));
}
