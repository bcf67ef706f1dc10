import * as journal from '../../journal/index.ts';
import * as s from '../schemas.ts';
import { tool } from './tool.ts';

export const logWeightTool = tool({
  name: 'log_weight',
  title: 'Log a weight',
  description: 'Records the patient’s weight for a day in the progress journal (one entry per day; a second one for the same day replaces it).',
  scope: 'journal:write',
  input: s.LogWeightIn,
  output: s.LogWeightOut,
  readOnly: false,
  // A second entry for the same day replaces the first: an overwrite, hence destructive.
  destructive: true,
  idempotent: true,
  screensItself: true,
  async run(ctx, args) {
    const r = await journal.createWeight(ctx.deps, ctx.auth.userId, { weight_kg: args.weight_kg, logged_on: args.logged_on, note: args.note });
    const e = r.entry;
    return {
      emergency: r.emergency,
      data: { created: r.created, entry: { id: e.id, weight_kg: e.weight_kg, logged_on: e.logged_on, note: e.note } },
      text: `Weight ${e.weight_kg} kg ${r.created ? 'logged' : 'updated'} for ${e.logged_on}.`,
    };
  },
});
