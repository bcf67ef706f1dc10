import * as journal from '../../journal/index.ts';
import * as s from '../schemas.ts';
import { tool, paging } from './tool.ts';

export const getWeightsTool = tool({
  name: 'get_weights',
  title: 'Past weights',
  description: 'The patient’s logged weights, newest first; readable with or without an active treatment plan.',
  scope: 'patient:read',
  input: s.PageInput,
  output: s.WeightsOut,
  readOnly: true,
  async run({ deps, auth }, args) {
    const { limit, offset } = paging(args);
    const w = await journal.pastWeights(deps, auth.userId, limit, offset);
    return { data: { count: w.count, results: w.results.map((x) => ({ id: x.id, weight_kg: x.weight_kg, logged_on: x.logged_on, note: x.note })) }, text: `${w.count} weight(s).` };
  },
});
