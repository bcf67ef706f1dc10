import { ApiError } from '../../../http/errors.ts';
import { getProgress, submitQuestionnaire } from '../../questionnaires/index.ts';
import { confirmStep } from '../confirmation.ts';
import * as s from '../schemas.ts';
import { tool, locale, fileRedFlag, unconfirmed } from './tool.ts';

export const submitQuestionnaireTool = tool({
  name: 'submit_questionnaire',
  title: 'Submit a questionnaire (after the patient confirms)',
  description:
    'Submits the saved questionnaire draft for the eligibility check and a doctor’s review, only after the patient confirms: through the client’s confirmation dialog (elicitation), or in two steps (the first call answers with a summary and a confirmation_token; show the summary to the patient and, when they agree, call again with the same category and confirm = the token).',
  scope: 'treatment:write',
  input: s.SubmitQuestionnaireIn,
  output: s.SubmitQuestionnaireOut,
  readOnly: false,
  openWorld: true,
  screensItself: true,
  confirms: true,
  async run(ctx, args) {
    const { deps, auth } = ctx;
    const l = locale(ctx);
    const p = await getProgress(deps, auth.userId, args.category, l);
    if (!p.progress.data.length) throw new ApiError(400, { detail: 'The draft has no answers yet: save them with save_questionnaire_draft first. Nothing was submitted.' });
    const answers = p.progress.data.map((a) => `${a.question_key} = ${JSON.stringify(a.values ?? a.value ?? null)}`);
    const summary = `Submit the ${args.category} questionnaire with ${answers.length} answer(s) for the eligibility check and a doctor’s review: ${answers.join('; ')}.`;
    // The token confirms this draft: a draft saved again after the summary needs a new confirmation.
    const c = await confirmStep(ctx, 'submit_questionnaire', { category: args.category, version: p.progress.version, data: p.progress.data }, args.confirm, summary);
    if (c.status !== 'confirmed') return unconfirmed(c, summary, { submission: null });
    const r = await submitQuestionnaire(deps, auth.userId, args.category, l);
    const emergency = r.outcome === 'emergency' && r.emergency ? await fileRedFlag(ctx, r.id, r.emergency.codes) : null;
    return {
      emergency,
      data: {
        status: r.outcome === 'emergency' ? 'emergency' : 'submitted',
        summary,
        confirmation_token: null,
        expires_at: null,
        submission: { id: r.id, outcome: r.outcome, next_step: r.next_step ?? null, message: r.message, treatments: r.treatments.map((t) => t.treatment_id), created_at: r.created_at },
      },
      text: `Questionnaire submitted: ${r.outcome}. ${r.message}`.trim(),
    };
  },
});
