// The red-flag detector, class by class and locale by locale, on the DEVELOPMENT corpora (never the
// held-out ones), and the symptom lexicon (src/lib/emergency-lexicon.ts) with the reading rules it
// relies on (negation, past history, questions, idioms). Pure: no database.
import { describe, expect, it } from 'vitest';
import { evaluateCorpus, loadPart } from '../bench/emergency-report.ts';
import { DETECTOR_LOCALES, EMERGENCY_CATEGORIES, normaliseText, readRedFlags, tierOf, type EmergencyCategory } from '../src/lib/emergency.ts';
import { LEXICON, lexiconHits } from '../src/lib/emergency-lexicon.ts';

const dev = loadPart('development');
const heard = (text: string, category: EmergencyCategory) => {
  const r = readRedFlags(text);
  return (tierOf(category) === 'urgent' ? r.urgent : r.emergencies).some((m) => m.category === category);
};
const anyNotice = (text: string) => readRedFlags(text).emergencies.length > 0;

describe('every class in every locale (development corpora)', () => {
  const report = evaluateCorpus(dev);

  it('has at least 1,500 positives and 1,500 hard negatives', () => {
    expect(report.total.positives).toBeGreaterThanOrEqual(1500);
    expect(report.total.negatives).toBeGreaterThanOrEqual(1500);
  });

  for (const category of EMERGENCY_CATEGORIES) {
    it(`${category}: heard in every locale (each cell's recall >= 0.9, at least one phrase heard)`, () => {
      for (const locale of DETECTOR_LOCALES) {
        const cell = report.cells.find((c) => c.locale === locale && c.category === category)!;
        expect(cell.positives, `${locale} ${category} positives`).toBeGreaterThan(0);
        expect(cell.recall, `${locale} ${category} recall`).toBeGreaterThanOrEqual(0.9);
      }
    });
  }

  it('hard negatives (history, negated, questions, idioms) get no emergency notice: <= 5 % per locale, <= 10 % per class', () => {
    for (const row of report.locales) expect(row.falsePositiveRate, `${row.key}`).toBeLessThanOrEqual(0.05);
    for (const row of report.classes) if (row.negatives >= 10) expect(row.falsePositiveRate, `${row.key}`).toBeLessThanOrEqual(0.1);
  });
});

describe('the symptom lexicon', () => {
  it('names a source sign list for every class it holds, each a taxonomy class with at least one combination of its own signs', () => {
    for (const [category, c] of Object.entries(LEXICON)) {
      expect(EMERGENCY_CATEGORIES as readonly string[]).toContain(category);
      expect(c.combos.length).toBeGreaterThan(0);
      for (const combo of c.combos) for (const s of combo) expect(Object.keys(c.signs), `${category} ${s}`).toContain(s);
    }
  });

  // Phrasings written for this test (not in any corpus): signs together, in another order and language mix.
  const cases: [EmergencyCategory, string][] = [
    ['stroke', 'papa heeft ineens een scheve mond en praat onduidelijk'],
    ['stroke', 'suddenly my mother cant lift her left arm, please help'],
    ['sepsis', 'er hat Schüttelfrost und ist seit einer Stunde total verwirrt'],
    ['meningitis', 'fievre a 39 et la nuque raide chez mon fils'],
    ['serotonin_syndrome', 'after priligy + my sertraline im sweating and twitching like mad'],
    ['thrombosis', 'wade links geschwollen und rot, tut beim gehen weh'],
    ['gallbladder', 'wegovy since june, now fever and pain under the right ribs'],
    ['dehydration', 'diarrea desde el lunes y casi no orino, mareada'],
    ['self_harm', 'she is cutting her wrists again'],
    ['suicidal', 'je voudrais juste dormir et ne plus me reveiller'],
    ['overdose', 'ho preso 14 compresse di sertralina stasera'],
    ['severe_skin_reaction', 'blaren over mijn hele lijf en koorts sinds de doxy'],
  ];
  for (const [category, text] of cases) {
    it(`hears ${category}: "${text}"`, () => expect(heard(text, category)).toBe(true));
  }

  it('does not count a negated sign ("no fever", "kein Fieber")', () => {
    expect(lexiconHits(normaliseText('stiff neck but no fever'), () => true).some((h) => h.category === 'meningitis')).toBe(true);
    expect(heard('stiff neck from sleeping badly but no fever, no rash', 'meningitis')).toBe(false);
    expect(heard('Rückenschmerzen links, kein Fieber', 'kidney_infection')).toBe(false);
  });
});

describe('reading: past, resolved, questions and idioms are not a notice', () => {
  const negatives = [
    'tuve ideas suicidas hace años, ahora bien',
    'I took 2 paracetamol for a headache, ok with sildenafil?',
    'the doctor told me to double my dose next week',
    'I took 20 minutes to fill in the form',
    'Erhöht Viagra das Schlaganfallrisiko?',
    'como se reconoce una sepsis?',
    'my laptop had a fit and crashed',
    'I nearly fainted when I saw the price',
    'sourd d une oreille depuis l enfance',
    'overdose de series ce week-end',
    'the side effects are killing me, nausea every morning',
    'mild sunburn peeling after the beach, on doxy',
    'dolori muscolari al petto dopo la palestra',
    'niente bocca storta ne braccio debole',
  ];
  for (const text of negatives) it(`no notice: "${text}"`, () => expect(anyNotice(text)).toBe(false));

  it('"at once" and "in una volta" are not history: a whole pack taken at once stays an emergency', () => {
    expect(heard('I have taken all my tablets at once', 'overdose')).toBe(true);
    expect(heard('ho preso 10 compresse in una volta', 'overdose')).toBe(true);
  });

  it('a number written by a patient for a time is not a count of tablets, and two tablets are not an overdose', () => {
    expect(heard('the election count took 5 hours', 'overdose')).toBe(false);
    expect(heard('took 12 of my sertraline an hour ago', 'overdose')).toBe(true);
  });

  it('an illness in infancy is history, a dose taken as the doctor ordered ("wie verordnet") is not an overdose; a child who is a baby now still counts', () => {
    for (const text of ['tuve meningitis de bebe, sin secuelas, puedo tomar finasterida?', 'ho avuto la meningite da neonato, nessuna conseguenza', 'tive meningite em bebe, sem sequelas']) {
      expect(heard(text, 'meningitis'), text).toBe(false);
      expect(readRedFlags(text).history.map((m) => m.category), text).toContain('meningitis');
    }
    expect(heard('habe heute früh wie verordnet meine zwei tabletten genommen', 'overdose')).toBe(false);
    expect(heard('mein baby hat fieber, einen steifen nacken und erbricht', 'meningitis')).toBe(true);
  });

  it('ectopic pregnancy: compound pain words and "low on my right side" are the lexicon’s signs', () => {
    const lexicon = (text: string) => lexiconHits(normaliseText(text), () => true).some((h) => h.category === 'ectopic_pregnancy');
    for (const text of ['pille danach genommen, jetzt starke einseitige bauchschmerzen', 'zwanger, hevige buikpijn aan een kant', 'pregnant, sharp pain low on my right side', 'positive test, pain in the tip of my shoulder']) {
      expect(lexicon(text), text).toBe(true);
      expect(heard(text, 'ectopic_pregnancy'), text).toBe(true);
    }
  });
});
