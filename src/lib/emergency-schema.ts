// The one shape of every emergency answer (docs/red-flags.md): questionnaire red flags, messages,
// journal notes, side-effect reports and the connector's tools all answer with it, under one id in
// the OpenAPI document (`EmergencyNotice`), so a client has one type to show.
import { z } from 'zod';

export const EmergencyNoticeSchema = z
  .object({
    number: z.string().meta({ description: 'The medical emergency number of the patient’s country: call it first' }),
    numbers: z.array(z.string()).meta({ description: 'Every emergency number of the country, the medical one first' }),
    non_emergency: z.array(z.object({ number: z.string(), label: z.string() })).meta({ description: 'Non-emergency medical numbers (e.g. 116117)' }),
    codes: z.array(z.string()).meta({ description: 'What raised it: questionnaire red-flag codes, or the detector’s categories for free text' }),
    message: z.string().meta({ description: 'What to do now, in the patient’s language, and what happened to the text' }),
    tier: z.enum(['emergency', 'urgent']).optional().meta({ description: 'emergency: call the number now; urgent: see a doctor today (the out-of-hours numbers are `non_emergency`)' }),
    crisis_lines: z
      .array(z.object({ number: z.string(), label: z.string() }))
      .optional()
      .meta({ description: 'The country’s suicide-prevention or emotional-support lines (116 123 where it exists), named for suicidal or self-harm wording' }),
  })
  .meta({ id: 'EmergencyNotice', description: 'The emergency notice (call this number now: the service is not an emergency service), or with `tier: urgent` the answer to an urgent red flag (see a doctor today)' });
export type EmergencyNoticeOut = z.infer<typeof EmergencyNoticeSchema>;
