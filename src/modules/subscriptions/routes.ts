// Subscriptions and renewals (spec 2.8, 2.9, 4.4), and the sandbox test clock (back office).
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ModuleOptions, ZodApp } from '../../http/plugin.ts';
import { bearerSecurity, currentUser } from '../../http/auth.ts';
import { CodeSchema, DetailCodeSchema, DetailSchema, ErrorCodeSchema, FieldErrorsSchema, UnauthorisedResponses, fail } from '../../http/errors.ts';
import { orderBy, pageSchema, respondPage } from '../../http/pagination.ts';
import { PLAN_ORDERING } from './service.ts';
import { pickLocale } from '../questionnaires/index.ts';
import { ConfirmBody, ConfirmResultSchema, RenewalOptionsSchema, SubscriptionSchema } from './schemas.ts';
import * as subs from './service.ts';

const unauthorised = UnauthorisedResponses;
const IdParams = z.object({ id: z.uuid() });

// Registers routes synchronously; the Promise is Fastify's plugin contract.
export default function subscriptionsModule(app: ZodApp, { deps }: ModuleOptions): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const common = { tags: ['subscriptions'], security: bearerSecurity };

  // Renewal cycle: open the renewal screen ahead of the period end; pause plans whose renewal was
  // missed (their charge is deferred by billing until a doctor approves the renewal).

  deps.scheduler.register('subscriptions.renewal-cycle', async () => {
    await subs.openRenewals(deps);
    await subs.pauseMissedRenewals(deps);
  });

  r.get(
    '/v1/users/subscriptions/renewal-options/',
    {
      schema: {
        ...common,
        summary: 'What the patient can do next in a category: confirm a pending renewal, order early, re-order, or why not',
        querystring: z.object({ category: z.string().max(64).optional(), locale: z.string().max(10).optional() }),
        response: { 200: RenewalOptionsSchema, 400: CodeSchema, ...unauthorised },
      },
    },
    async (request) => {
      const category = request.query.category;
      if (!category) throw fail('invalid_category', { message: 'The category query parameter is required.' });
      return subs.renewalOptions(deps, currentUser(request).id, category, pickLocale(request.query.locale, request.headers['accept-language']));
    },
  );

  r.post(
    '/v1/users/subscriptions/pending-choice/confirm/',
    {
      schema: {
        ...common,
        summary: 'Confirm the renewal choice (dose, treatment, safety answers); it then goes to a doctor’s review',
        description:
          'The engine runs over the renewal answers (docs/renewals.md). 400 `invalid_renewal_answers` + `errors` (answers are type-checked against the screen); 400 `renewal_emergency` + `emergency` + `reason_codes` (a red flag: nothing is confirmed); 400 `renewal_answers_required` + `missing_keys`; 400 `renewal_answer_ineligible` + `question_key` + `reason_codes`; 400 `invalid_treatment_variant`; 400 `dose_step_not_allowed` + `reason_codes` + `allowed_dosages` (titration, breaks in supply); 404 `{}` when the consultation is not the caller’s renewal; 409 `patient_choice_not_pending` + `patient_choice_status`.',
        body: ConfirmBody,
        response: { 200: ConfirmResultSchema, 400: CodeSchema.or(FieldErrorsSchema), 404: z.object({}), 409: CodeSchema, ...unauthorised },
      },
    },
    async (request) => subs.confirmRenewal(deps, currentUser(request).id, request.body, pickLocale(undefined, request.headers['accept-language'])),
  );

  r.get(
    '/v1/users/subscriptions/',
    { schema: { ...common, summary: 'The patient’s subscriptions, newest first', querystring: PLAN_ORDERING.query, response: { 200: pageSchema(SubscriptionSchema), ...unauthorised } } },
    async (request) => {
      const order = orderBy(request.query, PLAN_ORDERING);
      return respondPage(request, deps.config.PUBLIC_BASE_URL, ({ limit, offset }) => subs.listSubscriptions(deps, currentUser(request).id, limit, offset, order));
    },
  );

  r.get(
    '/v1/users/subscriptions/:id/',
    { schema: { ...common, summary: 'One subscription', params: IdParams, response: { 200: SubscriptionSchema, 404: DetailSchema, ...unauthorised } } },
    async (request) => subs.getSubscription(deps, currentUser(request).id, request.params.id),
  );

  for (const [action, cancel, summary] of [
    ['cancel', true, 'Cancel at the end of the current period (nothing more is charged)'],
    ['resume', false, 'Undo a cancellation requested for the period end'],
  ] as const) {
    r.post(
      `/v1/users/subscriptions/:id/${action}/`,
      {
        schema: { ...common, summary, params: IdParams, response: { 200: SubscriptionSchema, 404: DetailSchema, 409: ErrorCodeSchema, ...unauthorised } },
      },
      async (request) => subs.setCancelAtPeriodEnd(deps, currentUser(request).id, request.params.id, cancel),
    );
  }

  r.post(
    '/v1/users/subscriptions/:id/postpone/',
    {
      schema: {
        ...common,
        summary: `Move the next renewal date and charge later by 1 to ${subs.MAX_POSTPONE_DAYS} days (once per period, active plans)`,
        params: IdParams,
        body: z.object({ days: z.number().int().min(1).max(subs.MAX_POSTPONE_DAYS) }),
        response: { 200: SubscriptionSchema, 400: FieldErrorsSchema, 404: DetailSchema, 409: ErrorCodeSchema, ...unauthorised },
      },
    },
    async (request) => subs.postpone(deps, currentUser(request).id, request.params.id, request.body.days),
  );

  r.post(
    '/v1/users/subscriptions/:id/early-order/',
    {
      schema: {
        ...common,
        summary: 'Order the next supply now (charged at once, reviewed by a doctor), once per period inside the early-order window',
        params: IdParams,
        response: {
          200: z.object({ consultation_id: z.uuid(), subscription: SubscriptionSchema }),
          400: CodeSchema,
          402: ErrorCodeSchema,
          404: DetailSchema,
          409: CodeSchema,
          ...unauthorised,
        },
      },
    },
    async (request) => subs.earlyOrder(deps, currentUser(request).id, request.params.id),
  );

  // The sandbox test clock: back office only, sandbox provider only.
  const clockSchema = z.object({ now: z.string(), offset_seconds: z.number() });
  const clockOut = () => ({ now: deps.clock.now().toISOString(), offset_seconds: Math.round(deps.clock.offsetMs() / 1000) });
  const sandboxOnly = (): Promise<void> =>
    deps.config.PAYMENT_PROVIDER === 'sandbox'
      ? Promise.resolve()
      : Promise.reject(fail('test_clock_unavailable'));
  const staff = { tags: ['backoffice'], security: bearerSecurity };
  r.get(
    '/v1/backoffice/test-clock/',
    { preHandler: sandboxOnly, schema: { ...staff, summary: 'The service’s current time (sandbox test clock)', response: { 200: clockSchema, 403: DetailCodeSchema, 404: CodeSchema, ...unauthorised } } },
    () => Promise.resolve(clockOut()),
  );
  r.post(
    '/v1/backoffice/test-clock/advance/',
    {
      preHandler: sandboxOnly,
      schema: {
        ...staff,
        summary: 'Move the service’s time forward and run the due work (renewals, charges, reminders); sandbox only',
        body: z.object({ days: z.number().int().min(0).max(400).default(0), seconds: z.number().int().min(0).max(400 * 86400).default(0) }),
        response: { 200: clockSchema, 400: FieldErrorsSchema, 403: DetailCodeSchema, 404: CodeSchema, ...unauthorised },
      },
    },
    async (request) => {
      await deps.clock.advance((request.body.days * 86400 + request.body.seconds) * 1000);
      await deps.scheduler.runDue();
      return clockOut();
    },
  );
  return Promise.resolve();
}
