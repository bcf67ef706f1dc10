import { listCategories } from '../../questionnaires/index.ts';
import * as s from '../schemas.ts';
import { tool, locale } from './tool.ts';

export const listQuestionnairesTool = tool({
  name: 'list_questionnaires',
  title: 'Questionnaire catalogue',
  description: 'The treatment categories the service offers, with their treatments and dosages, in the patient’s language.',
  scope: 'patient:read',
  input: s.EmptyIn,
  output: s.CatalogueOut,
  readOnly: true,
  run(ctx) {
    const l = locale(ctx);
    const categories = listCategories().map((c) => ({
      slug: c.slug,
      title: c.title[l],
      description: c.description[l],
      default_plan: c.default_plan,
      treatments: c.treatments.map((t) => ({ treatment_id: t.treatment_id, name: t.name, dosages: t.dosages })),
    }));
    return Promise.resolve({ data: { locale: l, categories }, text: `${categories.length} categories: ${categories.map((c) => c.slug).join(', ')}.` });
  },
});
