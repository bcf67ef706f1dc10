// The statistical layer of the red-flag detector (docs/red-flags.md, "The statistical layer"): a
// one-vs-rest logistic regression per class over character n-grams (2 to 5 characters of the
// normalised text, across word boundaries, the text padded with spaces) plus whole words and word
// pairs, hashed (FNV-1a) into a fixed number of features. It is trained by
// scripts/train-emergency-model.ts on the development corpora only, and shipped as
// emergency-model.weights.ts (one string, quantised weights, parsed once at import: no I/O at call time).
//
// The detector reads each hit with the same negation, question and history rules as a rule match, at
// the word of the hit's strongest feature, and only for a class no rule or lexicon entry read at all:
// the model never overrides a rule's negated, question or history reading. Two thresholds, tuned on a
// held-back part of the development corpora by the training script: above `urgent` the class is
// answered at the urgent tier (a doctor today, a desk flag with a deadline); above `emergency` a
// life-threatening class gets the emergency notice. Each hit names the words and n-grams that
// contributed most, which the desk shows.
import { MODEL_WEIGHTS } from './emergency-model.weights.ts';

/** Hashed feature space: 2^18 buckets (collisions are rare at this corpus size and harmless: both strings share a weight). */
export const BUCKETS = 1 << 18;
const MIN_N = 2;
const MAX_N = 5;

/** 32-bit FNV-1a of a string's UTF-16 code units: fixed, fast, the same in training and at run time. */
export function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export interface Feature {
  /** What the desk is shown: the n-gram ("uizid"), a word ("w:suicide") or a word pair ("b:want die"). */
  text: string;
  /** Index (in the words given) of the word the feature comes from (an n-gram: the word it starts in). */
  at: number;
}

/** The features of a run of normalised words, by bucket (the first feature met keeps a shared bucket). */
export function featuresOf(words: readonly string[]): Map<number, Feature> {
  const out = new Map<number, Feature>();
  const add = (text: string, at: number) => {
    const b = fnv1a(text) % BUCKETS;
    if (!out.has(b)) out.set(b, { text, at });
  };
  // The padded text and, per character, the word it belongs to (a space: the word after it).
  let padded = ' ';
  const wordAt: number[] = [0];
  words.forEach((w, i) => {
    padded += w + ' ';
    for (let k = 0; k <= w.length; k++) wordAt.push(i);
  });
  for (let k = 0; k < padded.length; k++) {
    for (let n = MIN_N; n <= MAX_N && k + n <= padded.length; n++) {
      const g = padded.slice(k, k + n);
      if (g.trim() === '') continue;
      add(g, Math.min(wordAt[k + (padded[k] === ' ' ? 1 : 0)] ?? 0, words.length - 1));
    }
  }
  for (let i = 0; i < words.length; i++) {
    add(`w:${words[i]}`, i);
    if (i + 1 < words.length) add(`b:${words[i]} ${words[i + 1]}`, i);
  }
  return out;
}

export interface Thresholds {
  /** Above this probability a class is answered at the urgent tier (a doctor today; desk flag with a deadline). */
  urgent: number;
  /** Above this probability a life-threatening class gets the emergency notice. */
  emergency: number;
}

export interface ModelWeights {
  classes: string[];
  bias: number[];
  thresholds: Thresholds;
  /** Per bucket, its entries in `cls` / `w`: offsets[b] .. offsets[b + 1]. */
  offsets: Int32Array;
  cls: Uint8Array;
  w: Float32Array;
}

interface Header {
  classes: string[];
  bias: number[];
  thresholds: Thresholds;
  /** Weight = quantised value (-127..127) * scale. */
  scale: number;
  buckets: number;
}

/**
 * The weights file's text: a JSON header line, then base64 of little-endian uint32 entries sorted by
 * bucket then class, each `(q + 128) << 23 | bucket << 5 | class` (q: the weight quantised to -127..127).
 */
export function encodeWeights(header: Header, entries: { bucket: number; cls: number; q: number }[]): string {
  const buf = Buffer.alloc(entries.length * 4);
  entries.forEach((e, i) => buf.writeUInt32LE((((e.q + 128) << 23) | (e.bucket << 5) | e.cls) >>> 0, i * 4));
  return `${JSON.stringify(header)}\n${buf.toString('base64')}\n`;
}

export function parseWeights(text: string): ModelWeights {
  const nl = text.indexOf('\n');
  const header = JSON.parse(text.slice(0, nl)) as Header;
  if (header.buckets !== BUCKETS) throw new Error(`emergency model: ${header.buckets} buckets, this code hashes into ${BUCKETS}`);
  const buf = Buffer.from(text.slice(nl + 1).trim(), 'base64');
  const n = buf.length / 4;
  const offsets = new Int32Array(BUCKETS + 1);
  const cls = new Uint8Array(n);
  const w = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const v = buf.readUInt32LE(i * 4);
    const bucket = (v >>> 5) & (BUCKETS - 1);
    cls[i] = v & 31;
    w[i] = ((v >>> 23) - 128) * header.scale;
    offsets[bucket + 1]!++;
  }
  for (let b = 0; b < BUCKETS; b++) offsets[b + 1]! += offsets[b]!;
  return { classes: header.classes, bias: header.bias, thresholds: header.thresholds, offsets, cls, w };
}

export const MODEL: ModelWeights = parseWeights(MODEL_WEIGHTS);

/** One class's score for some words, and what contributed to it. */
export interface ClassScore {
  p: number;
  /** Contributing features with their weight (already scaled), strongest first. */
  contributions: { feature: Feature; weight: number }[];
}

/** Per class: the probability and the contributing features, strongest first. */
export function scoreWords(model: ModelWeights, words: readonly string[]): ClassScore[] {
  const feats = featuresOf(words);
  const scale = feats.size ? 1 / Math.sqrt(feats.size) : 0;
  const z = model.bias.slice();
  const contributions: ClassScore['contributions'][] = model.classes.map(() => []);
  for (const [b, feature] of feats) {
    for (let i = model.offsets[b]!; i < model.offsets[b + 1]!; i++) {
      const c = model.cls[i]!;
      const weight = model.w[i]! * scale;
      z[c]! += weight;
      contributions[c]!.push({ feature, weight });
    }
  }
  return model.classes.map((_, c) => ({
    p: 1 / (1 + Math.exp(-z[c]!)),
    contributions: contributions[c]!.sort((a, b) => b.weight - a.weight || (a.feature.text < b.feature.text ? -1 : a.feature.text > b.feature.text ? 1 : 0)),
  }));
}

export interface ModelHit<C extends string = string> {
  category: C;
  score: number;
  /** Index (in the text's words) of the word that contributed most: where negation and history are read. */
  word: number;
  /** What the desk is shown: the words that contributed most, each with its strongest n-gram, e.g. `suizidgedanken ("uizid")`. */
  features: string[];
}

/** The words whose features pushed the class up most (summed), each with its strongest feature. */
function explain(words: readonly string[], run: readonly number[], s: ClassScore): { word: number; evidence: string[] } {
  // Per word: the summed weight of its features, and the strongest one a reader can recognise (a
  // two-letter n-gram like "he" says little: longer n-grams, the word or a word pair are shown first).
  const byWord = new Map<number, { sum: number; top: string; shown: string | null }>();
  for (const { feature, weight } of s.contributions) {
    if (weight <= 0) continue;
    const readable = feature.text.trim().length >= 3 ? feature.text : null;
    const e = byWord.get(feature.at);
    if (e) {
      e.sum += weight;
      e.shown ??= readable;
    } else byWord.set(feature.at, { sum: weight, top: feature.text, shown: readable });
  }
  const ranked = [...byWord].sort((a, b) => b[1].sum - a[1].sum || a[0] - b[0]).slice(0, 5);
  const shown = (f: string) => (f.startsWith('w:') ? 'the word' : f.startsWith('b:') ? `"${f.slice(2)}"` : `"${f}"`);
  return {
    word: run[ranked[0]?.[0] ?? 0]!,
    evidence: ranked.map(([at, e]) => `${words[run[at]!]} (${shown(e.shown ?? e.top)}, +${e.sum.toFixed(2)})`),
  };
}

/**
 * The classes the model hears in each sentence of the words (and in the whole text when it is short:
 * a flag told across two short sentences), at or above the urgent threshold; the best run per class.
 */
export function modelHits<C extends string>(words: readonly string[], sentence: readonly number[], model: ModelWeights = MODEL): ModelHit<C>[] {
  if (!model.classes.length || !words.length) return [];
  const runs: number[][] = [];
  let current: number[] = [];
  for (let i = 0; i < words.length; i++) {
    if (i > 0 && sentence[i] !== sentence[i - 1]) {
      runs.push(current);
      current = [];
    }
    current.push(i);
  }
  runs.push(current);
  if (runs.length > 1 && words.length <= 60) runs.push(words.map((_, i) => i));
  const best = new Map<number, ModelHit<C>>();
  for (const run of runs) {
    const scores = scoreWords(model, run.map((i) => words[i]!));
    scores.forEach((s, c) => {
      if (s.p < model.thresholds.urgent) return;
      const prev = best.get(c);
      if (prev && prev.score >= s.p) return;
      const { word, evidence } = explain(words, run, s);
      best.set(c, { category: model.classes[c] as C, score: s.p, word, features: evidence });
    });
  }
  return [...best.values()];
}
