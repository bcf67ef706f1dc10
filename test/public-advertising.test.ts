// No advertising of prescription-only medicines to the public (Directive 2001/83/EC art. 88 and 90;
// docs/compliance.md): what a signed-out visitor reads (the categories endpoint in every locale, the
// public pages' strings, the page title and meta tags) names no medicine (INN or brand of the
// catalogue), no class of medicine, no dosage form and no strength.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCALES } from '../src/lib/locales.ts';
import { advertisingChecker, advertisingFound, advertisingTerms, loadPublicCategories, medicineNames } from '../src/modules/questionnaires/advertising.ts';
import { call, createTestContext, type TestContext } from './support/harness.ts';

const STRENGTH = /\d+(?:[.,]\d+)?\s?(?:mg|µg|mcg|g|ml|%)(?![\p{L}])/iu;
const offending = (text: string) => [...advertisingFound(text), ...(STRENGTH.test(text) ? [`strength ${STRENGTH.exec(text)![0]}`] : [])];

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => {
  await ctx?.close();
});

describe('the words that make a text advertising', () => {
  it('come from the catalogue: every INN in each language and the brands in brackets', () => {
    const names = medicineNames();
    for (const w of ['semaglutide', 'semaglutid', 'tirzepatida', 'doxiciclina', 'ulipristalacetat', 'sildenafilo', 'emtricitabine', 'tenofovir', 'wegovy', 'mounjaro', 'fortacin', 'lidocaine', 'prilocaine'])
      expect(names, w).toContain(w);
  });

  it('find a medicine, a brand, a class or a form in any language, as whole words', () => {
    expect(advertisingFound('Weekly GLP-1 injections with medical supervision')).toEqual(expect.arrayContaining(['glp-1', 'injections']));
    expect(advertisingFound('Sémaglutide (Wegovy) stylo')).toEqual(expect.arrayContaining(['semaglutide', 'wegovy', 'stylo']));
    expect(advertisingFound('Die Abnehmspritze, jetzt online')).toContain('abnehmspritze');
    expect(advertisingFound('Sildenafil tablets')).toEqual(expect.arrayContaining(['sildenafil', 'tablets']));
    expect(advertisingFound('The morning-after pill')).toContain('morning-after pill');
    expect(advertisingFound('Viagra')).toContain('viagra');
    // Whole words: "open" is not "pen", "Spending" not "pen", "prepared" not "prep".
    expect(advertisingFound('Open the page when prepared; spending is tracked.')).toEqual([]);
  });

  it('every group of the terms file names its source', () => {
    const file = JSON.parse(readFileSync(new URL('../catalogue/public/advertising-terms.json', import.meta.url), 'utf8')) as { groups: { source: string; terms: string[] }[] };
    for (const g of file.groups) expect(g.source.length).toBeGreaterThan(20);
    expect(advertisingTerms().length).toBeGreaterThan(100);
  });

  it('the public texts are refused at load when one names a medicine', () => {
    const checker = advertisingChecker(['glp-1']);
    expect(checker('Weekly GLP-1 injections')).toEqual(['glp-1']);
    expect(loadPublicCategories().size).toBe(8);
  });
});

describe('the public categories endpoint', () => {
  it('names no medicine, class, brand, form or strength in any locale, and keeps its shape', async () => {
    for (const locale of LOCALES) {
      const res = await call(ctx, 'GET', `/v1/users/questionnaires/categories/?locale=${locale}`);
      expect(res.status).toBe(200);
      expect(res.body.categories).toHaveLength(8);
      for (const c of res.body.categories) {
        expect(Object.keys(c).sort()).toEqual(['default_plan', 'description', 'id', 'price_from', 'slug', 'title', 'version', 'version_number']);
        expect(offending(`${c.title} ${c.description}`), `${locale} ${c.slug}`).toEqual([]);
        expect(typeof c.price_from.one_off_cents).toBe('number');
      }
      // No treatment id anywhere else in the body. The slugs are the spec's identifiers (hiv_prep).
      const rest = res.body.categories.map(({ slug: _slug, ...c }: Record<string, unknown>) => c);
      expect(advertisingFound(JSON.stringify(rest))).toEqual([]);
    }
  });
});

/** The dictionary entries the signed-out pages (shell, navigation, landing, treatments, footer and the compliance pages) show. */
async function publicStrings(): Promise<{ where: string; text: string }[]> {
  const out: { where: string; text: string }[] = [];
  const i18nDir = new URL('../web/src/i18n/', import.meta.url);
  for (const locale of LOCALES) {
    // A computed path: the web app's files are not part of the service's type check.
    const mod = (await import(new URL(`${locale}.ts`, i18nDir).href)) as Record<string, Record<string, string>>;
    const dict = mod[locale]!;
    for (const [key, text] of Object.entries(dict)) if (/^(app|nav|landing|treatments)\./.test(key)) out.push({ where: `${locale} ${key}`, text });
  }
  const featureDir = new URL('../web/src/features/compliance/', import.meta.url);
  for (const file of existsSync(featureDir) ? readdirSync(featureDir).filter((f) => /strings\.ts$/.test(f)) : []) {
    const mod = (await import(new URL(file, featureDir).href)) as { PUBLIC_STRINGS?: Record<string, Record<string, string>> };
    for (const [locale, dict] of Object.entries(mod.PUBLIC_STRINGS ?? {})) for (const [key, text] of Object.entries(dict)) out.push({ where: `${file} ${locale} ${key}`, text });
  }
  const html = readFileSync(join(new URL('../web/', import.meta.url).pathname, 'index.html'), 'utf8');
  out.push({ where: 'index.html <title>', text: /<title>([^<]*)<\/title>/.exec(html)![1]! });
  for (const m of html.matchAll(/<meta\s+name="(description|keywords|og:[\w:]+)"\s+content="([^"]*)"/g)) out.push({ where: `index.html meta ${m[1]}`, text: m[2]! });
  return out;
}

describe('the signed-out web pages', () => {
  it('their strings, the title and the meta tags name no medicine, class, brand, form or strength', async () => {
    const strings = await publicStrings();
    expect(strings.length).toBeGreaterThan(200);
    const found = strings.flatMap((s) => offending(s.text).map((w) => `${s.where}: ${w}`));
    expect(found).toEqual([]);
  });
});
