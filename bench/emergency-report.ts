// Emergency-wording detector report (`npm run emergency-report`): recall and false-positive rate per
// locale of src/lib/emergency.ts on the labelled corpus (test/fixtures/emergency-corpus.json, used to
// build the detector) and on the held-out corpus (test/fixtures/emergency-heldout.json, never used to
// tune it). `--misses` also lists the phrasings the detector gets wrong. The same figures are
// asserted by test/emergency-detector.test.ts.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { detectEmergency, DETECTOR_LOCALES } from '../src/lib/emergency.ts';

export interface CorpusItem {
  locale: string;
  text: string;
  /** The detector must flag it. */
  emergency: boolean;
  /** Expected category when emergency (null: benign, or a negated mention without one). */
  category: string | null;
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
  total: LocaleFigures;
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
  const got = new Map(items.map((i) => [i, detectEmergency(i.text).map((m) => m.category as string)]));
  const rows = DETECTOR_LOCALES.map((l) => figures(l, items.filter((i) => i.locale === l), got));
  const misses = items
    .filter((i) => (got.get(i)!.length > 0) !== i.emergency || (i.emergency && i.category && !got.get(i)!.includes(i.category)))
    .map((item) => ({ item, got: got.get(item)! }));
  return { rows, total: figures('all', items, got), misses };
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`.padStart(7);

export function formatReport(title: string, report: CorpusReport, withMisses = false): string {
  const line = (f: LocaleFigures) =>
    `${f.locale.padEnd(6)}${String(f.positives).padStart(5)}${String(f.negatives).padStart(5)}  ${pct(f.recall)}  ${pct(f.falsePositiveRate)}  ${String(f.wrongCategory).padStart(9)}`;
  const out = [title, 'locale  pos  neg   recall  FP rate  wrong cat', ...report.rows.map(line), line(report.total)];
  if (withMisses) {
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
}
