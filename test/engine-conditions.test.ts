// The condition language of the eligibility engine, one operator at a time (src/modules/questionnaires/
// engine.ts: `holds`, `daysSince`), and the outcome's filters of cautions and strength limits by the
// treatments still allowed. The catalogue's own rules (test/engine.test.ts) do not reach every bound:
// these cases pin the ones the mutation run found unguarded (docs/testing.md, "Mutation testing").
import { describe, expect, it } from 'vitest';
import { currentVersion, type Condition, type Rule } from '../src/modules/questionnaires/catalogue.ts';
import { daysSince, evaluate, holds, type EngineProfile } from '../src/modules/questionnaires/engine.ts';
import { FIXTURES, m, v, withAnswers } from './questionnaires.fixtures.ts';

const NOW = new Date('2026-06-15T12:00:00Z');
const profile = (p: Partial<EngineProfile> = {}): EngineProfile => ({ date_of_birth: '1985-04-12', gender: '0', country_of_residence: 'DEU', ...p });
/** The facts `holds` reads: answers by key (multiple choice as the chosen options), the profile, age, BMI and the date. */
const facts = (answers: Record<string, unknown>, p: Partial<EngineProfile> = {}) => ({ answers: new Map(Object.entries(answers)), profile: profile(p), age: 41, bmi: 30, now: NOW });
const on = (c: Condition, answers: Record<string, unknown>, p: Partial<EngineProfile> = {}) => holds(c, facts(answers, p));

describe('numeric bounds are inclusive or exclusive as written', () => {
  const cases: [string, Condition, number, boolean][] = [
    ['lte: equal holds', { answer: 'n', lte: 10 }, 10, true],
    ['lte: above fails', { answer: 'n', lte: 10 }, 10.01, false],
    ['lt: equal fails', { answer: 'n', lt: 10 }, 10, false],
    ['gte: equal holds', { answer: 'n', gte: 10 }, 10, true],
    ['gte: below fails', { answer: 'n', gte: 10 }, 9.99, false],
    ['gt: equal fails', { answer: 'n', gt: 10 }, 10, false],
    ['a range: inside', { answer: 'n', gte: 5, lte: 10 }, 7, true],
    ['a range: above its upper bound', { answer: 'n', gte: 5, lte: 10 }, 11, false],
    ['computed age: lte above fails', { computed: 'age', lte: 40 }, 0, false],
    ['computed age: lte equal holds', { computed: 'age', lte: 41 }, 0, true],
    ['computed BMI: lte above fails', { computed: 'bmi', lte: 29 }, 0, false],
  ];
  it.each(cases)('%s', (_name, c, n, expected) => {
    expect(on(c, { n })).toBe(expected);
  });
  it('a bound never holds on a text or a missing answer', () => {
    expect(on({ answer: 'n', lte: 10 }, { n: '5' })).toBe(false);
    expect(on({ answer: 'n', lte: 10 }, {})).toBe(false);
    expect(on({ answer: 'n', gte: 0 }, { n: Number.NaN })).toBe(false);
  });
});

describe('eq and in', () => {
  it('eq compares the answer strictly', () => {
    expect(on({ answer: 'a', eq: true }, { a: true })).toBe(true);
    expect(on({ answer: 'a', eq: true }, { a: false })).toBe(false);
    expect(on({ answer: 'a', eq: 'yes' }, { a: 'no' })).toBe(false);
    // eq: false is a value to compare, not "no eq".
    expect(on({ answer: 'a', eq: false }, { a: true })).toBe(false);
    expect(on({ answer: 'a', eq: false }, { a: false })).toBe(true);
  });
  it('an eq key without a value is no condition on the value', () => {
    expect(on({ answer: 'a', eq: undefined }, { a: 'anything' })).toBe(true);
  });
  it('in holds only for a listed value', () => {
    expect(on({ answer: 'a', in: ['x', 'y'] }, { a: 'y' })).toBe(true);
    expect(on({ answer: 'a', in: ['x', 'y'] }, { a: 'z' })).toBe(false);
  });
  it('a profile field not given matches no list, not even the words "null" or "undefined"', () => {
    const c: Condition = { profile: 'gender', in: ['0', 'null', 'undefined'] };
    expect(on(c, {}, { gender: '0' })).toBe(true);
    expect(on(c, {}, { gender: '1' })).toBe(false);
    expect(on(c, {}, { gender: null })).toBe(false);
    expect(holds(c, { ...facts({}), profile: { date_of_birth: null, country_of_residence: null } as unknown as EngineProfile })).toBe(false);
  });
});

describe('an answer condition without an operator', () => {
  it('holds for any answer given, never for a question not answered', () => {
    expect(on({ answer: 'a' }, { a: false })).toBe(true);
    expect(on({ answer: 'a' }, {})).toBe(false);
  });
});

describe('a rule set of a category the catalogue does not have', () => {
  it('allows no treatment: ineligible, without an error', () => {
    const version = currentVersion('sexual_health')!;
    const out = evaluate({ category: 'no_such_category', steps: version.steps, rules: [] }, profile(), FIXTURES.sexual_health.eligible, NOW);
    expect(out).toMatchObject({ outcome: 'ineligible', treatments: [], reasons: [] });
  });
});

describe('multiple choice', () => {
  it('includes_none_of needs an answer with at least one option chosen', () => {
    const c: Condition = { answer: 'mc', includes_none_of: ['bad'] };
    expect(on(c, { mc: ['fine'] })).toBe(true);
    expect(on(c, { mc: ['fine', 'bad'] })).toBe(false);
    // Nothing chosen is not "none of them": the question was not answered.
    expect(on(c, { mc: [] })).toBe(false);
    expect(on(c, { mc: 'bad-as-text' })).toBe(false);
  });
  it('includes_any needs one of the options chosen', () => {
    const c: Condition = { answer: 'mc', includes_any: ['a', 'b'] };
    expect(on(c, { mc: ['b'] })).toBe(true);
    expect(on(c, { mc: ['c'] })).toBe(false);
    expect(on(c, { mc: [] })).toBe(false);
    expect(on(c, { mc: 'a' })).toBe(false);
  });
});

describe('daysSince: whole days from a YYYY-MM-DD answer to the evaluation date (UTC)', () => {
  const cases: [string, unknown, number | null][] = [
    ['the same day', '2026-06-15', 0],
    ['yesterday (the time of day does not count)', '2026-06-14', 1],
    ['a year before', '2025-06-15', 365],
    ['in the future', '2026-06-20', -5],
    ['not a date string', 20260615, null],
    ['with a time', '2026-06-15T00:00:00Z', null],
    ['text before the date', 'x2026-06-15', null],
    ['a two-digit year', '26-06-15', null],
    ['one-digit month and day', '2026-6-5', null],
    ['an impossible month', '2026-13-01', null],
    // Date.parse alone would read these (as 1 January, 1 June, an expanded year): the format check refuses them.
    ['a year only', '2026', null],
    ['a month only', '2026-06', null],
    ['an expanded year', '+002026-06-15', null],
  ];
  it.each(cases)('%s', (_name, value, expected) => {
    expect(daysSince(value, NOW)).toBe(expected);
  });
  it('counts whole UTC days: late evening and early morning of consecutive days are one day apart', () => {
    expect(daysSince('2026-06-14', new Date('2026-06-15T00:00:01Z'))).toBe(1);
    expect(daysSince('2026-06-14', new Date('2026-06-15T23:59:59Z'))).toBe(1);
  });
  it('without an evaluation date there is no answer', () => {
    expect(daysSince('2026-06-15', undefined)).toBeNull();
  });
  it('a days_since condition reads it', () => {
    expect(on({ days_since: 'd', gt: 365 }, { d: '2025-06-15' })).toBe(false);
    expect(on({ days_since: 'd', gt: 365 }, { d: '2025-06-14' })).toBe(true);
    expect(on({ days_since: 'd', gt: 0 }, { d: 'unknown' })).toBe(false);
  });
});

describe('cautions and strength limits follow the treatments still allowed', () => {
  // Sexual health: sildenafil and tadalafil; an allergy to one excludes it (HYPERSENSITIVITY_*).
  const version = currentVersion('sexual_health')!;
  const rule = (code: string, kind: Rule['kind'], treatments: string[] | undefined, extra: Partial<Rule> = {}): Rule => ({
    code, kind, source: 'test', when: { answer: 'priapism_risk_or_penile_deformity', eq: true }, ...(treatments ? { treatments } : {}), ...extra,
  });
  const extra: Rule[] = [
    rule('CAUTION_ALL', 'caution', undefined),
    rule('CAUTION_EMPTY_LIST', 'caution', []),
    rule('CAUTION_SILDENAFIL', 'caution', ['sildenafil']),
    rule('CAUTION_BOTH', 'caution', ['sildenafil', 'tadalafil']),
    rule('LIMIT_SILDENAFIL', 'limit_strengths', ['sildenafil'], { strengths: ['25 mg'] }),
    rule('LIMIT_BOTH', 'limit_strengths', ['sildenafil', 'tadalafil'], { strengths: ['25 mg', '5 mg'] }),
  ];
  const set = { category: version.category, steps: version.steps, rules: [...version.rules.filter((r) => r.kind !== 'caution'), ...extra] };
  const run = (allergies: string[]) => {
    const answers = withAnswers(FIXTURES.sexual_health.eligible, v(2, 'priapism_risk_or_penile_deformity', true), m(2, 'hypersensitivity', allergies));
    const out = evaluate(set, profile(), answers, NOW);
    return { outcome: out.outcome, treatments: out.treatments, cautions: out.cautions.map((r) => r.code), limits: out.reasons.filter((r) => r.kind === 'limit_strengths').map((r) => r.code) };
  };
  it('with both treatments allowed, every caution and limit is reported', () => {
    expect(run(['none'])).toEqual({
      outcome: 'eligible', treatments: ['sildenafil', 'tadalafil'],
      cautions: ['CAUTION_ALL', 'CAUTION_EMPTY_LIST', 'CAUTION_SILDENAFIL', 'CAUTION_BOTH'], limits: ['LIMIT_SILDENAFIL', 'LIMIT_BOTH'],
    });
  });
  it('sildenafil excluded: its own caution and limit go, those naming tadalafil too stay', () => {
    expect(run(['sildenafil'])).toEqual({
      outcome: 'eligible', treatments: ['tadalafil'],
      cautions: ['CAUTION_ALL', 'CAUTION_EMPTY_LIST', 'CAUTION_BOTH'], limits: ['LIMIT_BOTH'],
    });
  });
  it('tadalafil excluded: the rules naming sildenafil stay', () => {
    expect(run(['tadalafil'])).toEqual({
      outcome: 'eligible', treatments: ['sildenafil'],
      cautions: ['CAUTION_ALL', 'CAUTION_EMPTY_LIST', 'CAUTION_SILDENAFIL', 'CAUTION_BOTH'], limits: ['LIMIT_SILDENAFIL', 'LIMIT_BOTH'],
    });
  });
  it('both excluded: ineligible, with no caution', () => {
    const r = run(['sildenafil', 'tadalafil']);
    expect(r).toMatchObject({ outcome: 'ineligible', treatments: [], cautions: [], limits: [] });
  });
});
