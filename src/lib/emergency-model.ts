// The statistical layer of the red-flag detector (docs/red-flags.md, "The statistical layer"): a
// one-vs-rest logistic regression over word-boundary-aware character n-grams (3 to 5 letters inside
// each word, the word padded with "_") plus whole words and word pairs of the normalised text. It is
// trained by scripts/train-emergency-model.ts on the development corpora only, and shipped as
// emergency-model.weights.ts (a string, parsed once at import: no I/O at call time).
//
// It is trained on current red flags against every hard negative; the detector still reads each hit
// with the same negation, question and history rules as a rule match, at the word of the hit's
// strongest feature. Rules keep the precision; the model adds recall on words no rule lists.
// Each hit names its top-weighted features, which the desk shows.
import { MODEL_WEIGHTS } from './emergency-model.weights.ts';

/** The features of a run of normalised words, each with the index (in `words`) of the word it comes from. */
export function featuresOf(words: readonly string[]): Map<string, number> {
  const out = new Map<string, number>();
  const add = (f: string, at: number) => {
    if (!out.has(f)) out.set(f, at);
  };
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    add(`w:${w}`, i);
    if (i + 1 < words.length) add(`b:${w} ${words[i + 1]}`, i);
    const padded = `_${w}_`;
    for (let n = 3; n <= 5; n++) for (let k = 0; k + n <= padded.length; k++) add(padded.slice(k, k + n), i);
  }
  return out;
}

export interface ModelWeights {
  classes: string[];
  bias: number[];
  threshold: number;
  /** feature -> [class index, weight] pairs. */
  weights: Map<string, [number, number][]>;
}

/** The weights file's text: a JSON header line, then one line per feature: `feature\tclass:weight,class:weight`. */
export function parseWeights(text: string): ModelWeights {
  const lines = text.split('\n');
  const header = JSON.parse(lines[0]!) as { classes: string[]; bias: number[]; threshold: number };
  const weights = new Map<string, [number, number][]>();
  for (const line of lines.slice(1)) {
    if (!line) continue;
    const tab = line.lastIndexOf('\t');
    weights.set(
      line.slice(0, tab),
      line
        .slice(tab + 1)
        .split(',')
        .map((pair) => {
          const [c, w] = pair.split(':');
          return [Number(c), Number(w)] as [number, number];
        }),
    );
  }
  return { classes: header.classes, bias: header.bias, threshold: header.threshold, weights };
}

const MODEL = parseWeights(MODEL_WEIGHTS);

/** Per class: the probability and the contributing features (feature, weight, word index), strongest first. */
export function scoreWords(model: ModelWeights, words: readonly string[]): { p: number; contributions: [string, number, number][] }[] {
  const feats = featuresOf(words);
  const scale = feats.size ? 1 / Math.sqrt(feats.size) : 0;
  const z = model.bias.slice();
  const contributions: [string, number, number][][] = model.classes.map(() => []);
  for (const [f, at] of feats) {
    const ws = model.weights.get(f);
    if (!ws) continue;
    for (const [c, w] of ws) {
      z[c]! += w * scale;
      contributions[c]!.push([f, w, at]);
    }
  }
  return model.classes.map((_, c) => ({ p: 1 / (1 + Math.exp(-z[c]!)), contributions: contributions[c]!.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)) }));
}

export interface ModelHit<C extends string = string> {
  category: C;
  score: number;
  /** Index (in the text's words) of the word of the strongest feature: where negation and history are read. */
  word: number;
  /** The strongest features, as the desk shows them ("w:" a word, "b:" a word pair, else letters of a word, "_" its edge). */
  features: string[];
}

/**
 * The classes the model hears in each sentence of the words (and in the whole text when it is short:
 * a flag told across two short sentences), above the trained threshold.
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
      if (s.p < model.threshold) return;
      const prev = best.get(c);
      if (prev && prev.score >= s.p) return;
      const top = s.contributions.filter((x) => x[1] > 0).slice(0, 5);
      best.set(c, { category: model.classes[c] as C, score: s.p, word: run[top[0]?.[2] ?? 0]!, features: top.map((x) => x[0]) });
    });
  }
  return [...best.values()];
}
