// Request and response shapes of the questionnaires module. Response schemas are plain (no transforms).
import { z } from 'zod';
import { EmergencyNoticeSchema } from '../../lib/emergency-schema.ts';

const Scalar = z.union([z.string().max(2000), z.number(), z.boolean()]);
export const AnswerItemSchema = z
  .object({
    step_id: z.number().int(),
    question_key: z.string().min(1).max(100),
    value: Scalar.optional(),
    values: z.record(z.string().max(100), z.unknown()).optional(),
  })
  .strict()
  .meta({ id: 'QuestionnaireAnswer', description: 'An answer: `value` (scalar) for boolean, single_choice, number, date and text questions; `values` ({option: true}) for multiple_choice; `values` ({"<photo id>": "<view>"}) for photo, each id a photo uploaded with `POST /v1/users/questionnaires/{slug}/photos/` for that question.' });
export type AnswerItemInput = z.infer<typeof AnswerItemSchema>;

export const ProgressPatchSchema = z.object({ data: z.array(AnswerItemSchema).max(200) }).strict();

const AnswerOut = z.object({
  step_id: z.number(),
  question_key: z.string(),
  value: Scalar.optional(),
  values: z.record(z.string(), z.unknown()).optional(),
});

// The one emergency shape of every answer (src/lib/emergency-schema.ts).
export const EmergencySchema = EmergencyNoticeSchema;

export const ProgressResponseSchema = z.object({
  progress: z.object({ id: z.string(), category: z.string(), version: z.string(), data: z.array(AnswerOut), updated_at: z.string() }),
  emergency: EmergencySchema.nullable(),
});

export const TreatmentOut = z
  .object({
    treatment_id: z.string(),
    name: z.string().meta({ description: 'The treatment’s name in the response’s locale (catalogue/treatment-names.json: INN spelling per language, brand names unchanged)' }),
    strengths: z.array(z.string()),
    dosage_ladder: z.array(z.string()).nullable(),
    min_weeks_per_step: z.number().nullable(),
    supply_days: z.number(),
    plan_cycle_days: z.number().nullable(),
    one_off_price_cents: z.number(),
    plan_price_cents: z.number().nullable(),
    currency: z.string(),
  })
  .meta({ id: 'QuestionnaireTreatment' });

// A question and a step as served in a locale (the public schema and the renewal screens).
export const QuestionOut = z.object({
  question_key: z.string(),
  type: z.string(),
  required: z.boolean(),
  text: z.string(),
  options: z.array(z.object({ value: z.string(), label: z.string() })).optional(),
  unit: z.string().optional(),
  min: z.number().optional(),
  max: z.number().optional(),
  max_length: z.number().optional(),
  visible_if: z.record(z.string(), z.unknown()).optional(),
  views: z
    .array(z.object({ value: z.string(), label: z.string(), hint: z.string() }))
    .optional()
    .meta({ description: '`photo` questions: the views the doctor needs; each photo of the answer names one (answer `values`: {"<photo id>": "<view>"})' }),
  min_photos: z.number().int().optional().meta({ description: '`photo` questions: photos needed to submit' }),
  max_photos: z.number().int().optional().meta({ description: '`photo` questions: most photos an answer holds' }),
});
export const StepOut = z.object({ step_id: z.number(), title: z.string(), questions: z.array(QuestionOut) });

export const CategoryOut = z.object({
  id: z.string(),
  slug: z.string(),
  title: z.string(),
  description: z.string(),
  default_plan: z.string(),
  version: z.string(),
  version_number: z.number(),
  price_from: z
    .object({
      currency: z.string(),
      one_off_cents: z.number().int(),
      plan_cents: z.number().int().nullable(),
    })
    .describe('The consultation price of the category: the least a one-off consultation costs, and the least a plan period costs (null when the category has no plan), each including any treatment the doctor prescribes and refunded in full when the doctor does not prescribe. Names no medicine: public pages show only this. The checkout charges the price of the option the doctor is asked to consider.'),
});
export const CategoriesResponseSchema = z.object({ locale: z.string(), categories: z.array(CategoryOut) });
export const SchemaResponseSchema = CategoryOut.extend({
  locale: z.string(),
  published_at: z.string(),
  treatments: z.array(TreatmentOut),
  steps: z.array(StepOut),
});

/** Can a delivered time-critical pill (emergency contraception) arrive well inside its window? */
export const EcDeliverySchema = z
  .object({
    treatment_id: z.string(),
    dispatch_on: z.string().meta({ description: 'Day the parcel leaves the pharmacy (YYYY-MM-DD, pharmacy time)' }),
    delivery_on: z.string(),
    estimated_arrival: z.string().meta({ description: 'Latest expected arrival (carrier cut-off, working days, public holidays, transit days to the country)' }),
    transit_business_days: z.number().int(),
    window_ends_at: z.string().meta({ description: 'Unprotected sex + 72 h (levonorgestrel) or + 120 h (ulipristal)' }),
    margin_hours: z.number(),
    arrives_in_time: z.boolean().meta({ description: 'False: delivery cannot arrive well inside the window; get it from a nearby pharmacy now or choose collection (click and collect)' }),
    advice: z.enum(['pharmacy_or_click_and_collect']).nullable(),
    sources: z.array(z.string()),
  })
  .meta({ id: 'EcDelivery' });

const ReasonOut = z.object({ code: z.string(), kind: z.string(), source: z.string(), treatments: z.array(z.string()), message: z.string() });
export const SubmitResponseSchema = z
  .object({
    id: z.string(),
    category: z.string(),
    category_id: z.string(),
    version: z.string(),
    outcome: z.enum(['eligible', 'ineligible', 'emergency', 'held_for_review']),
    next_step: z.string(),
    message: z.string(),
    treatments: z.array(TreatmentOut),
    reasons: z.array(ReasonOut),
    cautions: z.array(ReasonOut),
    alternative: z.object({ code: z.string(), message: z.string() }).nullable(),
    emergency: EmergencySchema.nullable(),
    delivery: z.array(EcDeliverySchema).meta({ description: 'Emergency contraception: whether delivery of each offered pill can arrive well inside its window (empty for other categories)' }),
    created_at: z.string(),
  })
  .meta({ id: 'QuestionnaireSubmission' });

/**
 * One outcome of the patient's questionnaire history (GET /v1/users/questionnaires/submissions/):
 * the verdict only, never the answers. Reasons are stable codes with their text in the language
 * asked for (not the one of the day it was submitted).
 */
export const SubmissionHistoryItemSchema = z
  .object({
    id: z.string(),
    category: z.string(),
    outcome: z.enum(['eligible', 'ineligible', 'emergency', 'held_for_review']),
    reasons: z.array(z.object({ code: z.string(), message: z.string() })).meta({ description: 'Why an outcome was ineligible (or a treatment excluded): stable rule codes with their localised text' }),
    alternative: z.object({ code: z.string(), message: z.string() }).nullable(),
    treatments: z.array(z.string()).meta({ description: 'The treatment ids the outcome allows (empty unless eligible or held for review): checkout takes the latest such submission of the category' }),
    created_at: z.string(),
  })
  .meta({ id: 'QuestionnaireSubmissionSummary' });
