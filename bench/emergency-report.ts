// Red-flag detector report (`npm run emergency-report`): recall per class and per locale, the
// false-positive rate on the hard negatives, and the urgent tier on its own, for
// - the DEVELOPMENT corpora (test/fixtures/emergency-corpus*.json): the detector's rules and the
//   statistical layer are built and trained on them, so their figures are optimistic;
// - every HELD-OUT corpus (test/fixtures/emergency-heldout*.json), each reported on its own: never
//   read while changing patterns or training. Only the held-out figures measure generalisation.
// Both corpus formats are read: the taxonomy's ({locale, text, category, kind}) and the older one
// ({locale, text, emergency, category, history?, note?}). `--misses` lists what the detector gets
// wrong (development corpora only, unless `--heldout-misses`: reading them is looking at them).
import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { modelHits, type ModelWeights } from '../src/lib/emergency-model.ts';
import { DETECTOR_LOCALES, EMERGENCY_CATEGORIES, normaliseText, readRedFlags, repairTypos, RULES, tierOf, type EmergencyCategory } from '../src/lib/emergency.ts';

export const KINDS = ['current', 'history', 'negated', 'question', 'benign'] as const;
export type CorpusKind = (typeof KINDS)[number];

export interface CorpusItem {
  locale: string;
  text: string;
  /** The taxonomy class (for a negative: the class it looks like, or null). */
  category: string | null;
  /** current: must be detected; every other kind is a hard negative (no emergency notice). */
  kind: CorpusKind;
}

interface OldItem {
  locale: string;
  text: string;
  emergency: boolean;
  category: string | null;
  history?: string;
  note?: string;
}

const here = dirname(fileURLToPath(import.meta.url));
const FIXTURES = join(here, '../test/fixtures');

/** The corpus files of one part: development (emergency-corpus*.json, emergency-dev*.json) or held-out (emergency-heldout*.json), in name order. */
export function corpusFiles(part: 'development' | 'heldout'): string[] {
  const prefixes = part === 'development' ? ['emergency-corpus', 'emergency-dev'] : ['emergency-heldout'];
  return readdirSync(FIXTURES)
    .filter((f) => prefixes.some((prefix) => f.startsWith(prefix)) && f.endsWith('.json'))
    .sort()
    .map((f) => join(FIXTURES, f));
}

function fromOld(i: OldItem): CorpusItem {
  if (i.emergency) return { locale: i.locale, text: i.text, category: i.category, kind: 'current' };
  if (i.history) return { locale: i.locale, text: i.text, category: i.history, kind: 'history' };
  return { locale: i.locale, text: i.text, category: null, kind: i.note?.startsWith('negated') ? 'negated' : 'benign' };
}

export function loadCorpus(file: string): CorpusItem[] {
  const items = (JSON.parse(readFileSync(file, 'utf8')) as { items: (CorpusItem | OldItem)[] }).items;
  return items.map((i) => ('kind' in i ? { locale: i.locale, text: i.text, category: i.category ?? null, kind: i.kind } : fromOld(i)));
}

export const loadPart = (part: 'development' | 'heldout'): CorpusItem[] => corpusFiles(part).flatMap(loadCorpus);

export interface Figures {
  key: string;
  positives: number;
  detected: number;
  recall: number;
  negatives: number;
  /** Negatives answered with the emergency notice. */
  falsePositives: number;
  falsePositiveRate: number;
}

export interface CorpusReport {
  locales: Figures[];
  classes: Figures[];
  /** The urgent tier's classes together (gallbladder, dehydration, kidney_infection, liver): detected as urgent; negatives given the urgent answer. */
  urgent: Figures;
  total: Figures;
  /** Negatives given any answer (the emergency notice or the urgent one). */
  anyAnswerFalsePositiveRate: number;
  /** Positives answered at either tier with their class (an emergency class the model answered at the urgent tier counts here, not in recall). */
  anyTierRecall: number;
  /** Notices on hard negatives given by a rule or the lexicon, and by the model alone (no rule notice). */
  falseNoticesBy: { rule: number; model: number };
  /** Per locale and class: positives and recall. */
  cells: { locale: string; category: string; positives: number; recall: number }[];
  misses: { item: CorpusItem; got: string[] }[];
}

interface Got {
  emergency: string[];
  urgent: string[];
  /** The layers that gave the emergency notice ('rule' covers the lexicon). */
  noticeBy: string[];
}

function figures(key: string, pos: CorpusItem[], neg: CorpusItem[], got: Map<CorpusItem, Got>, hit: (i: CorpusItem) => boolean, fp: (i: CorpusItem) => boolean): Figures {
  const detected = pos.filter(hit).length;
  const falsePositives = neg.filter(fp).length;
  return {
    key,
    positives: pos.length,
    detected,
    recall: pos.length ? detected / pos.length : 1,
    negatives: neg.length,
    falsePositives,
    falsePositiveRate: neg.length ? falsePositives / neg.length : 0,
  };
}

/** `model`: another statistical layer than the shipped one (cross-validation in scripts/train-emergency-model.ts). */
export function evaluateCorpus(items: CorpusItem[], model?: ModelWeights): CorpusReport {
  const got = new Map<CorpusItem, Got>();
  for (const i of items) {
    const r = readRedFlags(i.text, model);
    got.set(i, { emergency: r.emergencies.map((m) => m.category), urgent: r.urgent.map((m) => m.category), noticeBy: [...new Set(r.emergencies.map((m) => m.by))] });
  }
  const detectedAs = (i: CorpusItem) => {
    const g = got.get(i)!;
    return !!i.category && (tierOf(i.category as EmergencyCategory) === 'urgent' ? g.urgent : g.emergency).includes(i.category);
  };
  const notice = (i: CorpusItem) => got.get(i)!.emergency.length > 0;
  const positives = items.filter((i) => i.kind === 'current');
  const negatives = items.filter((i) => i.kind !== 'current');
  const locales = DETECTOR_LOCALES.map((l) => figures(l, positives.filter((i) => i.locale === l), negatives.filter((i) => i.locale === l), got, detectedAs, notice));
  const classes = EMERGENCY_CATEGORIES.map((c) =>
    figures(c, positives.filter((i) => i.category === c), negatives.filter((i) => i.category === c), got, detectedAs, (i) => got.get(i)!.emergency.includes(c) || got.get(i)!.urgent.includes(c)),
  );
  const urgentClass = (i: CorpusItem) => !!i.category && tierOf(i.category as EmergencyCategory) === 'urgent';
  const urgent = figures('urgent tier', positives.filter(urgentClass), negatives, got, detectedAs, (i) => got.get(i)!.urgent.length > 0);
  const cells = DETECTOR_LOCALES.flatMap((locale) =>
    EMERGENCY_CATEGORIES.map((category) => {
      const pos = positives.filter((i) => i.locale === locale && i.category === category);
      return { locale, category, positives: pos.length, recall: pos.length ? pos.filter(detectedAs).length / pos.length : 1 };
    }),
  );
  const misses = [...positives.filter((i) => !detectedAs(i)), ...negatives.filter(notice)].map((item) => ({ item, got: [...got.get(item)!.emergency, ...got.get(item)!.urgent] }));
  const anyAnswer = negatives.filter((i) => got.get(i)!.emergency.length + got.get(i)!.urgent.length > 0).length;
  const anyTier = positives.filter((i) => [...got.get(i)!.emergency, ...got.get(i)!.urgent].includes(i.category!)).length;
  const falseNotices = negatives.filter(notice).map((i) => got.get(i)!.noticeBy);
  return {
    locales,
    classes,
    urgent,
    total: figures('all', positives, negatives, got, detectedAs, notice),
    anyAnswerFalsePositiveRate: negatives.length ? anyAnswer / negatives.length : 0,
    anyTierRecall: positives.length ? anyTier / positives.length : 1,
    falseNoticesBy: { rule: falseNotices.filter((b) => b.includes('rule')).length, model: falseNotices.filter((b) => !b.includes('rule')).length },
    cells,
    misses,
  };
}

export interface PatternCoverage {
  locale: string;
  category: string;
  pattern: string;
  /** Corpus texts it matches (on the text or its typo repair), whatever the reading. */
  matches: number;
}

/** Every pattern of the detector against the corpus: a dead pattern matches nothing. */
export function patternCoverage(items: CorpusItem[]): PatternCoverage[] {
  const texts = items.map((i) => {
    const t = normaliseText(i.text);
    const r = repairTypos(t);
    return r === null ? [t] : [t, r];
  });
  return Object.entries(RULES).flatMap(([locale, rules]) =>
    rules.map((rule) => {
      const re = new RegExp(`\\b(?:${rule.re})\\b`);
      return { locale, category: rule.category as string, pattern: rule.re, matches: texts.filter((ts) => ts.some((t) => re.test(t))).length };
    }),
  );
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`.padStart(7);

export function formatReport(title: string, report: CorpusReport, withMisses = false): string {
  const line = (f: Figures) => `${f.key.padEnd(30)}${String(f.positives).padStart(5)}  ${pct(f.recall)}  ${String(f.negatives).padStart(5)}  ${pct(f.falsePositiveRate)}`;
  const head = `${''.padEnd(30)}  pos   recall    neg  FP rate`;
  const out = [title, `${'locale'.padEnd(30)}${head.slice(30)}`, ...report.locales.map(line), line(report.total)];
  out.push('', `${'class (tier)'.padEnd(30)}${head.slice(30)}`, ...report.classes.map((f) => line({ ...f, key: `${f.key} (${tierOf(f.key as EmergencyCategory)[0]})` })));
  out.push('', `urgent tier: ${report.urgent.positives} positives, recall ${pct(report.urgent.recall).trim()}; negatives given the urgent answer ${pct(report.urgent.falsePositiveRate).trim()}`);
  out.push(`negatives given any answer (emergency or urgent): ${pct(report.anyAnswerFalsePositiveRate).trim()}`);
  out.push(`positives answered with their class at either tier: ${pct(report.anyTierRecall).trim()}`);
  out.push(`notices on negatives: ${report.falseNoticesBy.rule} by a rule or the lexicon, ${report.falseNoticesBy.model} by the model alone`);
  const weak = report.cells.filter((c) => c.positives > 0 && c.recall < 0.95);
  if (weak.length) out.push('cells below 0.95:', ...weak.map((c) => `  ${c.locale} ${c.category}: ${c.positives} positives, recall ${pct(c.recall).trim()}`));
  if (withMisses) for (const m of report.misses) out.push(`  ${m.item.kind === 'current' ? 'MISS' : 'FP  '} [${m.item.locale}] ${m.item.kind} ${m.item.category ?? '-'} -> ${m.got.join(',') || 'none'}: ${m.item.text}`);
  return out.join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const withMisses = process.argv.includes('--misses');
  const dev = loadPart('development');
  console.log(formatReport(`DEVELOPMENT corpora (${corpusFiles('development').map((f) => basename(f)).join(', ')}): tuned and trained on, optimistic`, evaluateCorpus(dev), withMisses));
  for (const file of corpusFiles('heldout')) {
    console.log('');
    console.log(formatReport(`HELD-OUT ${basename(file)}: never tuned on`, evaluateCorpus(loadCorpus(file)), process.argv.includes('--heldout-misses')));
  }
  const coverage = patternCoverage(dev);
  const dead = coverage.filter((p) => p.matches === 0);
  console.log(`\nPatterns: ${coverage.length}; matching no development phrase: ${dead.length}`);
  for (const d of dead) console.log(`  DEAD [${d.locale}] ${d.category}: ${d.pattern}`);
  // Speed (no wall clock in unit tests): per message on the development corpus, and on long input.
  // Warm up once, then time a second pass: wall clock and this process's CPU time (the machine may be shared).
  for (const i of dev) readRedFlags(i.text);
  const started = performance.now();
  const cpu = process.cpuUsage();
  for (const i of dev) readRedFlags(i.text);
  const perMessage = (performance.now() - started) / dev.length;
  const used = process.cpuUsage(cpu);
  const cpuPerMessage = (used.user + used.system) / 1000 / dev.length;
  console.log(`\nSpeed per development message: ${perMessage.toFixed(3)} ms wall clock, ${cpuPerMessage.toFixed(3)} ms CPU (goal < 5 ms${Math.min(perMessage, cpuPerMessage) < 5 ? '' : ', NOT MET'})`);
  // The statistical layer on its own (its features and 25 class scores per sentence run).
  const wordLists = dev.map((i) => normaliseText(i.text).trim().split(' ').filter(Boolean));
  const m0 = performance.now();
  for (const w of wordLists) modelHits(w, w.map(() => 0));
  console.log(`  of which the statistical layer: ${((performance.now() - m0) / dev.length).toFixed(3)} ms wall clock per message`);
  const long = 'lorem ipsum dolor sit amet stomach erection hours chest my the '.repeat(80).slice(0, 5000);
  const timed = (label: string, text: string, goalMs: number) => {
    const t0 = performance.now();
    readRedFlags(text);
    const ms = performance.now() - t0;
    console.log(`  ${label.padEnd(28)}${ms.toFixed(1).padStart(8)} ms  (goal < ${goalMs} ms${ms < goalMs ? '' : ', NOT MET'})`);
  };
  console.log('5000 characters:');
  timed('mixed words', long, 250);
  for (const w of ['stomach ', 'douleur au ventre ', 'dolor ', 'cant ', 'erection ']) timed(`"${w.trim()}" repeated`, w.repeat(Math.ceil(5000 / w.length)).slice(0, 5000), 1000);
}
