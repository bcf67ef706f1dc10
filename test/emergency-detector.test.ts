// The emergency-wording detector (src/lib/emergency.ts) on its labelled corpora, the emergency numbers
// of catalogue/countries.json and the notice text. Pure: no database. The per-locale table is printed
// (also by `npm run emergency-report`).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusFiles, evaluateCorpus, formatReport, loadCorpus, loadPart, patternCoverage } from '../bench/emergency-report.ts';
import { trainingInputs, trainingInputsHash, WEIGHTS_FILE } from '../scripts/train-emergency-model.ts';
import { COUNTRIES, countryByCode, emergencyNumberFor } from '../src/lib/countries.ts';
import {
  CATEGORY_SOURCES,
  CRISIS_CATEGORIES,
  detectEmergency,
  DETECTOR_LOCALES,
  EMERGENCY_CATEGORIES,
  emergencyCategories,
  emergencyNotice,
  mentionsDehydration,
  mentionsEmergency,
  normaliseText,
  readRedFlags,
  repairTypos,
  RULES,
  tierOf,
  TYPO_VOCABULARY,
} from '../src/lib/emergency.ts';
import { MODEL, modelHits, scoreWords } from '../src/lib/emergency-model.ts';
import { MODEL_WEIGHTS } from '../src/lib/emergency-model.weights.ts';
import { EXTRA_RULES } from '../src/lib/emergency-rules.ts';

// The development corpora only: the held-out ones (emergency-heldout*.json) are reported by
// `npm run emergency-report`, never asserted phrase by phrase here (that would be tuning on them).
const dev = loadPart('development');

describe('the development corpora', () => {
  it('cover every class of the taxonomy in every locale, with hard negatives of every kind in every locale', () => {
    expect(corpusFiles('development').length).toBeGreaterThanOrEqual(2);
    for (const i of dev) {
      expect(DETECTOR_LOCALES as readonly string[], i.text).toContain(i.locale);
      if (i.category) expect(EMERGENCY_CATEGORIES as readonly string[], i.text).toContain(i.category);
      if (i.kind === 'current') expect(i.category, i.text).not.toBeNull();
    }
    for (const c of EMERGENCY_CATEGORIES) for (const l of DETECTOR_LOCALES) expect(dev.some((i) => i.kind === 'current' && i.locale === l && i.category === c), `${l} ${c}`).toBe(true);
    for (const l of DETECTOR_LOCALES) {
      for (const kind of ['history', 'negated', 'question', 'benign'] as const) expect(dev.some((i) => i.locale === l && i.kind === kind), `${l} ${kind}`).toBe(true);
    }
    // No phrasing is in both parts: the held-out corpora are separate.
    const devTexts = new Set(dev.map((i) => normaliseText(i.text)));
    for (const file of corpusFiles('heldout')) expect(loadCorpus(file).filter((i) => devTexts.has(normaliseText(i.text))).map((i) => i.text), file).toEqual([]);
  });

  it('development figures: recall >= 0.95 in every class and every locale, false positives <= 0.05 on the hard negatives (optimistic: tuned and trained on them)', () => {
    const report = evaluateCorpus(dev);
    process.stdout.write(`\n${formatReport('Red-flag detector, development corpora', report, true)}\n`);
    for (const row of report.locales) {
      expect(row.recall, `${row.key} recall`).toBeGreaterThanOrEqual(0.95);
      expect(row.falsePositiveRate, `${row.key} false positives`).toBeLessThanOrEqual(0.05);
    }
    for (const row of report.classes) {
      expect(row.positives, `${row.key} positives`).toBeGreaterThan(0);
      expect(row.recall, `${row.key} recall`).toBeGreaterThanOrEqual(0.95);
    }
    expect(report.total.falsePositiveRate).toBeLessThanOrEqual(0.05);
    expect(report.urgent.recall).toBeGreaterThanOrEqual(0.95);
  }, 300_000);

  // The original table's patterns each have a labelled phrase; the taxonomy classes' patterns
  // (emergency-rules.ts) are listed by `npm run emergency-report` until each has one.
  it('every pattern of the original table matches a development phrase: a dead pattern fails', () => {
    const coverage = patternCoverage(dev);
    expect(coverage.length).toBe(Object.values(RULES).flat().length);
    const extra = new Set(Object.entries(EXTRA_RULES).flatMap(([l, rules]) => rules.map((r) => `${l} ${r.category}: ${r.re}`)));
    expect(coverage.filter((p) => p.matches === 0).map((p) => `${p.locale} ${p.category}: ${p.pattern}`).filter((p) => !extra.has(p))).toEqual([]);
  });
});

describe('the statistical layer', () => {
  it('ships weights trained from the current development corpora, detector and training script (their fingerprint is in the header; `npm run train:emergency -- --check` retrains and compares)', () => {
    // Any change to what the training reads, without retraining, fails here (retraining in the suite
    // took two minutes of CPU in each pass).
    expect(readFileSync(WEIGHTS_FILE, 'utf8')).toContain(`sha256 of the training inputs: ${trainingInputsHash()}`);
    expect(trainingInputs().map((f) => basename(f))).toEqual(expect.arrayContaining(['emergency.ts', 'emergency-lexicon.ts', 'emergency-model.ts', 'emergency-dev-v6.json', 'train-emergency-model.ts']));
    expect(trainingInputs().map((f) => basename(f))).not.toContain('emergency-model.weights.ts');
    expect(trainingInputs().some((f) => basename(f).startsWith('emergency-heldout'))).toBe(false);
    // The header names the hash of the weights it carries.
    expect(readFileSync(WEIGHTS_FILE, 'utf8')).toContain(`sha256 of the weights: ${createHash('sha256').update(MODEL_WEIGHTS).digest('hex')}`);
    // Small enough to ship: a few hundred KB.
    expect(MODEL_WEIGHTS.length).toBeLessThan(400_000);
    // Every taxonomy class, and two thresholds in order: the urgent tier below the emergency notice.
    expect(MODEL.classes).toEqual([...EMERGENCY_CATEGORIES]);
    expect(MODEL.thresholds.urgent).toBeGreaterThan(0);
    expect(MODEL.thresholds.urgent).toBeLessThanOrEqual(MODEL.thresholds.emergency);
    expect(MODEL.thresholds.emergency).toBeLessThan(1);
  });

  it('is deterministic: the same text gives the same scores and explanation', () => {
    const words = normaliseText('sometimes I think everyone would be better off if I was not here').trim().split(' ');
    const a = scoreWords(MODEL, words);
    const b = scoreWords(MODEL, words);
    expect(a.map((x) => x.p)).toEqual(b.map((x) => x.p));
    expect(modelHits(words, words.map(() => 0))).toEqual(modelHits(words, words.map(() => 0)));
  });

  it('explains each hit: a rule names the words it matched, the model the words of the text that raised its score (with their n-gram)', () => {
    const rule = readRedFlags('I think I am having a stroke').emergencies[0]!;
    expect(rule).toMatchObject({ category: 'stroke', by: 'rule', tier: 'emergency' });
    expect(rule.evidence.join(' ')).toMatch(/stroke/);
    let modelMatches = 0;
    for (const i of dev) {
      const r = readRedFlags(i.text);
      for (const m of [...r.emergencies, ...r.urgent]) {
        expect(m.evidence.length, m.pattern).toBeGreaterThan(0);
        if (m.by === 'rule') expect(m.tier).toBe(tierOf(m.category));
        else modelMatches++;
      }
    }
    expect(modelMatches).toBeGreaterThan(0);
    // With every threshold at zero the model hears every class; each hit's evidence is words of the
    // text, each with an n-gram (or the word, or a word pair) found in it.
    const low = { ...MODEL, thresholds: { urgent: 0, emergency: 0 } };
    const text = 'sometimes I think everyone would be better off if I was not here';
    const words = normaliseText(text).trim().split(' ');
    const hits = modelHits(words, words.map(() => 0), low);
    expect(hits.map((h) => h.category).sort()).toEqual([...EMERGENCY_CATEGORIES].sort());
    const suicidal = hits.find((h) => h.category === 'suicidal')!;
    expect(suicidal.features.length).toBeGreaterThan(0);
    for (const f of suicidal.features) {
      const [, word, feature] = /^(\S+) \((?:"(.+)"|the word), \+\d+\.\d\d\)$/.exec(f) ?? [];
      expect(words, f).toContain(word);
      if (feature) expect(` ${words.join(' ')} `, f).toContain(feature);
    }
    // The words a reader recognises: those of the suicidal wording lead, not "sometimes".
    expect(suicidal.features.slice(0, 3).join(' ')).toMatch(/better|off|here|everyone/);
  }, 300_000);

  it('a model hit is answered at the urgent tier between its thresholds and with the notice above them; never over a rule’s negated or past reading', () => {
    const text = 'sometimes I think everyone would be better off if I was not here';
    const urgentOnly = readRedFlags(text, { ...MODEL, thresholds: { urgent: 0.05, emergency: 0.999 } });
    const suicidal = urgentOnly.urgent.find((m) => m.category === 'suicidal');
    expect(suicidal).toMatchObject({ by: 'model', tier: 'urgent' });
    expect(urgentOnly.emergencies.map((m) => m.category)).not.toContain('suicidal');
    const notice = readRedFlags(text, { ...MODEL, thresholds: { urgent: 0.05, emergency: 0.05 } });
    expect(notice.emergencies.find((m) => m.category === 'suicidal')).toMatchObject({ by: 'model', tier: 'emergency' });
    // An urgent class stays urgent whatever the score.
    const allZero = { ...MODEL, thresholds: { urgent: 0, emergency: 0 } };
    expect(readRedFlags('my skin looks a bit yellow', allZero).emergencies.map((m) => m.category)).not.toContain('liver');
    // The rules' negated and past readings stand even when the model hears every class.
    const negated = readRedFlags('No chest pain, no breathlessness', allZero);
    expect([...negated.emergencies, ...negated.urgent].map((m) => m.category)).not.toContain('chest_pain');
    expect(negated.negated.find((m) => m.category === 'chest_pain')).toMatchObject({ by: 'rule' });
    const past = readRedFlags('I had chest pain last year', allZero);
    expect([...past.emergencies, ...past.urgent].map((m) => m.category)).not.toContain('chest_pain');
    expect(past.history.find((m) => m.category === 'chest_pain')).toMatchObject({ by: 'rule' });
    // Its own hits are read like a rule's: a negation earlier in the clause negates them.
    // (A negated thought of suicide goes to the desk as history, like a rule's.)
    const modelNegated = readRedFlags('I do not think everyone would be better off if I was not here', { ...MODEL, thresholds: { urgent: 0.05, emergency: 0.05 } });
    expect([...modelNegated.emergencies, ...modelNegated.urgent].map((m) => m.category)).not.toContain('suicidal');
    expect(modelNegated.history.find((m) => m.category === 'suicidal')).toMatchObject({ by: 'model' });
  });

  it('the held-out report runs on every held-out corpus and prints aggregate rows only, never an item', () => {
    for (const file of corpusFiles('heldout')) {
      const items = loadCorpus(file);
      const out = formatReport(`HELD-OUT ${file}`, evaluateCorpus(items));
      expect(out).toMatch(/^all\s+\d+\s+\d+\.\d%/m);
      expect(out).toMatch(/positives answered with their class at either tier: \d+\.\d%/);
      expect(out).toMatch(/notices on negatives: \d+ by a rule or the lexicon, \d+ by the model alone/);
      for (const c of EMERGENCY_CATEGORIES) expect(out).toContain(`${c} (`);
      expect(items.filter((i) => i.text.length > 12 && out.includes(i.text)).length, file).toBe(0);
    }
  }, 300_000);
});

describe('the detector', () => {
  it('catches the phrasings the clinical review found missed, with their category', () => {
    const cases: [string, string][] = [
      ['shortness of breath', 'breathing'], ['I cant breathe', 'breathing'], ['i cant breath', 'breathing'], ['my chest hurts', 'chest_pain'],
      ['Ich habe Suizidgedanken', 'suicidal'], ['suizidal', 'suicidal'], ['Luftnot', 'breathing'], ['me duele el pecho', 'chest_pain'],
      ['falta de aire', 'breathing'], ['j’ai mal à la poitrine', 'chest_pain'], ['me suicider', 'suicidal'], ['choc anaphylactique', 'anaphylaxis'],
      ['zelfmoordgedachten', 'suicidal'], ['falta de ar', 'breathing'],
    ];
    for (const [text, category] of cases) expect(emergencyCategories(text), text).toContain(category);
  });

  it('catches the side-effect red flags in every locale', () => {
    const cases: [string, string][] = [
      ['severe stomach pain radiating to my back and vomiting', 'pancreatitis'], ['Bauchschmerzen, die in den Rücken ausstrahlen', 'pancreatitis'],
      ['douleur au ventre qui irradie dans le dos', 'pancreatitis'], ['dolor abdominal que va a la espalda', 'pancreatitis'],
      ['dolore addominale che va alla schiena', 'pancreatitis'], ['buikpijn die naar mijn rug trekt', 'pancreatitis'], ['dor abdominal que vai para as costas', 'pancreatitis'],
      ['erection for 6 hours', 'priapism'], ['Erektion seit 5 Stunden', 'priapism'], ['érection depuis 5 heures', 'priapism'], ['erección desde hace 5 horas', 'priapism'],
      ['erezione da 5 ore', 'priapism'], ['erectie al 5 uur', 'priapism'], ['ereção há 5 horas', 'priapism'],
      ['sudden loss of vision', 'sudden_vision_or_hearing_loss'], ['plötzlicher Sehverlust', 'sudden_vision_or_hearing_loss'], ['perte soudaine de la vue', 'sudden_vision_or_hearing_loss'],
      ['pérdida repentina de visión', 'sudden_vision_or_hearing_loss'], ['perdita improvvisa della vista', 'sudden_vision_or_hearing_loss'],
      ['ik zie plotseling niets meer', 'sudden_vision_or_hearing_loss'], ['perda súbita de visão', 'sudden_vision_or_hearing_loss'],
      ['I fainted', 'fainting'], ['ohnmächtig geworden', 'fainting'], ['je me suis évanouie', 'fainting'], ['me desmayé', 'fainting'], ['sono svenuto', 'fainting'],
      ['ik ben flauwgevallen', 'fainting'], ['desmaiei', 'fainting'],
    ];
    for (const [text, category] of cases) expect(emergencyCategories(text), text).toContain(category);
  });

  it('leaves benign look-alikes alone', () => {
    for (const text of [
      'I could kill for a coffee', 'the cardiologist said my heart is fine', 'killer headache today', 'I can’t breathe through my nose, I have a cold',
      'Het is vandaag benauwd weer', 'een flauwe grap', 'ich fühle mich ohnmächtig gegenüber der Bürokratie', 'erection for an hour, all good',
      'an erection lasting 2 hours', 'I hurt myself at the gym', 'my father had a heart attack years ago', 'rendez-vous à l’aveugle', 'Blinddarm', 'svendita di fine stagione',
    ]) expect(detectEmergency(text), text).toEqual([]);
  });

  it('reads a long key word with one typo, but leaves short look-alikes alone', () => {
    expect(repairTypos(normaliseText('suacidal priapsim anaphalactic zelfmoortgedachten respirrar'))).toBe(' suicidal priapism anaphylactic zelfmoordgedachten respirar ');
    expect(repairTypos(normaliseText('nothing to repair here'))).toBeNull();
    for (const [text, category] of <[string, string][]>[['suacidal', 'suicidal'], ['priapsim', 'priapism'], ['douleur thoraxique', 'chest_pain'], ['no puedo respirrar', 'breathing'], ['Atemnott', 'breathing']]) {
      expect(emergencyCategories(text), text).toEqual([category]);
    }
    expect(TYPO_VOCABULARY.every((w) => w.length >= 7)).toBe(true);
    for (const text of ['the election count took 5 hours', 'I lost 5 kilo', 'I painted the bedroom', 'intense abdominals workout', 'sono venuto ieri', 'resto nel letto con un po di dolore alla schiena']) {
      expect(detectEmergency(text), text).toEqual([]);
    }
  });

  it('reads negation and past history in every language: no notice, history shown to the team', () => {
    for (const text of ['No chest pain', 'keine Brustschmerzen', 'no tengo dolor en el pecho', 'pas de douleur thoracique', 'nessun dolore al petto', 'geen pijn op de borst', 'sem dor no peito', 'chest pain: none', 'no fever or shortness of breath']) {
      const r = readRedFlags(text);
      expect(r.emergencies, text).toEqual([]);
      expect(r.history, text).toEqual([]);
      expect(r.negated.length, text).toBeGreaterThan(0);
    }
    for (const text of ['I had chest pain last year', 'ich hatte letztes Jahr Brustschmerzen', 'tuve dolor en el pecho el año pasado', 'j ai eu mal à la poitrine l année dernière', 'ho avuto dolore al petto l anno scorso', 'ik had vorig jaar pijn op de borst', 'tive dor no peito no ano passado', 'no chest pain since last week']) {
      const r = readRedFlags(text);
      expect(r.emergencies, text).toEqual([]);
      expect(r.history.map((m) => m.category), text).toEqual(['chest_pain']);
    }
    // Negation words that are part of the emergency, a negation that does not reach, a present marker.
    expect(emergencyCategories('Ich bekomme keine Luft')).toEqual(['breathing']);
    expect(emergencyCategories('I cant breathe')).toEqual(['breathing']);
    expect(emergencyCategories('I dont feel good my chest hurts')).toEqual(['chest_pain']);
    expect(emergencyCategories('no fever, but crushing chest pain')).toEqual(['chest_pain']);
    expect(emergencyCategories('I had chest pain last year and now it is back again')).toEqual(['chest_pain']);
    expect(emergencyCategories('I had chest pain yesterday')).toEqual(['chest_pain']);
    // A negated thought of suicide is still shown to a person.
    expect(readRedFlags('I am not suicidal').history.map((m) => m.category)).toEqual(['suicidal']);
    // Both findings of a co-occurrence can be negated: "back pain, no fever".
    expect(readRedFlags('rugpijn na het sporten, geen koorts').emergencies).toEqual([]);
  });

  it('catches the classes the second review found missing, in every locale', () => {
    const cases: [string, string][] = [
      ['I took 10 pens at once', 'overdose'], ['I feel like ending it all', 'suicidal'], ['still hard 6 hrs later', 'priapism'],
      ['llevo 5 horas con la ereccion', 'priapism'], ['ereccao ha 6 horas', 'priapism'], ['sudden pain in my left testicle', 'testicular_pain'],
      ['Blasenentzündung und jetzt Fieber und Flankenschmerzen', 'kidney_infection'], ['saignements abondants après la pilule du lendemain', 'heavy_bleeding'],
      ['test positivo e dolore da un lato', 'ectopic_pregnancy'], ['ik heb 10 pennen tegelijk gespoten', 'overdose'],
    ];
    const current = (t: string) => { const r = readRedFlags(t); return [...r.emergencies, ...r.urgent].map((m) => m.category); };
    for (const [text, category] of cases) expect(current(text), text).toContain(category);
  });

  it('reads a treatment start date as the treatment’s, not the symptom’s: the symptom of today is current (en, de, fr)', () => {
    for (const [text, category] of [
      ['started Ozempic 2 months ago, since yesterday severe stomach pain to my back and vomiting', 'pancreatitis'],
      ['Ich habe vor 2 Monaten mit Wegovy angefangen, seit gestern starke Bauchschmerzen bis in den Rücken', 'pancreatitis'],
      ['j’ai pris la pilule du lendemain il y a 3 semaines, test positif et douleur à droite depuis hier', 'ectopic_pregnancy'],
    ]) expect(emergencyCategories(text!), text).toContain(category);
    // A symptom dated in its own clause stays history.
    expect(readRedFlags('I had pancreatitis 3 years ago, can I start Ozempic?').history.map((m) => m.category)).toEqual(['pancreatitis']);
  });

  it('answers family history, hypothetical questions, negated suicidal thoughts and a blocked nose without the emergency notice', () => {
    const family = ['my father had pancreatitis, may I take Ozempic?', 'mein Vater hatte einen Schlaganfall, darf ich Tadalafil nehmen?', 'ma mère a eu une thrombose, puis-je prendre la pilule ?', 'mi padre tuvo una trombosis, puedo tomar la pildora?'];
    for (const t of family) {
      const r = readRedFlags(t);
      expect(r.emergencies, t).toEqual([]);
      expect(r.history.length, t).toBeGreaterThan(0);
    }
    for (const t of ['what if an erection lasts more than 4 hours?', 'was passiert wenn ich aus Versehen zweimal spritze?', 'can Ozempic cause pancreatitis?', 'la pilule peut-elle provoquer une thrombose ?', 'hay riesgo de sobredosis si me salto una semana']) {
      expect(readRedFlags(t).emergencies, t).toEqual([]);
    }
    for (const t of ['non ho mai pensato al suicidio', 'je ne pense pas au suicide', 'ik denk niet aan zelfmoord', 'nessun pensiero suicida', 'pas d’idées suicidaires', 'geen gedachten aan zelfdoding']) {
      const r = readRedFlags(t);
      expect(r.emergencies, t).toEqual([]);
      // Still shown to a person.
      expect(r.history.map((m) => m.category), t).toEqual(['suicidal']);
    }
    for (const t of ['blocked nose, can’t breathe through it', 'Nase total verstopft, kann nicht atmen', 'nez bouché, j’arrive pas à respirer']) expect(readRedFlags(t).emergencies, t).toEqual([]);
    // Questions do not hide the present: "my chest hurts, what should I do?".
    expect(emergencyCategories('my chest hurts, what should I do?')).toEqual(['chest_pain']);
    expect(emergencyCategories('I can’t breathe and my lips are blue, my nose is blocked too')).toEqual(['breathing']);
  });

  it('gives every class a tier; the crisis line goes with suicidal and self-harm only', () => {
    expect(EMERGENCY_CATEGORIES.filter((c) => tierOf(c) === 'urgent')).toEqual(['gallbladder', 'dehydration', 'kidney_infection', 'liver']);
    expect([...CRISIS_CATEGORIES].sort()).toEqual(['self_harm', 'suicidal']);
    expect(emergencyNotice('GBR', 'en', 'message', ['self_harm']).crisis_lines).toEqual([{ number: '116 123', label: 'Samaritans' }]);
    expect(emergencyNotice('GBR', 'en', 'message', ['chest_pain']).crisis_lines).toEqual([]);
    const urgent = emergencyNotice('DEU', 'de', 'message', ['gallbladder'], 'urgent');
    expect(urgent).toMatchObject({ tier: 'urgent', non_emergency: [{ number: '116117', label: expect.any(String) }] });
    expect(urgent.message).toContain('116117');
    // Questionnaires use the same owner, about the answers.
    expect(emergencyNotice('GBR', 'de', 'answers', ['suicidal_thoughts']).message).toMatch(/Notaufnahme.*116 123/);
  });

  it('reads every locale whatever the patient writes in, and several categories at once', () => {
    expect(emergencyCategories('Hello, ich habe Atemnot and my chest hurts, je veux mourir')).toEqual(['chest_pain', 'breathing', 'suicidal']);
    const m = detectEmergency('MI MANCA L’ARIA');
    expect(m).toEqual([{ category: 'breathing', locale: 'it', pattern: expect.any(String), tier: 'emergency', by: 'rule', evidence: expect.any(Array) }]);
  });

  it('normalises case, accents, ligatures, ß and apostrophes', () => {
    expect(normaliseText('  J’AI  mal à la POITRINE!! ')).toBe(' j ai mal a la poitrine ');
    expect(normaliseText("I can't, cœur, Straße")).toBe(' i cant coeur strasse ');
    expect(mentionsEmergency('DOULEUR THORACIQUE')).toBe(true);
    expect(mentionsEmergency('douleur thoracique')).toBe(true);
    expect(mentionsEmergency('')).toBe(false);
  });

  // Its speed on long and adversarial input (the windowed patterns' worst case) is measured by
  // `npm run emergency-report` (bench/emergency-report.ts), not asserted here: no wall clock in unit tests.
  it('is deterministic on a 5000-character message and on repeated trigger words', () => {
    const long = 'lorem ipsum dolor sit amet stomach erection hours chest my the '.repeat(80).slice(0, 5000);
    const a = detectEmergency(long);
    expect(detectEmergency(long)).toEqual(a);
    for (const w of ['stomach ', 'douleur au ventre ', 'dolor ', 'cant ', 'erection ']) {
      const t = w.repeat(Math.ceil(5000 / w.length)).slice(0, 5000);
      expect(detectEmergency(t), w).toEqual(detectEmergency(t));
    }
  });

  it('names a source for every category', () => {
    for (const c of EMERGENCY_CATEGORIES) expect(CATEGORY_SOURCES[c]).toMatch(/spec 1|\b(?:[SEPCU]|EC)\d\w?\b|UNSOURCED|clinical facts|NHS|NICE|SmPC|leaflet/);
    expect(CATEGORY_SOURCES.priapism).toMatch(/E4/);
    expect(CATEGORY_SOURCES.sudden_vision_or_hearing_loss).toMatch(/E4/);
    expect(CATEGORY_SOURCES.fainting).toMatch(/P2/);
    expect(CATEGORY_SOURCES.pancreatitis).toMatch(/S1.*leaflet/);
  });
});

describe('dehydration in a side-effect report (a desk flag, S1)', () => {
  it('is read in each of its spellings, one phrase per pattern, in the seven languages', () => {
    for (const phrase of [
      'I think I am dehydrated after the vomiting',
      'feeling de-hydrated all day',
      "I can't keep any water down since yesterday",
      'I cannot keep fluids down',
      'Ich bin völlig dehydriert',
      'Verdacht auf Dehydration',
      'Mein Mund ist ausgetrocknet',
      'Flüssigkeitsmangel seit dem Erbrechen',
      'Die Ärztin sprach von Exsikkose',
      'Estoy deshidratada',
      'Je suis déshydraté',
      'Mi sento disidratato',
      'Estou desidratado',
      'Ik ben uitgedroogd',
      'Risico op uitdroging',
      'Er is sprake van dehydratie',
    ]) {
      expect(mentionsDehydration(phrase), phrase).toBe(true);
    }
  });

  it('leaves other reports alone', () => {
    for (const phrase of ['Mild nausea after the injection', 'I drink plenty of water', 'Leichte Übelkeit, sonst nichts', 'Un peu fatigué', 'hydration is fine', 'Trockene Haut']) {
      expect(mentionsDehydration(phrase), phrase).toBe(false);
    }
  });
});

describe('emergency numbers (catalogue/countries.json)', () => {
  const raw = JSON.parse(readFileSync(new URL('../catalogue/countries.json', import.meta.url), 'utf8')) as { countries: typeof COUNTRIES };
  const by = new Map(raw.countries.map((c) => [c.code, c]));
  const sourceUrls = (code: string) => by.get(code)!.sources.map((s) => s.url);

  it('lists the medical emergency number first where 112 is not it: Austria 144 and Italy 118 [K9]', () => {
    // Austria: 112 and 133 reach a police control room, the ambulance is 144 (RTR list).
    expect(by.get('AUT')!.emergency_numbers).toEqual(['144', '112']);
    // Italy: where no single answering centre is set up, 112 reaches the Carabinieri; 118 is the ambulance (112.gov.it).
    expect(by.get('ITA')!.emergency_numbers).toEqual(['118', '112']);
    for (const code of ['AUT', 'ITA']) expect(by.get(code)!.source, code).toMatch(/\bK9\b/);
    expect(emergencyNotice('AUT', 'de').message).toContain('rufen Sie jetzt 144 (oder 112) an');
    expect(emergencyNotice('ITA', 'it')).toMatchObject({ number: '118', numbers: ['118', '112'] });
  });

  it('lists the medical emergency number first where it is not 112 [K8]', () => {
    expect(by.get('NOR')!.emergency_numbers).toEqual(['113', '112']);
    expect(by.get('FRA')!.emergency_numbers).toEqual(['15', '112']);
    expect(by.get('CHE')!.emergency_numbers).toEqual(['144', '112']);
    expect(by.get('LIE')!.emergency_numbers).toEqual(['144', '112']);
    for (const code of ['NOR', 'FRA', 'CHE', 'LIE']) expect(by.get(code)!.source, code).toMatch(/\bK8\b/);
    // 15 is the SAMU, an emergency number: never filed as non-emergency again.
    expect(by.get('FRA')!.non_emergency.map((n) => n.number)).not.toContain('15');
  });

  it('gives every other country its sourced number: 112 in the EU [K1], 999 then 112 in the UK [K1b] and Ireland [K2]', () => {
    expect(by.get('GBR')!.emergency_numbers).toEqual(['999', '112']);
    expect(by.get('GBR')!.source).toMatch(/\bK1b\b/);
    expect(by.get('IRL')!.emergency_numbers).toEqual(['999', '112']);
    expect(by.get('IRL')!.source).toMatch(/\bK2\b/);
    const ownMedicalNumber = ['NOR', 'FRA', 'CHE', 'LIE', 'GBR', 'IRL', 'AUT', 'ITA', 'CZE', 'SVK', 'GRC', 'LVA', 'HRV', 'POL'];
    for (const c of raw.countries) {
      expect(c.source, c.code).toMatch(/\bK(?:1|1b|2|3|8|9|10)\b/);
      expect(c.emergency_numbers.every((n) => /^\d{2,6}$/.test(n)), c.code).toBe(true);
      if (!ownMedicalNumber.includes(c.code)) {
        expect(c.emergency_numbers[0], c.code).toBe('112');
        if (c.eu) expect(c.source, c.code).toMatch(/\bK1\b/);
      }
      // 112 stays shown in every country, after the medical number.
      expect(c.emergency_numbers, c.code).toContain('112');
    }
    // Spain and France stay listed with their numbers (the legal refusal is decided elsewhere).
    expect(by.get('ESP')!.emergency_numbers).toEqual(['112']);
    expect(countryByCode('FRA')?.emergency_numbers[0]).toBe('15');
    expect(COUNTRIES.length).toBe(raw.countries.length);
  });

  it('cites a national source (a page) for every country\'s medical emergency number [K10]', () => {
    expect(raw.countries.length).toBe(32);
    for (const c of COUNTRIES) {
      expect(c.emergency_numbers.length, c.code).toBeGreaterThan(0);
      expect(c.sources.length, c.code).toBeGreaterThan(0);
      for (const s of c.sources) {
        expect(s.url, c.code).toMatch(/^https?:\/\/[^\s/]+\.[a-z]{2,}/);
        expect(s.publisher.length, c.code).toBeGreaterThan(2);
        expect(s.says.length, c.code).toBeGreaterThan(10);
      }
      // What the source says names the number shown first (the one the notice tells the patient to call).
      expect(c.sources.map((s) => s.says).join(' '), c.code).toContain(c.emergency_numbers[0]);
    }
  });

  it('shows the direct medical number first where the country keeps one answered by medical dispatch [K10]', () => {
    expect(by.get('CZE')!.emergency_numbers).toEqual(['155', '112']);
    expect(by.get('SVK')!.emergency_numbers).toEqual(['155', '112']);
    expect(by.get('GRC')!.emergency_numbers).toEqual(['166', '112']);
    expect(by.get('LVA')!.emergency_numbers).toEqual(['113', '112']);
    expect(by.get('HRV')!.emergency_numbers).toEqual(['194', '112']);
    expect(by.get('POL')!.emergency_numbers).toEqual(['999', '112']);
    // Hungary: 104 is answered by the same 112 centres, so 112 stays first; Bulgaria: 150 is redirected to 112.
    expect(by.get('HUN')!.emergency_numbers).toEqual(['112', '104']);
    expect(by.get('BGR')!.emergency_numbers).toEqual(['112']);
    for (const code of ['CZE', 'SVK', 'GRC', 'LVA', 'HRV', 'POL', 'HUN', 'BGR']) expect(by.get(code)!.source, code).toMatch(/\bK10\b/);
    expect(sourceUrls('SVK')).toContain('https://www.slovensko.sk/sk/zivotne-situacie/zivotna-situacia/_sluzby-poskytovane-prostrednic/');
    expect(sourceUrls('LVA')).toContain('http://www.nmpd.gov.lv/en/');
    expect(sourceUrls('HRV')).toContain('https://www.hakom.hr/hr/hitne-sluzbe/184');
    expect(emergencyNotice('CZE', 'en')).toMatchObject({ number: '155', numbers: ['155', '112'] });
    expect(emergencyNotice('POL', 'en').message).toContain('call 999 (or 112) now');
  });

  it('shows the medical number first in the notice, then the others', () => {
    expect(emergencyNumberFor('NOR')).toBe('113');
    expect(emergencyNumberFor(null)).toBe('112');
    expect(emergencyNotice('NOR', 'en')).toEqual({ number: '113', numbers: ['113', '112'], non_emergency: [{ number: '116117', label: expect.any(String) }], codes: [], message: expect.stringContaining('call 113 (or 112) now'), tier: 'emergency', crisis_lines: [] });
    expect(emergencyNotice('DEU', 'en', 'note', ['suicidal']).codes).toEqual(['suicidal']);
    expect(emergencyNotice('DEU', 'en', 'note').message).toContain('Your note has been passed to the medical team.');
    expect(emergencyNotice('FRA', 'fr').message).toContain('appelez le 15 (ou 112) maintenant');
    expect(emergencyNotice('CHE', 'de').message).toContain('rufen Sie jetzt 144 (oder 112) an');
    expect(emergencyNotice('LIE', 'de').number).toBe('144');
    expect(emergencyNotice('DEU', 'de').message).toContain('rufen Sie jetzt 112 an');
    expect(emergencyNotice('DEU', 'de', 'report').message).toContain('Ihre Meldung wurde');
    expect(emergencyNotice('XXX', 'xx').message).toContain('call 112 now');
  });
});

describe('crisis lines (catalogue/countries.json)', () => {
  it('cites a source page for every crisis line, and names 116 123 where the country runs it (UK, Ireland, Norway, Hungary, Czechia, Poland, Slovenia)', () => {
    for (const c of COUNTRIES) for (const l of c.crisis_lines) expect(l.sources.length, `${c.code} ${l.number}`).toBeGreaterThan(0);
    for (const code of ['GBR', 'IRL', 'NOR', 'HUN', 'CZE', 'POL', 'SVN']) expect(countryByCode(code)!.crisis_lines.map((l) => l.number), code).toContain('116 123');
    expect(countryByCode('FRA')!.crisis_lines.map((l) => l.number)).toEqual(['3114']);
    expect(countryByCode('ESP')!.crisis_lines.map((l) => l.number)).toEqual(['024']);
    expect(countryByCode('NLD')!.crisis_lines.map((l) => l.number)).toEqual(['113']);
  });
});
