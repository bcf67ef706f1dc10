// Progress journal shapes (spec 2.6). Input schemas may coerce; output schemas are plain.
import { z } from 'zod';
import { calendarDate, offsetDateTime } from '../../http/fields.ts';
import { EmergencyNoticeSchema } from '../../lib/emergency-schema.ts';

export const TIME_24H = /^(?:[01]\d|2[0-3]):[0-5]\d$/;
export const WEIGHT_MIN = 20;
export const WEIGHT_MAX = 500;
const maxLen = (n: number) => `Ensure this field has no more than ${n} characters.`;

const dateField = calendarDate;
// DRF's FloatField accepts numbers and numeric strings.
const weight = z
  .union([z.number(), z.string().trim().max(32, { error: 'A valid number is required.', abort: true }).regex(/^-?\d+(\.\d+)?$/, 'A valid number is required.').transform(Number)], { error: 'A valid number is required.' })
  .pipe(z.number({ error: 'A valid number is required.' }).min(WEIGHT_MIN, `Ensure this value is greater than or equal to ${WEIGHT_MIN}.`).max(WEIGHT_MAX, `Ensure this value is less than or equal to ${WEIGHT_MAX}.`));
const injectedAt = offsetDateTime;

export const WeightCreate = z.object({ weight_kg: weight, logged_on: dateField.optional(), note: z.string().max(1000, maxLen(1000)).optional() });
export const WeightPatch = WeightCreate.partial();
export const WeightSchema = z
  .object({
    id: z.uuid(),
    created_at: z.string(),
    updated_at: z.string(),
    weight_kg: z.number(),
    logged_on: z.string(),
    note: z.string(),
    verified_by: z.uuid().nullable().meta({ description: 'The clinician who verified this weight from a photo on the scales (docs/verification.md); null for a weight the patient typed' }),
    verified_at: z.string().nullable().meta({ description: 'When the weight was verified; a later edit of the weight or its day clears it' }),
  })
  .meta({ id: 'WeightEntry' });

// The goal weight (docs/journal.md): the weight entries' own bounds; null clears it.
export const GoalPut = z.object({ goal_weight_kg: weight.nullable() });
export const GoalSchema = z.object({ goal_weight_kg: z.number().nullable(), updated_at: z.string().nullable() }).meta({ id: 'JournalGoal' });

export const SITES = ['abdomen', 'thigh', 'upper_arm'] as const;
export const InjectionCreate = z.object({
  medication: z.string().max(64, maxLen(64)).optional(),
  dose: z.string().trim().min(1, 'This field may not be blank.').max(80, maxLen(80)),
  injected_at: injectedAt,
  injection_site: z.enum(SITES, { error: 'Must be one of abdomen, thigh, upper_arm.' }).nullable().optional(),
  note: z.string().max(1000, maxLen(1000)).optional(),
});
export const InjectionPatch = InjectionCreate.partial();
export const InjectionSchema = z
  .object({
    id: z.uuid(),
    created_at: z.string(),
    updated_at: z.string(),
    medication: z.string(),
    dose: z.string(),
    injected_at: z.string(),
    injection_site: z.enum(SITES).nullable(),
    note: z.string(),
  })
  .meta({ id: 'InjectionEntry' });

export const PlanPatch = z.object({
  medication: z.string().max(64, maxLen(64)).optional(),
  anchor_weekday: z.number({ error: 'A valid integer is required.' }).int('A valid integer is required.').min(0, 'Ensure this value is greater than or equal to 0.').max(6, 'Ensure this value is less than or equal to 6.').optional(),
  preferred_time: z.string().max(16, maxLen(16)).regex(TIME_24H, 'Use HH:MM on a 24-hour clock.').optional(),
  starts_on: dateField.optional(),
  active: z.boolean().optional(),
});
export const PlanSchema = z
  .object({
    id: z.uuid(),
    created_at: z.string(),
    updated_at: z.string(),
    medication: z.string(),
    anchor_weekday: z.number().int().meta({ description: '0 = Monday ... 6 = Sunday' }),
    preferred_time: z.string(),
    starts_on: z.string(),
    active: z.boolean(),
  })
  .meta({ id: 'InjectionPlan' });

export const NoteCreate = z.object({ content: z.string().trim().min(1, 'This field may not be blank.').max(5000, maxLen(5000)) });
export const NoteSchema = z.object({ id: z.uuid(), content: z.string(), created_at: z.string(), updated_at: z.string() }).meta({ id: 'JournalNote' });

export const SEVERITIES = ['mild', 'moderate', 'severe'] as const;
export const SideEffectCreate = z.object({
  symptom: z.string().trim().min(1, 'This field may not be blank.').max(200, maxLen(200)),
  severity: z.enum(SEVERITIES, { error: 'Must be one of mild, moderate, severe.' }),
  started_on: dateField.nullable().optional(),
  note: z.string().max(2000, maxLen(2000)).optional(),
});
export const SideEffectSchema = z
  .object({
    id: z.uuid(),
    symptom: z.string(),
    severity: z.enum(SEVERITIES),
    started_on: z.string().nullable(),
    note: z.string(),
    flagged: z.boolean(),
    created_at: z.string(),
  })
  .meta({ id: 'SideEffectReport' });
// A write answers with the entry and, when the patient's words (or a side-effect rule) raised an
// emergency, the one emergency shape (src/lib/emergency-schema.ts); null otherwise.
const withNotice = { emergency: EmergencyNoticeSchema.nullable() };
export const SideEffectCreatedSchema = SideEffectSchema.extend(withNotice).meta({ id: 'SideEffectReportCreated' });
export const WeightWrittenSchema = WeightSchema.extend(withNotice).meta({ id: 'WeightEntryWritten' });
export const InjectionWrittenSchema = InjectionSchema.extend(withNotice).meta({ id: 'InjectionEntryWritten' });
export const NoteWrittenSchema = NoteSchema.extend(withNotice).meta({ id: 'JournalNoteWritten' });

export const IdParams = z.object({ id: z.uuid() });
