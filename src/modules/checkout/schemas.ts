import { z } from 'zod';
import { FulfilmentChoiceSchema } from '../pharmacies/index.ts';
import { EcDeliverySchema } from '../questionnaires/index.ts';

export const CheckoutBody = z.object({
  category: z.string().min(1).max(64).meta({ description: 'Questionnaire category key, e.g. weight_loss, hair_growth' }),
  plan: z.enum(['one_off', 'subscription']).default('one_off'),
  treatment_id: z.string().min(1).max(255).optional().meta({ description: 'Default: the treatment suggested by the eligible submission, else the first treatment sold on this plan' }),
  dosage: z.string().min(1).max(255).optional().meta({ description: 'Default: the suggested dosage, else the first step of the dosage ladder' }),
  success_url: z.string().max(2000).optional().meta({ description: 'Where the provider page returns after payment; {CHECKOUT_SESSION_ID} is replaced' }),
  cancel_url: z.string().max(2000).optional().meta({ description: 'Where the provider page returns when the patient declines' }),
  fulfilment: FulfilmentChoiceSchema.optional().meta({ description: 'Default `{method: "delivery"}`. `{method: "collection", pharmacy_id}`: the order is collected at that partner pharmacy (active, click-and-collect, in the country of residence; else 400 `fulfilment.pharmacy_id`)' }),
});

export const CheckoutResponse = z
  .object({
    covered_by_subscription: z.boolean(),
    checkout_url: z.string().nullable(),
    session_id: z.string().nullable(),
    provider: z.string().nullable(),
    consultation_id: z.uuid().nullable(),
    plan: z.enum(['one_off', 'subscription']),
    category: z.string(),
    treatment_id: z.string(),
    dosage: z.string(),
    amount_cents: z.number().int(),
    currency: z.string(),
    supply_days: z.number().int().nullable(),
    expires_at: z.iso.datetime({ offset: true }).nullable(),
    delivery_estimate: EcDeliverySchema.nullable().meta({ description: 'Emergency contraception delivered: the expected arrival, inside the window (a delivery that cannot arrive in time is refused with 400 EC_DELIVERY_TOO_LATE)' }),
  })
  .meta({ id: 'CheckoutResult' });

export const SessionResponse = z
  .object({
    id: z.string(),
    provider: z.string(),
    status: z.enum(['open', 'paid', 'declined', 'expired', 'refunded']).meta({
      description: '`refunded`: paid, but for a review already paid for (another tab or session); refunded at once, nothing created',
    }),
    refund_reason: z
      .enum(['submission_already_paid', 'consultation_already_open', 'plan_already_active', 'repeat_not_available'])
      .nullable()
      .meta({ description: 'Why a paid session was refunded as a duplicate (null otherwise); `repeat_not_available`: a repeat supply paid when it could no longer be ordered (another one came first, or the prescription expired or was reissued meanwhile)' }),
    kind: z.enum(['consultation', 'repeat_supply']).meta({ description: '`consultation`: a consultation\'s checkout (POST /v1/users/checkout/); `repeat_supply`: one repeat supply of a prescription (POST /v1/users/prescriptions/{id}/repeat-orders/), whose payment opens the order instead of a consultation' }),
    prescription_id: z.uuid().nullable().meta({ description: 'The prescription a `repeat_supply` session supplies (null otherwise)' }),
    category: z.string(),
    plan: z.string(),
    treatment_id: z.string(),
    dosage: z.string(),
    amount_cents: z.number().int(),
    currency: z.string(),
    checkout_url: z.string().nullable(),
    consultation_id: z.uuid().nullable(),
    payment_id: z.uuid().nullable(),
    subscription_id: z.uuid().nullable(),
    expires_at: z.iso.datetime({ offset: true }),
    finalised_at: z.iso.datetime({ offset: true }).nullable(),
  })
  .meta({ id: 'CheckoutSession' });

export const RepeatCheckoutBody = z
  .object({
    success_url: z.string().max(2000).optional().meta({ description: 'Where the provider page returns after payment; {CHECKOUT_SESSION_ID} is replaced' }),
    cancel_url: z.string().max(2000).optional().meta({ description: 'Where the provider page returns when the patient declines' }),
  })
  .strict();

export const RepeatCheckoutResponse = z
  .object({
    kind: z.literal('repeat_supply'),
    prescription_id: z.uuid(),
    checkout_url: z.string(),
    session_id: z.string(),
    provider: z.string(),
    treatment_id: z.string(),
    dosage: z.string(),
    amount_cents: z.number().int().meta({ description: "One supply of the medicine at the catalogue's `supply_price_cents` (no consultation fee)" }),
    currency: z.string(),
    supply_days: z.number().int().nullable(),
    repeats_left: z.number().int().meta({ description: 'Supplies the prescription still allows, this one included' }),
    expires_at: z.iso.datetime({ offset: true }),
  })
  .meta({ id: 'RepeatCheckoutResult' });
