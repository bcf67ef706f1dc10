// Emergency-wording detector report (`npm run emergency-report`): recall and false-positive rate per
// locale of src/lib/emergency.ts on the labelled corpus (test/fixtures/emergency-corpus.json, used to
// build the detector) and on the held-out corpus (test/fixtures/emergency-heldout.json, never used to
// tune it). `--misses` also lists the phrasings the detector gets wrong. The same figures are
// asserted by test/emergency-detector.test.ts.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { detectEmergency, DETECTOR_LOCALES, EMERGENCY_CATEGORIES, normaliseText, readRedFlags, repairTypos, RULES } from '../src/lib/emergency.ts';

export interface CorpusItem {
  locale: string;
  text: string;
  /** The detector must flag it. */
  emergency: boolean;
  /** Expected category when emergency (null: benign, or a negated mention). */
  category: string | null;
  /** Not an emergency, but this category must be reported as past history (shown to the team, no notice). */
  history?: string;
  note?: string;
}

export interface LocaleFigures {
  locale: string;
  positives: number;
  negatives: number;
  truePositives: number;
  falsePositives: number;
  /** Flagged, but under another category than the labelled one. */
  wrongCategory: number;
  recall: number;
  falsePositiveRate: number;
}

export interface CorpusReport {
  rows: LocaleFigures[];
  /** Per category (positives labelled with it; false positives: the category raised on a benign text). */
  classes: LocaleFigures[];
  /** Per locale and category: recall of the positives labelled with it. */
  cells: { locale: string; category: string; positives: number; recall: number }[];
  total: LocaleFigures;
  /** History items whose category was not reported as history. */
  historyMisses: CorpusItem[];
  misses: { item: CorpusItem; got: string[] }[];
}

const here = dirname(fileURLToPath(import.meta.url));
export const CORPUS_FILES = {
  main: join(here, '../test/fixtures/emergency-corpus.json'),
  heldout: join(here, '../test/fixtures/emergency-heldout.json'),
};

export const loadCorpus = (file: string): CorpusItem[] => (JSON.parse(readFileSync(file, 'utf8')) as { items: CorpusItem[] }).items;

function figures(locale: string, items: CorpusItem[], got: Map<CorpusItem, string[]>): LocaleFigures {
  const pos = items.filter((i) => i.emergency);
  const neg = items.filter((i) => !i.emergency);
  const tp = pos.filter((i) => got.get(i)!.length > 0);
  const fp = neg.filter((i) => got.get(i)!.length > 0);
  const wrong = tp.filter((i) => i.category && !got.get(i)!.includes(i.category));
  return {
    locale,
    positives: pos.length,
    negatives: neg.length,
    truePositives: tp.length,
    falsePositives: fp.length,
    wrongCategory: wrong.length,
    recall: pos.length ? tp.length / pos.length : 1,
    falsePositiveRate: neg.length ? fp.length / neg.length : 0,
  };
}

export function evaluateCorpus(items: CorpusItem[]): CorpusReport {
  const readings = new Map(items.map((i) => [i, readRedFlags(i.text)]));
  const got = new Map(items.map((i) => [i, readings.get(i)!.emergencies.map((m) => m.category as string)]));
  const rows = DETECTOR_LOCALES.map((l) => figures(l, items.filter((i) => i.locale === l), got));
  const classes = EMERGENCY_CATEGORIES.map((c) => {
    const pos = items.filter((i) => i.emergency && i.category === c);
    const neg = items.filter((i) => !i.emergency);
    const tp = pos.filter((i) => got.get(i)!.includes(c)).length;
    const fp = neg.filter((i) => got.get(i)!.includes(c)).length;
    return { locale: c, positives: pos.length, negatives: neg.length, truePositives: tp, falsePositives: fp, wrongCategory: 0, recall: pos.length ? tp / pos.length : 1, falsePositiveRate: neg.length ? fp / neg.length : 0 };
  });
  const cells = DETECTOR_LOCALES.flatMap((locale) =>
    EMERGENCY_CATEGORIES.map((category) => {
      const pos = items.filter((i) => i.locale === locale && i.emergency && i.category === category);
      return { locale, category, positives: pos.length, recall: pos.length ? pos.filter((i) => got.get(i)!.includes(category)).length / pos.length : 1 };
    }),
  );
  const historyMisses = items.filter((i) => i.history && !readings.get(i)!.history.some((m) => m.category === i.history));
  const misses = items
    .filter((i) => (got.get(i)!.length > 0) !== i.emergency || (i.emergency && i.category && !got.get(i)!.includes(i.category)))
    .map((item) => ({ item, got: got.get(item)! }));
  return { rows, classes, cells, total: figures('all', items, got), historyMisses, misses };
}

export interface PatternCoverage {
  locale: string;
  category: string;
  pattern: string;
  /** Corpus texts it matches (on the text or its typo repair), whatever the reading. */
  matches: number;
  /**
   * Texts labelled with its category (an emergency or a history item) that no other pattern of that
   * category matches: deleting the pattern loses them, so the recall or history figures drop.
   */
  sole: number;
}

/** Every pattern of the detector against the corpus: a dead pattern matches nothing, a redundant one is nowhere the only match. */
export function patternCoverage(items: CorpusItem[]): PatternCoverage[] {
  const texts = items.map((i) => {
    const t = normaliseText(i.text);
    const r = repairTypos(t);
    return r === null ? [t] : [t, r];
  });
  const all = Object.entries(RULES).flatMap(([locale, rules]) => rules.map((rule) => ({ locale, category: rule.category as string, pattern: rule.re, re: new RegExp(`\\b(?:${rule.re})\\b`) })));
  const hits = all.map((p) => new Set(texts.flatMap((ts, k) => (ts.some((t) => p.re.test(t)) ? [k] : []))));
  return all.map((p, n) => {
    const sole = [...hits[n]!].filter((k) => {
      const label = items[k]!.emergency ? items[k]!.category : items[k]!.history;
      return label === p.category && !all.some((q, m) => m !== n && q.category === p.category && hits[m]!.has(k));
    });
    return { locale: p.locale, category: p.category, pattern: p.pattern, matches: hits[n]!.size, sole: sole.length };
  });
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`.padStart(7);

export function formatReport(title: string, report: CorpusReport, withMisses = false): string {
  const line = (f: LocaleFigures) =>
    `${f.locale.padEnd(6)}${String(f.positives).padStart(5)}${String(f.negatives).padStart(5)}  ${pct(f.recall)}  ${pct(f.falsePositiveRate)}  ${String(f.wrongCategory).padStart(9)}`;
  const out = [title, 'locale  pos  neg   recall  FP rate  wrong cat', ...report.rows.map(line), line(report.total)];
  const cls = (f: LocaleFigures) => `${f.locale.padEnd(30)}${String(f.positives).padStart(5)}  ${pct(f.recall)}  ${String(f.falsePositives).padStart(5)} FP`;
  out.push('', 'category                        pos   recall', ...report.classes.map(cls));
  const weak = report.cells.filter((c) => c.recall < 1);
  if (weak.length) out.push(...weak.map((c) => `  cell ${c.locale} ${c.category}: ${c.positives} positives, recall ${pct(c.recall)}`));
  const hist = report.historyMisses.length;
  out.push(`history items: ${hist} not reported as history`);
  if (withMisses) {
    for (const h of report.historyMisses) out.push(`  HIST [${h.locale}] ${h.history}: ${h.text}`);
    for (const m of report.misses) {
      out.push(`  ${m.item.emergency ? 'MISS' : 'FP  '} [${m.item.locale}] ${m.item.category ?? '-'} -> ${m.got.join(',') || 'none'}: ${m.item.text}`);
    }
  }
  return out.join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const withMisses = process.argv.includes('--misses');
  console.log(formatReport('Labelled corpus (test/fixtures/emergency-corpus.json)', evaluateCorpus(loadCorpus(CORPUS_FILES.main)), withMisses));
  console.log('');
  console.log(formatReport('Held-out corpus (test/fixtures/emergency-heldout.json)', evaluateCorpus(loadCorpus(CORPUS_FILES.heldout)), withMisses));
  const coverage = patternCoverage(loadCorpus(CORPUS_FILES.main));
  const dead = coverage.filter((p) => p.matches === 0);
  const redundant = coverage.filter((p) => p.matches > 0 && p.sole === 0);
  console.log(`\nPatterns: ${coverage.length}; matching no labelled phrase: ${dead.length}; nowhere the only match of their category: ${redundant.length}`);
  for (const d of dead) console.log(`  DEAD [${d.locale}] ${d.category}: ${d.pattern}`);
  for (const d of redundant) console.log(`  REDUNDANT [${d.locale}] ${d.category}: ${d.pattern}`);
  // Speed on a long message and on repeated trigger words (the windowed patterns' worst case); moved
  // here from the unit test (no wall clock in unit tests). Goal: < 250 ms and < 1 s on a 5000-character text.
  const long = 'lorem ipsum dolor sit amet stomach erection hours chest my the '.repeat(80).slice(0, 5000);
  const timed = (label: string, text: string, goalMs: number) => {
    const started = performance.now();
    detectEmergency(text);
    const ms = performance.now() - started;
    console.log(`  ${label.padEnd(28)}${ms.toFixed(1).padStart(8)} ms  (goal < ${goalMs} ms${ms < goalMs ? '' : ', NOT MET'})`);
  };
  console.log('\nSpeed, 5000 characters:');
  timed('mixed words', long, 250);
  for (const w of ['stomach ', 'douleur au ventre ', 'dolor ', 'cant ', 'erection ']) timed(`"${w.trim()}" repeated`, w.repeat(Math.ceil(5000 / w.length)).slice(0, 5000), 1000);
}
