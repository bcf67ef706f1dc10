// The desk's typed views of a renewal's stored details (consultations.renewal_details, written by
// subscriptions/service.ts when the patient confirms the renewal choice): the patient's choice, the
// engine's verdict over the renewal answers and the red flags raised on the renewal screen. Fields a
// record written by an earlier version may lack are optional, so an old renewal still shows.
import { z } from 'zod';

const Change = z.object({ from: z.string(), to: z.string() });

export const RenewalChoiceSchema = z
  .object({
    treatment_id: z.string(),
    dosage: z.string(),
    changed: z.boolean().optional().meta({ description: 'The patient said something changed since the last review' }),
    change_note: z.string().optional(),
    answers: z.array(z.object({ question_key: z.string(), values: z.record(z.string(), z.unknown()) })).optional().meta({ description: 'The renewal screen’s answers as submitted' }),
    dose_change: Change.extend({ direction: z.enum(['up', 'down']) })
      .nullable()
      .optional(),
    treatment_change: Change.nullable().optional(),
    confirmed_at: z.string().nullable().optional(),
  })
  .meta({ id: 'RenewalChoice', description: 'The patient’s renewal choice: treatment, dose, what changed and when it was confirmed' });

const EngineReason = z.object({
  code: z.string(),
  source: z.string().nullable().optional(),
  message: z.string().nullable().optional(),
  kind: z.string().nullable().optional(),
  treatments: z.array(z.string()).nullable().optional(),
});

export const RenewalVerdictSchema = z
  .object({
    evaluated_at: z.string().optional(),
    outcome: z.string().meta({ description: 'eligible, ineligible, emergency or held_for_review' }),
    treatments: z.array(z.string()).optional(),
    reasons: z.array(EngineReason).optional(),
    cautions: z.array(EngineReason).optional(),
    side_effects: z.boolean().optional(),
    allowed_dosages: z.array(z.string()).optional(),
    dose_codes: z.array(z.string()).optional(),
    supply_gap_days: z.number().nullable().optional(),
    weeks_on_dose: z.number().nullable().optional(),
    explanation: z.array(z.string()).optional().meta({ description: 'The dose rule’s explanation, one sentence a line' }),
  })
  .meta({ id: 'RenewalVerdict', description: "The engine's result over the renewal answers and the dose rule's explanation" });

export const RenewalRedFlagSchema = z.object({ codes: z.array(z.string()), at: z.string() });

/** A stored value as the schema reads it, or null when it is missing or not of that shape. */
export function readStored<T extends z.ZodType>(schema: T, value: unknown): z.output<T> | null {
  const r = schema.safeParse(value);
  return r.success ? r.data : null;
}
