import { ApiError } from '../../../http/errors.ts';
import * as journal from '../../journal/index.ts';
import * as s from '../schemas.ts';
import { tool, screenInputs } from './tool.ts';

export const logInjectionTool = tool({
  name: 'log_injection',
  title: 'Log an injection',
  description: 'Records an injection (dose, time with UTC offset, optional site and note) in the progress journal.',
  scope: 'journal:write',
  input: s.LogInjectionIn,
  output: s.LogInjectionOut,
  readOnly: false,
  screensItself: true,
  async run(ctx, args) {
    if (!/(Z|[+-]\d{2}:?\d{2})$/i.test(args.injected_at) || Number.isNaN(Date.parse(args.injected_at))) {
      throw new ApiError(400, { injected_at: ['Enter a date and time with its UTC offset, e.g. 2026-11-20T08:00:00+01:00.'] });
    }
    const input: Record<string, unknown> = { dose: args.dose, injected_at: args.injected_at };
    if (args.medication !== undefined) input.medication = args.medication;
    if (args.injection_site !== undefined) input.injection_site = args.injection_site;
    if (args.note !== undefined) input.note = args.note;
    const i = await journal.createInjection(ctx.deps, ctx.auth.userId, input);
    return {
      emergency: i.emergency ?? (await screenInputs(ctx, args.dose, args.medication)),
      data: { entry: { id: i.id, medication: i.medication, dose: i.dose, injected_at: i.injected_at, injection_site: i.injection_site, note: i.note } },
      text: `Injection of ${i.dose} logged at ${i.injected_at}.`,
    };
  },
});
