// Catalogue words in the page's language (issue 27): a treatment's name from the catalogue the service
// serves per locale, and the 116117 on-call service named in the page's language on the emergency screen.
// The stand-in service answers from the real catalogue files (catalogue/treatment-names.json, countries.json).
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { cleanup, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { resetCatalogueCache, useCatalogue } from '../src/components/catalogue';
import { EmergencyScreen, type EmergencyNotice } from '../src/components/Emergency';
import { I18nProvider, makeI18n, type Locale } from '../src/i18n';

const CATALOGUE = resolve(__dirname, '..', '..', 'catalogue');
const NAMES = JSON.parse(readFileSync(resolve(CATALOGUE, 'treatment-names.json'), 'utf8')).names as Record<string, Record<string, string>>;
const COUNTRIES = JSON.parse(readFileSync(resolve(CATALOGUE, 'countries.json'), 'utf8')).countries as { code: string; emergency_numbers: string[]; non_emergency: { number: string; label: string }[] }[];

beforeEach(() => resetCatalogueCache());
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const wrap = (node: React.ReactNode, locale: Locale) => <I18nProvider value={makeI18n(locale)}>{node}</I18nProvider>;

/** The service's catalogue endpoints: hair_growth's treatments named in the asked locale. */
function serveCatalogue() {
  const asked: string[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: Request | string) => {
      const url = new URL(typeof input === 'string' ? new URL(input, 'http://localhost') : input.url);
      const locale = url.searchParams.get('locale') ?? 'en';
      asked.push(`${url.pathname}?locale=${locale}`);
      const body =
        url.pathname === '/v1/users/questionnaires/hair_growth/schema/'
          ? { slug: 'hair_growth', locale, treatments: ['finasteride', 'minoxidil'].map((id) => ({ treatment_id: id, name: NAMES[id]![locale] })) }
          : { locale, categories: [{ slug: 'hair_growth', title: 'Hair loss' }] };
      return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
    }),
  );
  return asked;
}

function Treatment() {
  const c = useCatalogue(['hair_growth']);
  return <p data-testid="name">{c.treatment('hair_growth', 'finasteride', '1 mg')}</p>;
}

describe("treatment names in the page's language", () => {
  it.each([
    ['de', 'Finasterid 1 mg Tabletten 1 mg'],
    ['fr', 'Finastéride 1 mg comprimés 1 mg'],
    ['es', 'Finasterida 1 mg comprimidos 1 mg'],
    ['en', 'Finasteride 1 mg tablets 1 mg'],
  ] as const)('a %s page shows %s', async (locale, shown) => {
    const asked = serveCatalogue();
    render(wrap(<Treatment />, locale));
    await waitFor(() => expect(screen.getByTestId('name').textContent).toBe(shown));
    expect(asked).toContain(`/v1/users/questionnaires/hair_growth/schema/?locale=${locale}`);
  });
});

describe("the 116117 label in the page's language", () => {
  const notice = (code: string): EmergencyNotice => {
    const c = COUNTRIES.find((x) => x.code === code)!;
    return { number: c.emergency_numbers[0]!, numbers: c.emergency_numbers, non_emergency: c.non_emergency, codes: ['TEST'], message: '' };
  };

  it('a French page names the German on-call service in French, a German page in German', () => {
    const de = notice('DEU');
    expect(de.non_emergency).toEqual([{ number: '116117', label: 'Ärztlicher Bereitschaftsdienst' }]);
    render(wrap(<EmergencyScreen notice={de} onClose={() => undefined} />, 'fr'));
    expect(screen.getByRole('link', { name: 'Service médical de garde: 116117' }).getAttribute('href')).toBe('tel:116117');
    expect(screen.queryByText(/Bereitschaftsdienst/)).toBeNull();
    cleanup();
    render(wrap(<EmergencyScreen notice={de} onClose={() => undefined} />, 'de'));
    expect(screen.getByRole('link', { name: 'Ärztlicher Bereitschaftsdienst: 116117' })).toBeTruthy();
    cleanup();
    render(wrap(<EmergencyScreen notice={notice('FRA')} onClose={() => undefined} />, 'en'));
    expect(screen.getByRole('link', { name: 'Medical on-call service (out of hours): 116117' })).toBeTruthy();
    expect(screen.queryByText(/Permanence des soins/)).toBeNull();
  });

  it("other services keep the catalogue's label (NHS 111 is a name)", () => {
    render(wrap(<EmergencyScreen notice={notice('GBR')} onClose={() => undefined} />, 'de'));
    expect(screen.getByRole('link', { name: 'NHS 111: 111' })).toBeTruthy();
  });
});
