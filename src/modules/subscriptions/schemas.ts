// Subscription and renewal shapes (spec 2.8, 2.9, 4.4).
import { CategoryVerification } from '../verification/index.ts';
import { z } from 'zod';
import { FulfilmentChoiceSchema } from '../pharmacies/index.ts';
import { StepOut } from '../questionnaires/index.ts';

export const SubscriptionSchema = z
  .object({
    id: z.uuid(),
    status: z.string(),
    price_cents: z.number().int(),
    currency: z.string(),
    started_at: z.string(),
    current_period_start: z.string(),
    current_period_end: z.string(),
    cancel_at_period_end: z.boolean(),
    canceled_at: z.string().nullable(),
    treatment_id: z.string().meta({ description: 'The treatment the doctor last approved for this plan (the checkout\'s until the first approval)' }),
    dosage: z.string().meta({ description: 'The dose the doctor last approved: the next renewal\'s dose ladder starts here' }),
    category: z.string(),
    interval: z.string(),
    interval_count: z.number().int(),
    cycle_days: z.number().int(),
    payment_method_brand: z.string().nullable(),
    payment_method_last4: z.string().nullable(),
    early_order_locked_until: z.string().nullable(),
    early_order_locked: z.boolean(),
    // Plan management: not shown in spec — our design (docs/plan-management.md).
    next_delivery_at: z.string().nullable().meta({ description: 'Not shown in spec — our design. When the next cycle starts (its renewal opens 7 days before, it is charged then): the period end unless the patient skipped, paused or moved it; null while paused until resumed or once ended' }),
    delivery_skipped: z.boolean().meta({ description: 'Not shown in spec — our design. The delivery after the current period is skipped' }),
    paused_by_patient: z.boolean().meta({ description: 'Not shown in spec — our design. Paused by the patient (status `paused`); a plan paused for a missed renewal has false' }),
    resumes_at: z.string().nullable().meta({ description: 'Not shown in spec — our design. When a patient’s pause ends by itself (null: until resumed)' }),
    next_cycle_dosage: z.string().nullable().meta({ description: 'Not shown in spec — our design. A dose the doctor approved on a dose-change request, for the next renewal' }),
    delivery_date_window: z
      .object({ earliest: z.string(), latest: z.string() })
      .nullable()
      .meta({ description: 'Not shown in spec — our design. The dates (YYYY-MM-DD) the next delivery may move to (active plans only)' }),
  })
  .meta({ id: 'Subscription' });

/** What a planned break in supply means for the dose (the engine's rule; null for medicines without a dose ladder). */
export const RestartSchema = z
  .object({
    at: z.string().nullable().meta({ description: 'The next delivery (null: paused until resumed)' }),
    current_dosage: z.string(),
    resume_dosage: z.string().nullable().meta({ description: 'The dose the supply may resume at on that date (the doctor prescribes it at the renewal)' }),
    dose_lowered: z.boolean(),
    supply_gap_days: z.number().int().nullable(),
    last_day_at_current_dose: z.string().meta({ description: 'YYYY-MM-DD: after it (more than 14 days without doses) the restart is at a lower dose' }),
    codes: z.array(z.string()).meta({ description: 'SUPPLY_BREAK_NO_STEP_UP, SUPPLY_BREAK_STEP_DOWN, SUPPLY_BREAK_RESTART_TITRATION' }),
    explanation: z.array(z.string()),
  })
  .meta({ id: 'PlanRestart' });

export const PlanChangeSchema = z
  .object({ subscription: SubscriptionSchema, restart: RestartSchema.nullable() })
  .meta({ id: 'PlanChange', description: 'Not shown in spec — our design. The plan after the change, and what the break in supply means for the restart dose' });

export const PauseBody = z.object({
  cycles: z.number().int().min(1).max(6).optional().meta({ description: '1 to 6 cycles, then the plan resumes by itself; omitted: until resumed' }),
});

export const DeliveryDateBody = z.object({
  date: z.iso.date().meta({ description: 'YYYY-MM-DD inside the plan’s `delivery_date_window`' }),
});

export const DoseChangeBody = z.object({
  dosage: z.string().min(1).max(255).meta({ description: 'A dose of the plan’s treatment (its ladder or strengths), not the current one' }),
  note: z.string().max(1000).default('').meta({ description: 'Why (e.g. side effects): for the doctor' }),
});

export const DoseChangeSchema = z
  .object({
    id: z.uuid(),
    subscription_id: z.uuid(),
    treatment_id: z.string(),
    from_dosage: z.string(),
    requested_dosage: z.string(),
    note: z.string(),
    status: z.string().meta({ description: 'pending, approved or declined' }),
    decided_dosage: z.string().nullable(),
    decision_note: z.string(),
    decided_at: z.string().nullable(),
    created_at: z.string(),
  })
  .meta({ id: 'DoseChangeRequest', description: 'Not shown in spec — our design. A dose change asked between renewals, decided by a doctor' });

export const DeskDoseChangeSchema = DoseChangeSchema.extend({
  user_id: z.uuid(),
  category: z.string(),
  plan_status: z.string(),
  next_delivery_at: z.string().nullable(),
  prescribing_check: z
    .object({ ok: z.boolean(), reason_codes: z.array(z.string()), allowed_dosages: z.array(z.string()), explanation: z.array(z.string()) })
    .nullable()
    .meta({ description: 'The engine on the requested dose for the next delivery date' }),
}).meta({ id: 'DeskDoseChangeRequest' });

export const DoseDecisionBody = z.object({
  decision: z.enum(['approve', 'decline']),
  dosage: z.string().min(1).max(255).optional().meta({ description: 'Approve another dose of the ladder than the requested one' }),
  note: z.string().max(2000).default('').meta({ description: 'Shown to the patient' }),
});

export const PriceSchema = z.object({
  amount_cents: z.number().int(),
  currency: z.string(),
  interval: z.string().nullable(),
  interval_count: z.number().int().nullable(),
  cycle_days: z.number().int().nullable(),
  plan: z.enum(['subscription', 'one_off']),
  supply_days: z.number().int().nullable(),
});

export const RenewalOptionsSchema = z
  .object({
    category: z.string(),
    mode: z.enum(['pending_choice', 'early_order', 'express_reorder', 'blocked']),
    blocked_code: z.string().nullable(),
    subscription: SubscriptionSchema.nullable(),
    pending_consultation_id: z.uuid().nullable(),
    current: z.object({ treatment_id: z.string(), dosage: z.string(), source: z.string() }).nullable(),
    ladder: z.object({ dosages: z.array(z.string()), current: z.string(), next: z.string(), held_at_max: z.boolean() }).nullable(),
    alternatives: z.array(z.object({ treatment_id: z.string(), name: z.string(), dosages: z.array(z.string()) })),
    required_steps: z.array(StepOut),
    review_steps: z.array(StepOut),
    reusable_prefill: z.array(z.object({ question_key: z.string(), value: z.unknown().optional(), values: z.record(z.string(), z.unknown()).optional() })),
    baseline_bmi: z.number().nullable(),
    baseline_unknown: z.boolean(),
    plan: z.enum(['subscription', 'one_off']),
    price: PriceSchema.nullable(),
    period: z.object({ current_period_end: z.string().nullable(), early_order_locked_until: z.string().nullable() }),
    express: z
      .object({ consultation_id: z.uuid(), treatment_id: z.string(), dosage: z.string(), approved_at: z.string(), valid_until: z.string() })
      .nullable(),
    verification: CategoryVerification.meta({ description: 'What the doctor’s approval of this category requires and what is missing (docs/verification.md): a renewal due while the verified weight has expired says so here' }),
  })
  .meta({ id: 'RenewalOptions' });

export const ConfirmBody = z.object({
  consultation_id: z.uuid(),
  treatment_id: z.string().max(255).optional(),
  dosage: z.string().max(255).optional(),
  changed: z.boolean().default(false),
  answers: z.array(z.object({ question_key: z.string().max(100), values: z.record(z.string().max(100), z.unknown()) })).max(200).default([]),
  change_note: z.string().max(1000).default(''),
  fulfilment: FulfilmentChoiceSchema.optional().meta({ description: 'Default `{method: "delivery"}`. `{method: "collection", pharmacy_id}`: the renewed supply is collected at that partner pharmacy (active, click-and-collect, in the country of residence; else 400 `fulfilment.pharmacy_id`)' }),
});

export const ConfirmResultSchema = z
  .object({
    consultation_id: z.uuid(),
    patient_choice_status: z.string(),
    treatment_id: z.string(),
    dosage: z.string(),
    dose_change: z.object({ from: z.string(), to: z.string(), direction: z.enum(['up', 'down']) }).nullable(),
    treatment_change: z.object({ from: z.string(), to: z.string() }).nullable(),
    renewal_screen_completed: z.boolean(),
  })
  .meta({ id: 'RenewalConfirmation' });
