// The catalogue files are valid, complete and consistent; the loader refuses broken files.
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CATALOGUE_DIR, CATEGORY_SLUGS, currentVersion, findTreatment, getCategory, getVersion, listCategories, loadCatalogue, pickLocale, renewalScreen, TREATMENT_NAMES_FILE,
} from '../src/modules/questionnaires/catalogue.ts';
import { ALTERNATIVE_CODES } from '../src/modules/questionnaires/messages.ts';

describe('catalogue', () => {
  it('loads and validates all eight categories', () => {
    const cats = loadCatalogue();
    expect([...cats.keys()].sort()).toEqual([...CATEGORY_SLUGS].sort());
    expect(listCategories().map((c) => c.slug)).toEqual([...CATEGORY_SLUGS]);
    expect(new Set(listCategories().map((c) => c.id)).size).toBe(8);
  });

  it('exposes treatments, versions and renewal screens', () => {
    expect(getCategory('astrology')).toBeUndefined();
    const sema = findTreatment('weight_loss', 'semaglutide')!;
    expect(sema.dosage_ladder).toEqual(['0.25 mg', '0.5 mg', '1 mg', '1.7 mg', '2.4 mg']);
    expect(sema.min_weeks_per_step).toBe(4);
    expect(sema.supply_days).toBe(28);
    expect(sema.currency).toBe('EUR');
    expect(findTreatment('hair_growth', 'finasteride')!.supply_days).toBe(30);
    expect(findTreatment('hair_growth', 'nope')).toBeUndefined();
    expect(getCategory('weight_loss')!.default_plan).toBe('subscription');
    expect(getCategory('hair_growth')!.default_plan).toBe('subscription');
    for (const s of CATEGORY_SLUGS.filter((x) => x !== 'weight_loss' && x !== 'hair_growth')) expect(getCategory(s)!.default_plan).toBe('one_off');
    for (const s of CATEGORY_SLUGS) {
      const v = currentVersion(s)!;
      expect(getVersion(v.id)).toBe(v);
      const screen = renewalScreen(s)!;
      expect(screen.safety_steps.length).toBeGreaterThan(0);
      // The whole questionnaire but its photo questions (a renewal takes no uploads).
      const withoutPhotos = v.steps.map((st) => ({ ...st, questions: st.questions.filter((q) => q.type !== 'photo') })).filter((st) => st.questions.length > 0);
      expect(screen.review_steps).toEqual(withoutPhotos);
      for (const t of getCategory(s)!.treatments) {
        expect(t.one_off_price_cents).toBeGreaterThan(0);
        expect(t.dosages.length).toBeGreaterThan(0);
      }
    }
    const wl = renewalScreen('weight_loss')!.safety_steps.flatMap((st) => st.questions.map((q) => q.question_key));
    expect(wl).toEqual(expect.arrayContaining(['current_weight_kg', 'significant_side_effects', 'pregnant_or_planning', 'new_medication']));
  });

  it('every rule names a source and a known alternative; every category has red flags', () => {
    for (const s of CATEGORY_SLUGS) {
      const v = currentVersion(s)!;
      expect(v.rules.some((r) => r.kind === 'red_flag')).toBe(true);
      for (const r of v.rules) {
        expect(r.source).toMatch(/^(UNSOURCED|[A-Z]+\d)/);
        if (r.alternative) expect(ALTERNATIVE_CODES).toContain(r.alternative);
      }
    }
  });

  it('refuses a file with a missing translation or an unknown question in a rule', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cat-'));
    cpSync(CATALOGUE_DIR, dir, { recursive: true });
    const file = join(dir, 'chlamydia/v1.json');
    const good = readFileSync(file, 'utf8');
    const json = JSON.parse(good);
    delete json.category.title.pt;
    writeFileSync(file, JSON.stringify(json));
    expect(() => loadCatalogue(dir)).toThrow(/chlamydia/);
    const json2 = JSON.parse(good);
    json2.version.rules[0].when = { answer: 'no_such_question', eq: true };
    writeFileSync(file, JSON.stringify(json2));
    expect(() => loadCatalogue(dir)).toThrow(/unknown question/);
  });

  it('refuses renewal rules on unknown renewal questions and an elapsing question that is not a number', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cat-'));
    cpSync(CATALOGUE_DIR, dir, { recursive: true });
    const file = join(dir, 'hair_growth/v2.json');
    const good = JSON.parse(readFileSync(file, 'utf8'));
    const bad = structuredClone(good);
    bad.version.renewal.rules[0].when = { answer: 'hair_loss_pattern', eq: 'gradual' };
    writeFileSync(file, JSON.stringify(bad));
    expect(() => loadCatalogue(dir)).toThrow(/renewal FINASTERIDE_SUICIDAL_THOUGHTS: unknown question hair_loss_pattern/);
    const bad2 = structuredClone(good);
    bad2.version.steps[1].questions[0].elapses = 'hours';
    writeFileSync(file, JSON.stringify(bad2));
    expect(() => loadCatalogue(dir)).toThrow(/only a number question elapses/);
    const bad3 = structuredClone(good);
    bad3.version.renewal.rules[1].when = { answer: 'mood_changes', eq: 'cheerful' };
    writeFileSync(file, JSON.stringify(bad3));
    expect(() => loadCatalogue(dir)).toThrow(/unknown option cheerful/);
  });

  it('the newest version is current; older versions stay loaded for the drafts and submissions that reference them', () => {
    // Version 3: strength limits of interactions (sexual_health, emergency_contraception), PrEP tests (hiv_prep);
    // breastfeeding (chlamydia); the eating-disorder screen, BMI floor and age caution (weight_loss).
    // Version 3 of urinary_tract_infection: the eGFR of the lab report (nitrofurantoin below 45); of hair_growth: the clinical photos.
    const V3 = ['sexual_health', 'emergency_contraception', 'hiv_prep', 'chlamydia', 'weight_loss', 'urinary_tract_infection', 'hair_growth'];
    for (const s of CATEGORY_SLUGS) {
      const c = getCategory(s)!;
      // Version 4 of hiv_prep: the hepatitis B test's date, the eGFR as a lab report gives it.
      const numbers = s === 'hiv_prep' ? [1, 2, 3, 4] : V3.includes(s) ? [1, 2, 3] : [1, 2];
      expect(c.versions.map((v) => v.number)).toEqual(numbers);
      expect(currentVersion(s)!.number).toBe(numbers.at(-1));
      expect(getVersion(c.versions[0]!.id)!.number).toBe(1);
    }
  });

  it('a strength limit names strengths of its treatments; strengths belong to limit rules only', () => {
    const good = JSON.parse(readFileSync(join(CATALOGUE_DIR, 'sexual_health', 'v3.json'), 'utf8'));
    const dir = mkdtempSync(join(tmpdir(), 'cat-limit-'));
    cpSync(CATALOGUE_DIR, dir, { recursive: true });
    const file = join(dir, 'sexual_health', 'v3.json');
    const bad = structuredClone(good);
    bad.version.rules.find((r: { code: string }) => r.code === 'SILDENAFIL_25MG_CYP3A4_INHIBITOR').strengths = ['12.5 mg'];
    writeFileSync(file, JSON.stringify(bad));
    expect(() => loadCatalogue(dir)).toThrow(/sildenafil has no strength 12.5 mg/);
    const bad2 = structuredClone(good);
    bad2.version.rules.find((r: { code: string }) => r.code === 'PRIAPISM_RISK_OR_PENILE_DEFORMITY').strengths = ['25 mg'];
    writeFileSync(file, JSON.stringify(bad2));
    expect(() => loadCatalogue(dir)).toThrow(/belong to limit_strengths rules/);
  });

  it('every product asks for hypersensitivity to its active substance (SmPC 4.3)', () => {
    for (const s of CATEGORY_SLUGS) {
      const v = currentVersion(s)!;
      for (const t of getCategory(s)!.treatments) {
        const covered = v.rules.some((r) => /HYPERSENSITIVITY|ALLERGY/.test(r.code) && (r.kind === 'ineligible' || r.treatments?.includes(t.treatment_id)));
        expect(covered, `${s}/${t.treatment_id}`).toBe(true);
      }
    }
  });

  it("names every treatment in every locale: English is the category file's name, INN spelling per language", () => {
    for (const c of listCategories()) {
      for (const t of c.treatments) {
        expect(t.names.en, t.treatment_id).toBe(t.name);
        for (const l of ['de', 'es', 'fr', 'it', 'nl', 'pt'] as const) expect(t.names[l].length, `${t.treatment_id} ${l}`).toBeGreaterThan(0);
      }
    }
    const fin = findTreatment('hair_growth', 'finasteride')!.names;
    expect([fin.de, fin.fr, fin.es]).toEqual(['Finasterid 1 mg Tabletten', 'Finastéride 1 mg comprimés', 'Finasterida 1 mg comprimidos']);
    // Brand names stay.
    expect(findTreatment('weight_loss', 'semaglutide')!.names.de).toBe('Semaglutid (Wegovy) Pen');
  });

  it('refuses a treatment without names, a stale English name, a missing locale and names of unknown treatments', () => {
    const good = JSON.parse(readFileSync(TREATMENT_NAMES_FILE, 'utf8'));
    const file = join(mkdtempSync(join(tmpdir(), 'cat-names-')), 'treatment-names.json');
    const refuses = (change: (j: typeof good) => void, message: RegExp) => {
      const j = structuredClone(good);
      change(j);
      writeFileSync(file, JSON.stringify(j));
      expect(() => loadCatalogue(CATALOGUE_DIR, file)).toThrow(message);
    };
    refuses((j) => delete j.names.finasteride, /hair_growth\/v1.json: treatment finasteride has no names/);
    refuses((j) => (j.names.minoxidil.en = 'Minoxidil'), /minoxidil: its English name .* is not "Minoxidil 5 % solution"/);
    refuses((j) => delete j.names.tadalafil.fr, /treatment-names.json/);
    refuses((j) => (j.names.aspirin = { ...j.names.tadalafil }), /unknown treatments aspirin/);
    writeFileSync(file, JSON.stringify(good));
    expect(loadCatalogue(CATALOGUE_DIR, file).get('hair_growth')!.treatments[0]!.names.de).toBe('Finasterid 1 mg Tabletten');
  });

  it('picks the locale from ?locale= then Accept-Language', () => {
    expect(pickLocale('nl', 'de')).toBe('nl');
    expect(pickLocale(undefined, 'xx, pt-BR;q=0.8, de;q=0.9')).toBe('de');
    expect(pickLocale('zz', 'ja')).toBe('en');
    expect(pickLocale(undefined, undefined)).toBe('en');
  });
});

describe('renewal screens for the subscriptions module', () => {
  it('localises the safety screen and validates answers against it', async () => {
    const { localisedSteps } = await import('../src/modules/questionnaires/catalogue.ts');
    const { validateAnswers } = await import('../src/modules/questionnaires/service.ts');
    const { missingAnswers } = await import('../src/modules/questionnaires/engine.ts');
    const screen = renewalScreen('weight_loss')!;
    const de = localisedSteps(screen.safety_steps, 'de');
    expect(de[0]?.questions[0]?.text).toBe('Ihr aktuelles Gewicht');
    const set = { category: 'weight_loss', steps: screen.safety_steps };
    const answers = validateAnswers(set, [{ step_id: 101, question_key: 'current_weight_kg', value: 88 }]);
    const prof = { date_of_birth: '1980-01-01', gender: '0', country_of_residence: 'DEU' };
    expect(missingAnswers(set, prof, answers, new Date())).toEqual(['significant_side_effects', 'new_medication', 'eating_disorder_signs']);
    expect(() => validateAnswers(set, [{ step_id: 101, question_key: 'current_weight_kg', value: 1 }])).toThrow();
  });
});

describe('published versions are immutable', () => {
  it('every version file matches its recorded hash, and every file is recorded', async () => {
    const { createHash } = await import('node:crypto');
    const { readdirSync } = await import('node:fs');
    const recorded = JSON.parse(readFileSync(join(CATALOGUE_DIR, '../published-versions.json'), 'utf8')).versions as Record<string, string>;
    const files = readdirSync(CATALOGUE_DIR).flatMap((s) => readdirSync(join(CATALOGUE_DIR, s)).map((f) => `${s}/${f}`));
    expect(files.sort()).toEqual(Object.keys(recorded).sort());
    for (const f of files) expect(createHash('sha256').update(readFileSync(join(CATALOGUE_DIR, f))).digest('hex'), f).toBe(recorded[f]);
  });
});
