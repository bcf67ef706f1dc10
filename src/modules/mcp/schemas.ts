// Shapes of the assistant connector: tool inputs and outputs (compact summaries of the patient's
// records: what an assistant needs, never identity documents, provider ids or invoice bytes), and
// the connected-apps API.
import { z } from 'zod';
import { EmergencyNoticeSchema } from '../../lib/emergency-schema.ts';

// The one emergency shape of every answer (src/lib/emergency-schema.ts).
export const EmergencyOut = EmergencyNoticeSchema;
const page = { limit: z.number().int().min(1).max(100).optional().describe('Page size (default 20, max 100)'), offset: z.number().int().min(0).optional() };
export const PageInput = z.object(page);
export const EmptyIn = z.object({});
export const JournalIn = z.object({ limit: page.limit });
export const SubscriptionsIn = z.object({ category: z.string().max(64).optional().describe('A category slug (see list_questionnaires); all subscribed categories by default') });

export const ProfileOut = z.object({
  id: z.string(),
  email: z.string(),
  first_name: z.string(),
  last_name: z.string(),
  date_of_birth: z.string().nullable(),
  gender: z.string().nullable(),
  country_of_residence: z.string().nullable(),
  city: z.string().nullable(),
  timezone: z.string().nullable(),
  locale: z.string(),
  forms_completed: z.record(z.string(), z.boolean()),
  // Status only: the connector never receives an identity document, a selfie or a photo on the scales.
  verification: z.object({
    identity_status: z.string(),
    weight_status: z.string(),
    weight_due_at: z.string().nullable(),
    missing_by_category: z.record(z.string(), z.array(z.string())),
  }),
});

export const ConsultationOut = z.object({
  id: z.string(),
  status: z.string(),
  origin: z.string(),
  category: z.string(),
  plan: z.string(),
  treatment_id: z.string(),
  dosage: z.string(),
  supply_days: z.number().nullable(),
  decision_reason: z.string(),
  doctor: z.object({ first_name: z.string(), last_name: z.string() }).nullable(),
  prescription_ids: z.array(z.string()),
  created_at: z.string(),
  decided_at: z.string().nullable(),
  refund: z
    .object({ refunded_cents: z.number().int(), currency: z.string(), full: z.boolean() })
    .nullable()
    .describe('Money given back for this consultation (a rejected or expired review is refunded in full); null: nothing refunded'),
});
export const ConsultationsOut = z.object({ count: z.number().int(), results: z.array(ConsultationOut) });

export const PrescriptionOut = z.object({
  id: z.string(),
  consultation_id: z.string(),
  category: z.string(),
  treatment_name: z.string(),
  dosage: z.string(),
  instructions: z.string(),
  supply_days: z.number().nullable(),
  issued_at: z.string(),
  valid_until: z.string().nullable(),
  doctor: z.object({ first_name: z.string(), last_name: z.string() }),
});
export const OrderOut = z.object({
  id: z.string(),
  status: z.string(),
  consultation_id: z.string().nullable(),
  prescription_id: z.string().nullable(),
  items: z.array(z.object({ name: z.string(), dosage: z.string(), quantity: z.number(), supply_days: z.number().nullable() })),
  carrier: z.string().nullable(),
  tracking_number: z.string().nullable(),
  tracking_url: z.string().nullable(),
  shipped_at: z.string().nullable(),
  delivered_at: z.string().nullable(),
  created_at: z.string(),
});
export const PrescriptionsOrdersOut = z.object({
  prescriptions: z.object({ count: z.number().int(), results: z.array(PrescriptionOut) }),
  orders: z.array(OrderOut),
});

export const PaymentOut = z.object({
  id: z.string(),
  consultation_id: z.string().nullable(),
  subscription_id: z.string().nullable(),
  description: z.string(),
  billing_reason: z.string(),
  amount_cents: z.number().int(),
  refunded_amount_cents: z.number().int(),
  net_amount_cents: z.number().int(),
  currency: z.string(),
  status: z.string(),
  captured_at: z.string().nullable(),
  created_at: z.string(),
});
export const PaymentsOut = z.object({ count: z.number().int(), results: z.array(PaymentOut) });

export const SubscriptionOut = z.object({
  id: z.string(),
  status: z.string(),
  category: z.string(),
  treatment_id: z.string(),
  dosage: z.string().describe('The dose the doctor last approved'),
  price_cents: z.number().int(),
  currency: z.string(),
  cycle_days: z.number().int(),
  current_period_end: z.string(),
  cancel_at_period_end: z.boolean(),
  early_order_locked_until: z.string().nullable(),
});
export const RenewalOut = z.object({
  category: z.string(),
  mode: z.string().describe('pending_choice | early_order | express_reorder | blocked'),
  blocked_code: z.string().nullable(),
  pending_consultation_id: z.string().nullable(),
  current: z.object({ treatment_id: z.string(), dosage: z.string() }).nullable(),
  next_dosage: z.string().nullable(),
  alternatives: z.array(z.object({ treatment_id: z.string(), name: z.string(), dosages: z.array(z.string()) })),
  price: z.object({ amount_cents: z.number().int(), currency: z.string(), plan: z.string() }).nullable(),
});
export const SubscriptionsOut = z.object({ count: z.number().int(), results: z.array(SubscriptionOut), renewal_options: z.array(RenewalOut) });

export const MessageOut = z.object({ id: z.string(), sender_type: z.string(), content: z.string(), has_file: z.boolean(), is_read: z.boolean(), created_at: z.string() });
export const MessagesOut = z.object({ conversation_id: z.string(), unread_count: z.number().int(), messages: z.array(MessageOut) });

export const WeightOut = z.object({ id: z.string(), weight_kg: z.number(), logged_on: z.string(), note: z.string() });
export const InjectionOut = z.object({ id: z.string(), medication: z.string(), dose: z.string(), injected_at: z.string(), injection_site: z.string().nullable(), note: z.string() });
export const NoteOut = z.object({ id: z.string(), content: z.string(), created_at: z.string() });
export const PlanOut = z.object({ medication: z.string(), anchor_weekday: z.number().int().describe('0 = Monday ... 6 = Sunday'), preferred_time: z.string(), starts_on: z.string(), active: z.boolean() });
export const JournalOut = z.object({
  weights: z.object({ count: z.number().int(), results: z.array(WeightOut) }),
  injections: z.object({ count: z.number().int(), results: z.array(InjectionOut) }),
  notes: z.object({ count: z.number().int(), results: z.array(NoteOut) }),
  plan: PlanOut,
  next_injection_on: z
    .string()
    .nullable()
    .describe('The next injection day from the plan (YYYY-MM-DD, UTC calendar): the first plan weekday on or after the plan start, today and the day after the latest injection; null when the plan is paused'),
});
export const WeightsOut = z.object({ count: z.number().int(), results: z.array(WeightOut) });
export const DocumentLinksOut = z.object({
  note: z.string(),
  invoices: z.array(z.object({ payment_id: z.string(), description: z.string(), api_url: z.string(), page_url: z.string() })),
  prescriptions: z.array(z.object({ prescription_id: z.string(), treatment_name: z.string(), api_url: z.string(), page_url: z.string() })),
});
export const HealthSummaryOut = z.object({
  generated_at: z.string(),
  title: z.string(),
  sections: z.array(z.object({ title: z.string(), loinc: z.string(), items: z.array(z.string()) })),
  text: z.string(),
  note: z.string(),
});

export const PrivacyOut = z.object({
  note: z.string(),
  access_log: z.object({
    count: z.number().int(),
    results: z.array(z.object({ at: z.string(), actor_role: z.string(), actor_name: z.string(), action: z.string(), resource_type: z.string(), resource_id: z.string() })),
  }),
  connected_assistants: z.array(z.object({ client_name: z.string(), scopes: z.array(z.string()), connected_at: z.string(), revoked_at: z.string().nullable() })),
  page_url: z.string(),
});
export const SideEffectIn = z.object({
  symptom: z.string().trim().min(1).max(200).describe('What the patient feels, in their words'),
  severity: z.enum(['mild', 'moderate', 'severe']),
  started_on: z.string().regex(/^\d{4}-\d{2}-\d{2}$/).optional().describe('YYYY-MM-DD, not in the future'),
  note: z.string().max(2000).optional(),
});
export const SideEffectOut = z.object({
  emergency: EmergencyOut.nullable(),
  report: z.object({ id: z.string(), symptom: z.string(), severity: z.string(), started_on: z.string().nullable(), flagged: z.boolean() }),
});

export const CatalogueOut = z.object({
  locale: z.string(),
  categories: z.array(
    z.object({
      slug: z.string(),
      title: z.string(),
      description: z.string(),
      default_plan: z.string(),
      treatments: z.array(z.object({ treatment_id: z.string(), name: z.string(), dosages: z.array(z.string()) })),
    }),
  ),
});

// Write tools: the emergency notice (or null) first, then what was recorded.
export const LogWeightIn = z.object({
  weight_kg: z.number().min(20).max(500).describe('Body weight in kilograms'),
  logged_on: z.string().regex(/^\d{4}-\d{2}-\d{2}$/).optional().describe('YYYY-MM-DD, today by default; one entry per day (a second one replaces it)'),
  note: z.string().max(1000).optional(),
});
export const LogWeightOut = z.object({ emergency: EmergencyOut.nullable(), created: z.boolean(), entry: WeightOut });
export const LogInjectionIn = z.object({
  dose: z.string().trim().min(1).max(80).describe('Dose as written on the pen, e.g. "0.5 mg"'),
  injected_at: z.string().describe('Date and time with UTC offset, e.g. 2026-11-20T08:00:00+01:00'),
  medication: z.string().max(64).optional(),
  injection_site: z.enum(['abdomen', 'thigh', 'upper_arm']).optional(),
  note: z.string().max(1000).optional(),
});
export const LogInjectionOut = z.object({ emergency: EmergencyOut.nullable(), entry: InjectionOut });
export const AddNoteIn = z.object({ content: z.string().trim().min(1).max(5000) });
export const AddNoteOut = z.object({ emergency: EmergencyOut.nullable(), note: NoteOut });
export const SendMessageIn = z.object({ content: z.string().trim().min(1).max(5000).describe('The message to the medical team') });
export const SendMessageOut = z.object({ emergency: EmergencyOut.nullable(), conversation_id: z.string(), message: MessageOut.nullable() });

// ---------------------------------------------------------------- connected apps API

export const ConnectedAppSchema = z
  .object({
    id: z.uuid(),
    client_id: z.string(),
    client_name: z.string(),
    redirect_hosts: z.array(z.string()).meta({ description: 'Hosts of the registered redirect URIs' }),
    scopes: z.array(z.string()),
    created_at: z.string(),
    last_used_at: z.string().nullable(),
  })
  .meta({ id: 'ConnectedApp' });

// ---------------------------------------------------------------- steps behind a confirmation

const confirm = z
  .string()
  .max(200)
  .optional()
  .describe('The confirmation_token of the first call (two-step confirmation): the same input with this token submits. Leave it out on the first call.');

export const ConfirmRenewalIn = z.object({
  consultation_id: z.uuid().describe('The pending renewal (get_subscriptions: renewal_options[].pending_consultation_id)'),
  treatment_id: z.string().max(255).optional().describe('Another treatment of the category (default: the current one)'),
  dosage: z.string().max(255).optional().describe('The dose to continue with (default: the plan’s dose rules pick it)'),
  changed: z.boolean().optional().describe('Something changed since the last review (health, medicines): the broader review questions are then asked too'),
  answers: z
    .array(z.object({ question_key: z.string().max(100), values: z.record(z.string(), z.unknown()) }))
    .max(200)
    .optional()
    .describe('The renewal screen’s answers, as the API takes them: {question_key, values: {value: …}}'),
  change_note: z.string().max(1000).optional(),
  fulfilment: z
    .discriminatedUnion('method', [z.object({ method: z.literal('delivery') }), z.object({ method: z.literal('collection'), pharmacy_id: z.uuid() })])
    .optional()
    .describe('Delivery (default) or collection at a partner pharmacy'),
  confirm,
});

export const QuestionnaireIn = z.object({ category: z.string().max(64).describe('A category slug (see list_questionnaires)') });

const AnswerIn = z
  .object({
    step_id: z.number().int(),
    question_key: z.string().min(1).max(100),
    value: z.union([z.string().max(2000), z.number(), z.boolean()]).optional(),
    values: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();
export const SaveDraftIn = z.object({
  category: QuestionnaireIn.shape.category,
  data: z.array(AnswerIn).max(200).describe('Every answer of the draft (the whole set: answers left out are erased)'),
});
export const SubmitQuestionnaireIn = z.object({ category: QuestionnaireIn.shape.category, confirm });

const Answer = z.object({ step_id: z.number(), question_key: z.string(), value: z.unknown().optional(), values: z.record(z.string(), z.unknown()).optional() });
export const QuestionnaireOut = z.object({
  category: z.string(),
  locale: z.string(),
  steps: z.array(
    z.object({
      step_id: z.number(),
      title: z.string(),
      questions: z.array(
        z.object({
          question_key: z.string(),
          type: z.string(),
          required: z.boolean(),
          text: z.string(),
          options: z.array(z.object({ value: z.string(), label: z.string() })).optional(),
          unit: z.string().optional(),
          min: z.number().optional(),
          max: z.number().optional(),
        }).catchall(z.unknown()),
      ),
    }),
  ),
  draft: z.object({ id: z.string(), answers: z.array(Answer), updated_at: z.string() }),
});
export const SaveDraftOut = z.object({ emergency: EmergencyOut.nullable(), draft: z.object({ id: z.string(), answers: z.array(Answer), updated_at: z.string() }) });

const confirmation = {
  emergency: EmergencyOut.nullable(),
  status: z
    .enum(['submitted', 'confirmation_required', 'not_submitted', 'emergency'])
    .describe('submitted; confirmation_required (call again with confirm = confirmation_token); not_submitted (the patient declined); emergency (a red flag: nothing submitted)'),
  summary: z.string().describe('What is (or would be) submitted, to show the patient'),
  confirmation_token: z.string().nullable(),
  expires_at: z.string().nullable(),
};
export const ConfirmRenewalOut = z.object({
  ...confirmation,
  renewal: z
    .object({
      consultation_id: z.string(),
      patient_choice_status: z.string(),
      treatment_id: z.string(),
      dosage: z.string(),
      dose_change: z.object({ from: z.string(), to: z.string(), direction: z.string() }).nullable(),
      treatment_change: z.object({ from: z.string(), to: z.string() }).nullable(),
    })
    .nullable(),
});
export const SubmitQuestionnaireOut = z.object({
  ...confirmation,
  submission: z
    .object({ id: z.string(), outcome: z.string(), next_step: z.string().nullable(), message: z.string(), treatments: z.array(z.string()), created_at: z.string() })
    .nullable(),
});
