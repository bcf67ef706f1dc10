import { currentVersion, getProgress, localisedSteps } from '../../questionnaires/index.ts';
import * as s from '../schemas.ts';
import { tool, locale } from './tool.ts';

export const getQuestionnaireTool = tool({
  name: 'get_questionnaire',
  title: 'A questionnaire and its saved draft',
  description:
    'The questions of a category’s current questionnaire (steps, types, options, bounds, in the patient’s language) and the patient’s saved draft answers. Answer with save_questionnaire_draft, then submit with submit_questionnaire.',
  scope: 'patient:read',
  input: s.QuestionnaireIn,
  output: s.QuestionnaireOut,
  readOnly: true,
  async run(ctx, args) {
    const l = locale(ctx);
    const p = await getProgress(ctx.deps, ctx.auth.userId, args.category, l);
    const steps = localisedSteps(currentVersion(args.category)?.steps ?? [], l);
    return {
      data: { category: args.category, locale: l, steps, draft: { id: p.progress.id, answers: p.progress.data, updated_at: p.progress.updated_at } },
      text: `${steps.reduce((n, st) => n + st.questions.length, 0)} question(s) in ${steps.length} step(s); ${p.progress.data.length} answer(s) saved.`,
    };
  },
});
