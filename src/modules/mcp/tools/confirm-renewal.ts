import { ApiError } from '../../../http/errors.ts';
import { getProfile } from '../../profile/index.ts';
import { currentVersion, prescribingFor, redFlags, renewalRuleSet } from '../../questionnaires/index.ts';
import { confirmStep } from '../confirmation.ts';
import * as subs from '../../subscriptions/index.ts';
import * as s from '../schemas.ts';
import { tool, locale, screenInputs, fileRedFlag, unconfirmed, type ToolContext } from './tool.ts';

export const confirmRenewalTool = tool({
  name: 'confirm_renewal',
  title: 'Confirm a renewal (after the patient confirms)',
  description:
    'Confirms the patient’s pending renewal (dose, treatment, the renewal screen’s safety answers) through the same checks as the app; it then goes to a doctor’s review. Only after the patient confirms: through the client’s confirmation dialog (elicitation), or in two steps (the first call answers with a summary and a confirmation_token; show it to the patient and, when they agree, call again with the same input and confirm = the token). A red-flag answer stops it: the emergency notice, and the medical team’s red-flag desk is told.',
  scope: 'treatment:write',
  input: s.ConfirmRenewalIn,
  output: s.ConfirmRenewalOut,
  readOnly: false,
  openWorld: true,
  // Its free text is screened here, before a confirmation is offered.
  screensItself: true,
  confirms: true,
  async run(ctx, args) {
    const { deps, auth } = ctx;
    const { confirm, ...input } = args;
    const summaryOf = (status: 'emergency', text: string) => ({ status, summary: text, confirmation_token: null, expires_at: null, renewal: null });
    const category = await pendingRenewalCategory(ctx, input.consultation_id);
    if (!category) throw new ApiError(404, { detail: 'There is no pending renewal with this id for this patient.' });
    // The engine's red flags before anything is offered for confirmation (the same rule set and
    // answer checks as the confirm; the confirm below runs them again and decides).
    const version = currentVersion(category);
    if (!version) throw new ApiError(404, { detail: 'There is no pending renewal with this id for this patient.' });
    const set = renewalRuleSet(version, prescribingFor(category).renewal, input.changed ?? false);
    const now = deps.clock.now();
    const items = subs.renewalAnswers(set, input.answers ?? [], now);
    // The patient's own words (the change note, text answers) go through the one detector first.
    const textKeys = new Set(set.steps.flatMap((st) => st.questions.filter((qq) => qq.type === 'text').map((qq) => qq.question_key)));
    const texts = [input.change_note, ...items.filter((a) => textKeys.has(a.question_key) && typeof a.value === 'string').map((a) => String(a.value))];
    const words = await screenInputs(ctx, ...texts);
    if (words) return { emergency: words, data: summaryOf('emergency', 'A red flag in the answers: nothing was confirmed.'), text: 'Nothing was confirmed.' };
    const p = await getProfile(deps, auth.userId);
    const flags = redFlags(set, { date_of_birth: p.date_of_birth, gender: p.gender ?? null, country_of_residence: p.country_of_residence }, items, now);
    if (flags.length) {
      const emergency = await fileRedFlag(ctx, input.consultation_id, flags);
      return { emergency, data: summaryOf('emergency', 'A red flag in the renewal answers: nothing was confirmed.'), text: 'Nothing was confirmed.' };
    }
    const summary = `Confirm the ${category} renewal${input.treatment_id ? ` with ${input.treatment_id}` : ''}${input.dosage ? ` at ${input.dosage}` : ''} (${(input.answers ?? []).length} answer(s)${input.changed ? ', something changed since the last review' : ''}${input.fulfilment?.method === 'collection' ? ', collected at a partner pharmacy' : ''}); a doctor reviews it before anything is charged or sent.`;
    const c = await confirmStep(ctx, 'confirm_renewal', input, confirm, summary);
    if (c.status !== 'confirmed') return unconfirmed(c, summary, { renewal: null });
    try {
      const r = await subs.confirmRenewal(deps, auth.userId, { ...input, changed: input.changed ?? false, answers: input.answers ?? [], change_note: input.change_note ?? '' }, locale(ctx));
      return {
        data: {
          status: 'submitted',
          summary,
          confirmation_token: null,
          expires_at: null,
          renewal: { consultation_id: r.consultation_id, patient_choice_status: r.patient_choice_status, treatment_id: r.treatment_id, dosage: r.dosage, dose_change: r.dose_change, treatment_change: r.treatment_change },
        },
        text: `Renewal confirmed (${r.treatment_id} ${r.dosage}); a doctor reviews it next.`,
      };
    } catch (err) {
      // A red flag the confirm found: the desk is told here, so the notice may say so.
      if (err instanceof ApiError && err.body.code === 'renewal_emergency') {
        const codes = Array.isArray(err.body.reason_codes) ? err.body.reason_codes.filter((x): x is string => typeof x === 'string') : [];
        const emergency = await fileRedFlag(ctx, input.consultation_id, codes);
        return { emergency, data: summaryOf('emergency', 'A red flag in the renewal answers: nothing was confirmed.'), text: 'Nothing was confirmed.' };
      }
      throw err;
    }
  },
});

/** The category of the patient's pending renewal with this id, or null (not theirs, not pending). */
async function pendingRenewalCategory(ctx: ToolContext, consultationId: string): Promise<string | null> {
  const list = await subs.listSubscriptions(ctx.deps, ctx.auth.userId, 100, 0);
  for (const category of new Set(list.results.map((x) => x.category))) {
    const o = await subs.renewalOptions(ctx.deps, ctx.auth.userId, category, locale(ctx));
    if (o.pending_consultation_id === consultationId) return category;
  }
  return null;
}
