// Shapes of the red-flag desk (docs/red-flags.md).
import { z } from 'zod';

export const RedFlagSchema = z
  .object({
    id: z.uuid(),
    patient: z.object({ id: z.uuid(), email: z.string(), first_name: z.string(), last_name: z.string() }),
    source: z.enum(['message', 'journal_note', 'weight_entry', 'injection', 'side_effect', 'questionnaire', 'connector']),
    source_id: z.string().nullable().meta({ description: 'The row the text belongs to (the conversation for a message); null for questionnaire and connector drafts' }),
    kind: z.enum(['emergency', 'urgent', 'history', 'review']).meta({ description: 'emergency: the patient was shown the emergency notice; urgent: told to see a doctor today; history: a past or family event, or a negated mention of suicide; review: a side-effect rule' }),
    categories: z.array(z.string()),
    excerpt: z.string().meta({ description: 'The patient’s words (at most 1000 characters)' }),
    tier: z.enum(['emergency', 'urgent']).nullable().meta({ description: 'The tier of a current red flag (null for history and review)' }),
    due_at: z.string().nullable().meta({ description: 'When the desk must have acted on it (emergency 30 min, urgent 4 h, otherwise 3 days after it was raised)' }),
    evidence: z
      .array(z.object({ category: z.string(), by: z.enum(['rule', 'model']).or(z.string()), evidence: z.array(z.string()) }))
      .meta({ description: 'Per category, why it was raised: the words a rule matched, or the statistical layer’s strongest n-grams' }),
    created_at: z.string(),
    resolved_at: z.string().nullable(),
    resolved_by: z.string().nullable(),
    resolution: z.string().nullable(),
  })
  .meta({ id: 'RedFlag' });

export const DeskQuery = z.object({ status: z.enum(['open', 'resolved', 'all']).optional() });
export const ResolveBody = z.object({ resolution: z.string().trim().min(1, 'This field may not be blank.').max(2000, 'Ensure this field has no more than 2000 characters.') });
export const IdParams = z.object({ id: z.uuid() });
