import * as journal from '../../journal/index.ts';
import * as s from '../schemas.ts';
import { tool } from './tool.ts';

export const reportSideEffectTool = tool({
  name: 'report_side_effect',
  title: 'Report a side effect',
  description:
    'Reports a side effect of a treatment the patient was prescribed. A severe one, or one whose words raise a red flag, is flagged for the medical team and answered with the emergency notice.',
  scope: 'journal:write',
  input: s.SideEffectIn,
  output: s.SideEffectOut,
  readOnly: false,
  openWorld: true,
  screensItself: true,
  async run(ctx, args) {
    const r = await journal.reportSideEffect(ctx.deps, ctx.auth.userId, { symptom: args.symptom, severity: args.severity, started_on: args.started_on ?? null, note: args.note });
    return {
      emergency: r.emergency,
      data: { report: { id: r.id, symptom: r.symptom, severity: r.severity, started_on: r.started_on, flagged: r.flagged } },
      text: r.flagged ? 'Side effect reported and flagged for the medical team.' : 'Side effect reported in the journal.',
    };
  },
});
