// Checkout: start a checkout, the session check, the billing portal link; the payment providers'
// pages and webhook (through the ports in events.ts); the expiry and recurring-charge jobs.
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ModuleOptions, ZodApp } from '../../http/plugin.ts';
import { bearerSecurity, currentUser } from '../../http/auth.ts';
import { DetailCodeSchema, DetailSchema, ErrorNameSchema, FieldErrorsSchema, TokenErrorSchema } from '../../http/errors.ts';
import { registerSandboxPages, registerSandboxPortal, registerStripeWebhook } from '../../payment-providers/index.ts';
import { runDueCharges } from '../subscriptions/index.ts';
import { sandboxCheckoutPort, sandboxPortalPort, webhookPort } from './events.ts';
import { assertProfileComplete } from './profile-check.ts';
import { CheckoutBody, CheckoutResponse, RepeatCheckoutBody, RepeatCheckoutResponse, SessionResponse } from './schemas.ts';
import { startRepeatCheckout } from './repeat.ts';
import { billingPortal, checkSession, checkout, expireSessions } from './service.ts';
import { fields, notFoundDetail, session } from '../../http/operation.ts';

const auth401 = { 401: TokenErrorSchema };

export default function checkoutModule(app: ZodApp, { deps }: ModuleOptions): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();

  deps.scheduler.register('billing.recurring-charges', () => runDueCharges(deps));
  deps.scheduler.register('billing.expire-checkout-sessions', () => expireSessions(deps));

  r.post(
    '/v1/users/checkout/',
    {
      config: {
        idempotent: true,
        operation: {
          id: 'startCheckout',
          errors: {
            400: [
              { error_name: ['PROFILE_INCOMPLETE', 'SUBMISSION_REQUIRED', 'SUBMISSION_NOT_ELIGIBLE', 'PLAN_NOT_AVAILABLE', 'TREATMENT_NOT_ALLOWED', 'DOSAGE_NOT_ALLOWED', 'EC_DELIVERY_TOO_LATE', 'SERVICE_NOT_AVAILABLE_IN_COUNTRY'] },
              fields,
            ],
            409: [{ error_name: ['CONSULTATION_ALREADY_OPEN', 'SUBMISSION_ALREADY_USED'] }],
          },
          descriptions: { 200: 'The provider checkout page to send the patient to, or the consultation covered by the plan' },
          requestExample: { category: 'weight_loss', plan: 'subscription' },
        },
      },
      // The profile check runs before the body is validated: PROFILE_INCOMPLETE comes first.
      preValidation: async (request) => assertProfileComplete(deps.db, currentUser(request).id),
      schema: {
        tags: ['billing'],
        summary: 'Start a checkout for a consultation',
        description:
          'Refusals, in order: 400 PROFILE_INCOMPLETE {error_name, missing_fields}; 400 field errors; 400 SUBMISSION_REQUIRED (no submitted questionnaire in the category); 400 SUBMISSION_NOT_ELIGIBLE {outcome} (latest submission ineligible or emergency); 400 PLAN_NOT_AVAILABLE; 409 CONSULTATION_ALREADY_OPEN {consultation_id}; 409 SUBMISSION_ALREADY_USED {consultation_id} (the latest submission already has a consultation: submit again). Success: checkout_url + session_id of the provider page, or covered_by_subscription true with the consultation created at once. See docs/billing.md.',
        security: bearerSecurity,
        body: CheckoutBody,
        response: { 200: CheckoutResponse, 400: z.union([ErrorNameSchema, FieldErrorsSchema]), ...auth401, 409: ErrorNameSchema },
      },
    },
    async (request) => {
      const user = currentUser(request);
      return checkout(deps, { id: user.id, email: user.email }, request.body);
    },
  );

  const RepeatRefusalSchema = z
    .object({
      detail: z.string(),
      code: z.string(),
      earliest_at: z.iso.datetime({ offset: true }).optional().meta({ description: '`repeat_too_early`: from when the next supply can be ordered' }),
      order_id: z.uuid().optional().meta({ description: '`repeat_order_open`: the supply still waiting for the pharmacy' }),
      valid_until: z.iso.datetime({ offset: true }).optional().meta({ description: '`prescription_expired`: when the prescription stopped being valid' }),
    })
    .meta({ id: 'RepeatOrderRefusal' });

  r.post(
    '/v1/users/prescriptions/:id/repeat-orders/',
    {
      config: {
        idempotent: true,
        operation: {
          id: 'startRepeatOrder',
          errors: {
            400: [{ error_name: ['PROFILE_INCOMPLETE'] }, fields],
            404: [notFoundDetail],
            409: [{ detail_code: ['prescription_cancelled', 'prescription_expired', 'repeat_not_available', 'repeat_order_open', 'already_dispensed', 'repeat_too_early'] }],
          },
          descriptions: {
            200: 'The provider checkout page paying one repeat supply; the order opens when it is paid',
            404: 'No such prescription of this account (another account\'s answers the same)',
            409: 'No repeat can be ordered now: cancelled (reissued), past its validity (`valid_until`), no repeats (or a plan supplies it), a supply still waiting for the pharmacy (`order_id`), every supply used, or before the interval (`earliest_at`)',
          },
          requestExample: { success_url: 'https://app.example.org/checkout/complete?session_id={CHECKOUT_SESSION_ID}' },
        },
      },
      preValidation: async (request) => assertProfileComplete(deps.db, currentUser(request).id),
      schema: {
        tags: ['billing', 'prescriptions'],
        summary: 'Order a repeat of a prescription (pay one supply)',
        description:
          "Starts a checkout (kind `repeat_supply`) for one supply of the prescription's medicine at the catalogue's supply price (`supply_price_cents`, catalogue/prescription-products.json: the medicine, no consultation fee). Only for the caller's own prescription of a one-off consultation (a plan supplies through its renewals) that is not cancelled, still valid, has a repeat left, has no supply waiting for the pharmacy, and whose repeat interval has passed since the last dispensing. A newer call replaces the caller's older open repeat checkout of the prescription. Paying it (webhook, sandbox page or session check: GET /v1/users/{provider}/session/{id}/) opens the order the pharmacy dispenses as the repeat, shipped where the last supply went; a payment that could no longer open one is refunded at once (session `refunded`, `refund_reason: repeat_not_available`). See docs/prescriptions.md, \"Repeats\".",
        security: bearerSecurity,
        params: z.object({ id: z.uuid() }),
        body: RepeatCheckoutBody.optional(),
        response: { 200: RepeatCheckoutResponse, 400: z.union([ErrorNameSchema, FieldErrorsSchema]), ...auth401, 404: DetailSchema, 409: RepeatRefusalSchema },
      },
    },
    async (request) => {
      const user = currentUser(request);
      return startRepeatCheckout(deps, { id: user.id, email: user.email }, request.params.id, request.body ?? {});
    },
  );

  for (const provider of ['sandbox', 'stripe'] as const) {
    r.get(
      `/v1/users/${provider}/session/:id/`,
      {
        config: { operation: { id: provider === 'sandbox' ? 'getSandboxCheckoutSession' : 'getStripeCheckoutSession', errors: session(provider), descriptions: { 200: 'The state of the checkout session' } } },
        schema: {
          tags: ['billing'],
          summary: `State of a ${provider} checkout session`,
          description: `A paid session is finalised here if the provider webhook has not done it yet (exactly one consultation and payment per session). Unknown, another account's, or another provider's session: 404 {detail, code: "${provider}_session_not_found"}.`,
          security: bearerSecurity,
          // The router refuses a path parameter over 100 characters (414, Fastify's maxParamLength),
          // so the limit is published, not checked here.
          params: z.object({ id: z.string().meta({ maxLength: 100 }) }),
          response: { 200: SessionResponse, ...auth401, 404: DetailCodeSchema },
        },
      },
      async (request) => checkSession(deps, currentUser(request).id, provider, request.params.id),
    );
  }

  r.post(
    '/v1/users/billing-portal/',
    {
      config: {
        operation: {
          id: 'createBillingPortalLink',
          errors: { 400: [fields] },
          descriptions: { 200: 'The portal link (null when there is none)' },
          requestExample: { return_url: 'https://app.example.org/account/' },
        },
      },
      schema: {
        tags: ['billing'],
        summary: "Link to the payment provider's billing portal",
        description:
          'Where the patient updates the card of their plan (Stripe customer portal). `url` is null when the account has no live plan or the provider has no portal (sandbox). `return_url`: where the portal sends the patient back.',
        security: bearerSecurity,
        body: z.object({ return_url: z.string().max(2000).optional() }).optional(),
        response: { 200: z.object({ url: z.string().nullable(), provider: z.string().nullable() }), 400: FieldErrorsSchema, ...auth401 },
      },
    },
    async (request) => billingPortal(deps, currentUser(request).id, request.body?.return_url),
  );

  registerSandboxPages(app, deps, sandboxCheckoutPort(deps));
  if (deps.config.PAYMENT_PROVIDER === 'sandbox') registerSandboxPortal(app, deps, sandboxPortalPort(deps));
  registerStripeWebhook(app, deps, webhookPort(deps));
  return Promise.resolve();
}
