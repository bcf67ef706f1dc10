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
  })
  .meta({ id: 'EmergencyNotice', description: 'The emergency notice: call this number now (the service is not an emergency service)' });
export type EmergencyNoticeOut = z.infer<typeof EmergencyNoticeSchema>;
