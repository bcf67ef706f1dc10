// Spec 4.4 outcome 1 with `changed: true`: the screen is the safety screen plus the
// review, so every answer the safety screen accepts (changed: false) is accepted unchanged, and what
// the review adds is reported as missing_keys, never as invalid_renewal_answers.
import { describe, expect, it } from 'vitest';
import { CATEGORY_SLUGS, currentVersion } from '../src/modules/questionnaires/catalogue.ts';
import { prescribingFor } from '../src/modules/questionnaires/index.ts';
import { renewalRuleSet } from '../src/modules/questionnaires/prescribing.ts';

type Screen = ReturnType<typeof renewalRuleSet>;
const questions = (s: Screen) => new Map(s.steps.flatMap((st) => st.questions.map((q) => [q.question_key, JSON.stringify({ step: st.step_id, q })] as const)));

describe('the renewal screen with changed: true', () => {
  for (const slug of CATEGORY_SLUGS) {
    it(`${slug}: holds the safety screen unchanged, plus the review's other questions once each`, () => {
      const version = currentVersion(slug);
      expect(version).toBeDefined();
      if (!version) return;
      const extra = prescribingFor(slug).renewal;
      const safety = renewalRuleSet(version, extra, false);
      const changed = renewalRuleSet(version, extra, true);
      const s = questions(safety);
      const c = questions(changed);
      // Every safety question is in the changed screen with the same step and definition.
      for (const [key, def] of s) expect(c.get(key), key).toBe(def);
      // The review adds questions, each key once in the whole screen.
      const keys = changed.steps.flatMap((st) => st.questions.map((q) => q.question_key));
      expect(new Set(keys).size).toBe(keys.length);
      // Every question of the questionnaire but its photo questions (a renewal takes no uploads).
      const reviewKeys = version.steps.flatMap((st) => st.questions.filter((q) => q.type !== 'photo').map((q) => q.question_key));
      for (const key of reviewKeys) expect(c.has(key), key).toBe(true);
      for (const q of version.steps.flatMap((st) => st.questions).filter((x) => x.type === 'photo')) expect(c.has(q.question_key), q.question_key).toBe(false);
      expect(c.size).toBeGreaterThan(s.size);
    });
  }
});
