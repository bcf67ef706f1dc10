// Trains the red-flag detector's statistical layer (src/lib/emergency-model.ts) on the DEVELOPMENT
// corpora only (test/fixtures/emergency-corpus*.json, emergency-dev*.json; never the held-out ones)
// and writes src/lib/emergency-model.weights.ts. Deterministic: the corpus in file and item order, a
// fixed seed for the order of each epoch, a fixed number of epochs and learning-rate schedule,
// weights quantised to 8 bits; the same corpus gives the same file (`--check` retrains and compares).
// The file's header carries a fingerprint of everything the training reads (the development corpora,
// the detector's sources, this script): test/emergency-detector.test.ts recomputes it, so a change to
// any of them without retraining fails the suite in milliseconds instead of retraining there.
//
// Model: one-vs-rest logistic regression per taxonomy class over hashed binary features (character
// 2-5-grams of the normalised text, words, word pairs: featuresOf), scaled by 1/sqrt(number of
// features). A class's positives are its CURRENT items; every hard negative (history, negated,
// question, benign look-alike) and every other class is a negative.
//
// Thresholds: the development items are split by a hash of their normalised text (1 in 5 held back).
// A model trained on the other 4 in 5 reads the held-back part ALONE (no rules, with the detector's
// negation, question and history reading) at every threshold of a grid; the urgent threshold is the
// lowest whose answers (any tier) on the held-back hard negatives stay within URGENT_BUDGET, the
// emergency threshold the lowest at or above it whose emergency notices stay within NOTICE_BUDGET.
// The shipped model is then trained on every development item with those thresholds.
//
// Usage: npx tsx scripts/train-emergency-model.ts [--check | --tune | --cv]
//   --check: exit 1 if the file would change
//   --tune:  the threshold table of the held-back part (model alone), and the thresholds chosen
//   --cv:    leave-one-file-out cross-validation of the whole detector (rules + a model trained
//            without the file); the rules saw every file, so it is optimistic for them
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { corpusFiles, evaluateCorpus, loadCorpus, loadPart, type CorpusItem } from '../bench/emergency-report.ts';
import { EMERGENCY_CATEGORIES, normaliseText, readRedFlags, tierOf } from '../src/lib/emergency.ts';
import { seededRandom } from '../src/lib/seeded-random.ts';
import { BUCKETS, encodeWeights, featuresOf, fnv1a, parseWeights, type ModelWeights, type Thresholds } from '../src/lib/emergency-model.ts';

const here = dirname(fileURLToPath(import.meta.url));
export const WEIGHTS_FILE = join(here, '../src/lib/emergency-model.weights.ts');

const SEED = 40;
const EPOCHS = 24;
const L2 = 1e-5;
/** Positives of a class are about 1 in 70 items: each counts this many times. */
const POSITIVE_WEIGHT = 10;
/** The weights string stays under this many characters (the smallest quantised weights are dropped until it fits). */
const MAX_CHARS = 380_000;
/** 1 in HOLD_BACK development items (by hash of the normalised text) tune the thresholds. */
const HOLD_BACK = 5;
/** The model alone may answer (any tier) at most this share of the held-back hard negatives. */
const URGENT_BUDGET = 0.03;
/** The model alone may give the emergency notice to at most this share of the held-back hard negatives. */
const NOTICE_BUDGET = 0.01;
const GRID = [0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.93, 0.95, 0.97, 0.99];

const wordsOf = (text: string) => normaliseText(text).trim().split(' ').filter(Boolean);


/** Trains and quantises a model; the weights file's text (thresholds as given). */
export function trainWeights(items: CorpusItem[], thresholds: Thresholds): string {
  const classes = [...EMERGENCY_CATEGORIES];
  const examples = items.map((i) => {
    const ids = Int32Array.from([...featuresOf(wordsOf(i.text)).keys()].sort((a, b) => a - b));
    const label = i.kind === 'current' && i.category ? classes.indexOf(i.category as (typeof classes)[number]) : -1;
    return { ids, scale: ids.length ? 1 / Math.sqrt(ids.length) : 0, label };
  });
  const W = classes.map(() => new Float64Array(BUCKETS));
  const bias = classes.map(() => -3);
  const order = examples.map((_, n) => n);
  const next = seededRandom(SEED);
  for (let epoch = 0; epoch < EPOCHS; epoch++) {
    for (let n = order.length - 1; n > 0; n--) {
      const k = Math.floor(next() * (n + 1));
      [order[n], order[k]] = [order[k]!, order[n]!];
    }
    const rate = 1 / (1 + epoch * 0.3);
    for (const n of order) {
      const e = examples[n]!;
      for (let c = 0; c < classes.length; c++) {
        const w = W[c]!;
        let z = bias[c]!;
        for (const f of e.ids) z += w[f]! * e.scale;
        const y = e.label === c ? 1 : 0;
        const p = 1 / (1 + Math.exp(-z));
        const g = (p - y) * (y ? POSITIVE_WEIGHT : 1);
        if (Math.abs(g) < 1e-6) continue;
        for (const f of e.ids) w[f] = w[f]! - rate * (g * e.scale + L2 * w[f]!);
        bias[c] = bias[c]! - rate * g * 0.1;
      }
    }
  }
  // Quantise to -127..127 against the largest weight, then drop the smallest until the file fits.
  let max = 0;
  for (const w of W) for (const x of w) max = Math.max(max, Math.abs(x));
  const scale = max / 127;
  const all: { bucket: number; cls: number; q: number }[] = [];
  for (let b = 0; b < BUCKETS; b++) {
    for (let c = 0; c < classes.length; c++) {
      const q = Math.round(W[c]![b]! / scale);
      if (q !== 0) all.push({ bucket: b, cls: c, q });
    }
  }
  const header = { classes, bias: bias.map((x) => Math.round(x * 1000) / 1000), thresholds, scale: Number(scale.toPrecision(8)), buckets: BUCKETS };
  const room = Math.floor(((MAX_CHARS - JSON.stringify(header).length - 2) * 3) / 4 / 4);
  let keep = 1;
  while (all.filter((e) => Math.abs(e.q) >= keep).length > room) keep++;
  return encodeWeights(header, all.filter((e) => Math.abs(e.q) >= keep));
}

export const heldBack = (i: CorpusItem): boolean => fnv1a(normaliseText(i.text)) % HOLD_BACK === 0;

/** The held-back items read by the model alone: for each grid threshold, recall (any tier) and false answers. */
export function thresholdTable(model: ModelWeights, items: CorpusItem[]) {
  const low = { urgent: GRID[0]!, emergency: GRID[0]! };
  const hits = items.map((i) => {
    const r = readRedFlags(i.text, { ...model, thresholds: low }, 'model');
    return [...r.emergencies, ...r.urgent].map((m) => ({ category: m.category, score: m.score ?? 0 }));
  });
  const positives = items.flatMap((i, n) => (i.kind === 'current' ? [n] : []));
  const negatives = items.flatMap((i, n) => (i.kind === 'current' ? [] : [n]));
  return GRID.map((t) => {
    const found = positives.filter((n) => hits[n]!.some((h) => h.category === items[n]!.category && h.score >= t)).length;
    const answered = negatives.filter((n) => hits[n]!.some((h) => h.score >= t)).length;
    const notice = negatives.filter((n) => hits[n]!.some((h) => h.score >= t && tierOf(h.category) === 'emergency')).length;
    return { t, positives: positives.length, recall: found / positives.length, negatives: negatives.length, answered: answered / negatives.length, notice: notice / negatives.length };
  });
}

/** Thresholds from the held-back part: the lowest within each budget (the highest grid value when none is). */
export function tuneThresholds(items: CorpusItem[]): { thresholds: Thresholds; table: ReturnType<typeof thresholdTable> } {
  const model = parseWeights(trainWeights(items.filter((i) => !heldBack(i)), { urgent: 1, emergency: 1 }));
  const table = thresholdTable(model, items.filter(heldBack));
  const last = GRID[GRID.length - 1]!;
  const urgent = table.find((r) => r.answered <= URGENT_BUDGET)?.t ?? last;
  const emergency = table.find((r) => r.t >= urgent && r.notice <= NOTICE_BUDGET)?.t ?? last;
  return { thresholds: { urgent, emergency }, table };
}

/** The shipped model's weights text: thresholds tuned on the held-back part, then trained on every development item. */
export function train(items: CorpusItem[]): string {
  return trainWeights(items, tuneThresholds(items).thresholds);
}

/**
 * The files a training reads: the development corpora, the detector (its rules, lexicon and reading
 * of negation, questions and history tune the thresholds), the model's features, the corpus loader
 * and this script. Not the weights file itself.
 */
export function trainingInputs(): string[] {
  const lib = join(here, '../src/lib');
  const detector = readdirSync(lib)
    .filter((f) => f.startsWith('emergency') && f.endsWith('.ts') && f !== basename(WEIGHTS_FILE))
    .sort()
    .map((f) => join(lib, f));
  return [...corpusFiles('development'), ...detector, join(here, '../bench/emergency-report.ts'), fileURLToPath(import.meta.url)];
}

/** sha256 over the training inputs' names and contents, in order. */
export function trainingInputsHash(): string {
  const h = createHash('sha256');
  for (const file of trainingInputs()) h.update(`${basename(file)}\0`).update(readFileSync(file)).update('\0');
  return h.digest('hex');
}

/** The weights module's source for a trained model. */
export function weightsModule(model: string): string {
  const hash = createHash('sha256').update(model).digest('hex');
  return `// Generated by scripts/train-emergency-model.ts from the development corpora: do not edit.\n// sha256 of the weights: ${hash}\n// sha256 of the training inputs: ${trainingInputsHash()}\nexport const MODEL_WEIGHTS = ${JSON.stringify(model)};\n`;
}

/** Leave-one-file-out cross-validation of the detector (rules + a model trained without the file). */
export function crossValidate(): string[] {
  const files = corpusFiles('development');
  const out: string[] = [];
  for (const file of files) {
    const held = loadCorpus(file);
    const rest = files.filter((f) => f !== file).flatMap(loadCorpus);
    const model = parseWeights(train(rest));
    const r = evaluateCorpus(held, model);
    const alone = thresholdTable(model, held).find((x) => x.t === model.thresholds.urgent)!;
    out.push(
      `fold ${basename(file).padEnd(28)} thresholds ${model.thresholds.urgent}/${model.thresholds.emergency}: detector recall ${(r.total.recall * 100).toFixed(1)}% of ${r.total.positives}, notices on negatives ${(r.total.falsePositiveRate * 100).toFixed(1)}% of ${r.total.negatives}; model alone recall ${(alone.recall * 100).toFixed(1)}%, answers on negatives ${(alone.answered * 100).toFixed(1)}%`,
    );
  }
  return out;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const started = performance.now();
  const dev = loadPart('development');
  if (process.argv.includes('--cv')) {
    for (const line of crossValidate()) console.log(line);
  } else if (process.argv.includes('--tune')) {
    const { thresholds, table } = tuneThresholds(dev);
    console.log(`held back: ${dev.filter(heldBack).length} of ${dev.length} development items; model trained on the rest, read alone`);
    console.log('threshold  recall(any tier)  answered negatives  notices on negatives');
    for (const r of table) console.log(`${r.t.toFixed(2).padStart(9)}  ${(r.recall * 100).toFixed(1).padStart(15)}%  ${(r.answered * 100).toFixed(1).padStart(17)}%  ${(r.notice * 100).toFixed(1).padStart(19)}%`);
    console.log(`chosen: urgent ${thresholds.urgent}, emergency ${thresholds.emergency} (budgets: answers ${URGENT_BUDGET * 100}%, notices ${NOTICE_BUDGET * 100}%)`);
  } else {
    const source = weightsModule(train(dev));
    const current = readFileSync(WEIGHTS_FILE, 'utf8');
    if (process.argv.includes('--check')) {
      if (current !== source) {
        console.error('src/lib/emergency-model.weights.ts is not what the training script produces: run npx tsx scripts/train-emergency-model.ts');
        process.exit(1);
      }
      console.log('weights up to date');
    } else {
      writeFileSync(WEIGHTS_FILE, source);
      console.log(`wrote ${WEIGHTS_FILE} (${(source.length / 1024).toFixed(0)} KB) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    }
  }
}
