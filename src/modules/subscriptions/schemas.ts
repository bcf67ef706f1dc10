// Subscription and renewal shapes (spec 2.8, 2.9, 4.4).
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
  })
  .meta({ id: 'Subscription' });

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
