import { patchProgress } from '../../questionnaires/index.ts';
import * as s from '../schemas.ts';
import { tool, locale, fileRedFlag } from './tool.ts';

export const saveQuestionnaireDraftTool = tool({
  name: 'save_questionnaire_draft',
  title: 'Save questionnaire answers (draft)',
  description:
    'Saves the patient’s answers as the questionnaire draft (the whole answer set: answers left out are erased). Nothing is submitted. An answer that raises a red flag is answered with the emergency notice and put on the medical team’s red-flag desk.',
  scope: 'treatment:write',
  input: s.SaveDraftIn,
  output: s.SaveDraftOut,
  readOnly: false,
  destructive: true,
  idempotent: true,
  openWorld: true,
  // The questionnaire service reads the text answers itself; the engine's red flags are filed below.
  screensItself: true,
  async run(ctx, args) {
    const p = await patchProgress(ctx.deps, ctx.auth.userId, args.category, args.data, locale(ctx));
    const emergency = p.emergency ? await fileRedFlag(ctx, p.progress.id, p.emergency.codes) : null;
    return {
      emergency,
      data: { draft: { id: p.progress.id, answers: p.progress.data, updated_at: p.progress.updated_at } },
      text: `Draft saved with ${p.progress.data.length} answer(s); nothing was submitted.`,
    };
  },
});
