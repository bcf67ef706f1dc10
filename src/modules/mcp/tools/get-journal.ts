import * as journal from '../../journal/index.ts';
import * as s from '../schemas.ts';
import { tool } from './tool.ts';

export const getJournalTool = tool({
  name: 'get_journal',
  title: 'Progress journal',
  description: 'The patient’s weights, injections, notes and injection plan (available while a treatment plan is active), newest first.',
  scope: 'patient:read',
  input: s.JournalIn,
  output: s.JournalOut,
  readOnly: true,
  async run({ deps, auth }, args) {
    const limit = args.limit ?? 20;
    const weights = await journal.list(deps, 'weight_entries', auth.userId, limit, 0, journal.weightOut);
    const injections = await journal.list(deps, 'injections', auth.userId, limit, 0, journal.injectionOut);
    const notes = await journal.list(deps, 'journal_notes', auth.userId, limit, 0, journal.noteOut);
    const plan = await journal.getPlan(deps, auth.userId);
    return {
      data: {
        weights: { count: weights.count, results: weights.results.map((w) => ({ id: w.id, weight_kg: w.weight_kg, logged_on: w.logged_on, note: w.note })) },
        injections: {
          count: injections.count,
          results: injections.results.map((i) => ({ id: i.id, medication: i.medication, dose: i.dose, injected_at: i.injected_at, injection_site: i.injection_site, note: i.note })),
        },
        notes: { count: notes.count, results: notes.results.map((n) => ({ id: n.id, content: n.content, created_at: n.created_at })) },
        plan: { medication: plan.medication, anchor_weekday: plan.anchor_weekday, preferred_time: plan.preferred_time, starts_on: plan.starts_on, active: plan.active },
        next_injection_on: nextInjectionOn(plan, injections.results[0]?.injected_at ?? null, deps.clock.now()),
      },
      text: `${weights.count} weight(s), ${injections.count} injection(s), ${notes.count} note(s).`,
    };
  },
});

/**
 * The next injection day of a weekly plan (UTC calendar days): the first day on the plan's weekday
 * (0 = Monday) on or after the plan's start, today, and the day after the latest injection.
 */
export function nextInjectionOn(plan: { anchor_weekday: number; starts_on: string; active: boolean }, lastInjectedAt: string | null, now: Date): string | null {
  if (!plan.active) return null;
  const day = (d: Date) => Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  let from = Math.max(day(now), Date.parse(`${plan.starts_on.slice(0, 10)}T00:00:00Z`));
  if (lastInjectedAt) from = Math.max(from, day(new Date(lastInjectedAt)) + 86_400_000);
  const weekday = (new Date(from).getUTCDay() + 6) % 7; // 0 = Monday
  const next = new Date(from + (((plan.anchor_weekday - weekday + 7) % 7) * 86_400_000));
  return next.toISOString().slice(0, 10);
}
