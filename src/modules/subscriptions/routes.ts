// Subscriptions and renewals (spec 2.8, 2.9, 4.4), and the sandbox test clock (back office).
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ModuleOptions, ZodApp } from '../../http/plugin.ts';
import { bearerSecurity, currentUser } from '../../http/auth.ts';
import { CodeSchema, DetailCodeSchema, DetailSchema, ErrorCodeSchema, FieldErrorsSchema, UnauthorisedResponses, fail } from '../../http/errors.ts';
import { orderBy, pageSchema, respondPage } from '../../http/pagination.ts';
import { PLAN_ORDERING } from './service.ts';
import { pickLocale } from '../questionnaires/index.ts';
import {
  ConfirmBody,
  ConfirmResultSchema,
  DeliveryDateBody,
  DeskDoseChangeSchema,
  DoseChangeBody,
  DoseChangeSchema,
  DoseDecisionBody,
  PauseBody,
  PlanChangeSchema,
  RenewalOptionsSchema,
  SubscriptionSchema,
} from './schemas.ts';
import * as subs from './service.ts';
import * as manage from './management.ts';
import { logStaffRead } from '../audit/index.ts';
import { fields, notFoundDetail, type OperationDoc } from '../../http/operation.ts';

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
      config: {
        operation: { id: 'getRenewalOptions', errors: { 400: [{ code: ['invalid_category'] }] }, descriptions: { 200: 'What the patient can do next in the category' } },
      },
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
      config: {
        operation: {
          id: 'confirmRenewalChoice',
          errors: {
            400: [{ code: ['renewal_answers_required', 'renewal_answer_ineligible', 'invalid_renewal_answers', 'renewal_emergency', 'invalid_treatment_variant', 'dose_step_not_allowed'] }, fields],
            404: ['empty'],
            409: [{ code: ['patient_choice_not_pending'] }],
          },
          descriptions: { 200: 'The confirmed choice (now waiting for a doctor)', 404: 'The consultation is not a renewal of the caller waiting for a choice (empty body)' },
        },
      },
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
    { config: { operation: { id: 'listSubscriptions', descriptions: { 200: 'A page of subscriptions' } } }, schema: { ...common, summary: 'The patient’s subscriptions, newest first', querystring: PLAN_ORDERING.query, response: { 200: pageSchema(SubscriptionSchema), ...unauthorised } } },
    async (request) => {
      const order = orderBy(request.query, PLAN_ORDERING);
      return respondPage(request, deps.config.PUBLIC_BASE_URL, ({ limit, offset }) => subs.listSubscriptions(deps, currentUser(request).id, limit, offset, order));
    },
  );

  r.get(
    '/v1/users/subscriptions/:id/',
    { config: { operation: { id: 'getSubscription', errors: { 404: [notFoundDetail] }, descriptions: { 200: 'The subscription' } } }, schema: { ...common, summary: 'One subscription', params: IdParams, response: { 200: SubscriptionSchema, 404: DetailSchema, ...unauthorised } } },
    async (request) => subs.getSubscription(deps, currentUser(request).id, request.params.id),
  );

  for (const [action, cancel, summary] of [
    ['cancel', true, 'Cancel at the end of the current period (nothing more is charged)'],
    ['resume', false, 'Undo a cancellation requested for the period end'],
  ] as const) {
    r.post(
      `/v1/users/subscriptions/:id/${action}/`,
      {
        config: {
          operation: (
            {
              cancel: { id: 'cancelSubscription', errors: { 404: [notFoundDetail], 409: [{ error: ['subscription_not_active'] }] }, descriptions: { 200: 'The subscription, ending at the period end' } },
              resume: { id: 'resumeSubscription', errors: { 404: [notFoundDetail], 409: [{ error: ['subscription_not_active'] }] }, descriptions: { 200: 'The subscription, renewing again' } },
            } satisfies Record<typeof action, OperationDoc>
          )[action],
        },
        schema: { ...common, summary, params: IdParams, response: { 200: SubscriptionSchema, 404: DetailSchema, 409: ErrorCodeSchema, ...unauthorised } },
      },
      async (request) => subs.setCancelAtPeriodEnd(deps, currentUser(request).id, request.params.id, cancel),
    );
  }

  r.post(
    '/v1/users/subscriptions/:id/postpone/',
    {
      config: {
        operation: {
          id: 'postponeSubscription',
          errors: { 400: [fields], 404: [notFoundDetail], 409: [{ error: ['subscription_not_active', 'already_postponed'] }] },
          descriptions: { 200: 'The subscription with its new period end' },
          requestExample: { days: 7 },
        },
      },
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
      config: {
        operation: {
          id: 'orderSupplyEarly',
          errors: {
            400: [{ code: ['dose_step_not_allowed'] }],
            402: [{ error: ['payment_failed'] }],
            404: [notFoundDetail],
            409: [
              { error: ['subscription_paused'] },
              {
                code: [
                  'early_order_unavailable',
                  'early_order_period_already_advanced',
                  'early_order_period_unavailable',
                  'early_order_pending_review',
                  'early_order_subscription_ending',
                  'subscription_payment_required',
                  'no_prior_treatment',
                ],
              },
            ],
          },
          descriptions: { 200: 'The early order: charged and waiting for a doctor' },
        },
      },
      schema: {
        ...common,
        summary: 'Order the next supply now (charged at once, reviewed by a doctor), once per period inside the early-order window',
        params: IdParams,
        response: {
          200: z.object({ consultation_id: z.uuid(), subscription: SubscriptionSchema }),
          400: CodeSchema,
          402: ErrorCodeSchema,
          404: DetailSchema,
          409: CodeSchema.or(ErrorCodeSchema),
          ...unauthorised,
        },
      },
    },
    async (request) => subs.earlyOrder(deps, currentUser(request).id, request.params.id),
  );

  // Plan management (docs/plan-management.md): not shown in spec — our design.
  const planChange = { 200: PlanChangeSchema, 404: DetailSchema, 409: ErrorCodeSchema, ...unauthorised };
  r.post(
    '/v1/users/subscriptions/:id/skip/',
    {
      config: {
        idempotent: true,
        operation: {
          id: 'skipNextDelivery',
          errors: { 404: [notFoundDetail], 409: [{ error: ['subscription_not_active', 'renewal_rejected', 'subscription_ending', 'managed_by_provider', 'subscription_paused', 'next_delivery_approved', 'already_skipped'] }] },
          descriptions: { 200: 'The plan with its next delivery one cycle later, and the restart dose' },
        },
      },
      schema: {
        ...common,
        summary: 'Skip the next delivery: that cycle is neither charged nor shipped, the following one is (once per period)',
        description: 'Not shown in spec — our design (docs/plan-management.md). An open renewal of the period is withdrawn and reopens before the new date. 409: `subscription_not_active`, `renewal_rejected`, `subscription_ending`, `managed_by_provider`, `subscription_paused`, `next_delivery_approved`, `already_skipped`.',
        params: IdParams,
        response: planChange,
      },
    },
    async (request) => manage.skipNextDelivery(deps, currentUser(request).id, request.params.id),
  );
  r.post(
    '/v1/users/subscriptions/:id/pause/',
    {
      config: {
        idempotent: true,
        operation: {
          id: 'pauseSubscription',
          errors: { 400: [fields], 404: [notFoundDetail], 409: [{ error: ['subscription_not_active', 'renewal_rejected', 'subscription_ending', 'managed_by_provider', 'subscription_paused', 'next_delivery_approved'] }] },
          descriptions: { 200: 'The paused plan, and the restart dose' },
          requestExample: { cycles: 2 },
        },
      },
      schema: {
        ...common,
        summary: 'Pause the plan for 1 to 6 cycles or until resumed: nothing is charged or shipped',
        description: 'Not shown in spec — our design (docs/plan-management.md). `restart` says what the break means for the dose: after more than 14 days without doses a titrated medicine (semaglutide, tirzepatide) restarts lower, as the doctor prescribes at the renewal. 409 as skip.',
        params: IdParams,
        body: PauseBody,
        response: { ...planChange, 400: FieldErrorsSchema },
      },
    },
    async (request) => manage.pausePlan(deps, currentUser(request).id, request.params.id, request.body.cycles ?? null),
  );
  r.post(
    '/v1/users/subscriptions/:id/unpause/',
    {
      config: {
        operation: {
          id: 'unpauseSubscription',
          errors: { 404: [notFoundDetail], 409: [{ error: ['subscription_not_paused'] }] },
          descriptions: { 200: 'The plan, active again, and the restart dose' },
        },
      },
      schema: {
        ...common,
        summary: 'End the patient’s pause now: the renewal opens for the next delivery',
        description: 'Not shown in spec — our design. 409 `subscription_not_paused` unless the patient paused it.',
        params: IdParams,
        response: planChange,
      },
    },
    async (request) => manage.unpausePlan(deps, currentUser(request).id, request.params.id),
  );
  r.post(
    '/v1/users/subscriptions/:id/delivery-date/',
    {
      config: {
        operation: {
          id: 'setNextDeliveryDate',
          errors: { 400: [fields], 404: [notFoundDetail], 409: [{ error: ['subscription_not_active', 'renewal_rejected', 'subscription_ending', 'managed_by_provider', 'subscription_paused', 'next_delivery_approved'] }] },
          descriptions: { 200: 'The plan with its new next delivery, and the restart dose' },
          requestExample: { date: '2026-12-24' },
        },
      },
      schema: {
        ...common,
        summary: 'Move the next delivery to a date inside the plan’s delivery_date_window',
        description: 'Not shown in spec — our design (docs/plan-management.md). Outside the window: 400 `{date: [...]}`. 409 as skip.',
        params: IdParams,
        body: DeliveryDateBody,
        response: { ...planChange, 400: FieldErrorsSchema },
      },
    },
    async (request) => manage.setDeliveryDate(deps, currentUser(request).id, request.params.id, request.body.date),
  );
  r.post(
    '/v1/users/subscriptions/:id/dose-change-requests/',
    {
      config: {
        idempotent: true,
        operation: {
          id: 'requestDoseChange',
          errors: { 400: [{ code: ['dose_step_not_allowed'] }, fields], 404: [notFoundDetail], 409: [{ error: ['renewal_open', 'dose_change_pending', 'subscription_not_active', 'subscription_ending', 'renewal_rejected'] }] },
          descriptions: { 201: 'The request, waiting for a doctor' },
          requestExample: { dosage: '0.25 mg', note: 'Nausea most days since the last step up.' },
        },
      },
      schema: {
        ...common,
        summary: 'Ask the doctor for another dose between renewals',
        description:
          'Not shown in spec — our design (docs/plan-management.md). The dose must be on the treatment’s ladder and allowed by the prescribing rule for the next delivery (400 `dose_step_not_allowed` + `allowed_dosages`). 409 `renewal_open` (use the renewal screen), `dose_change_pending`, `subscription_not_active`, `subscription_ending`, `renewal_rejected`.',
        params: IdParams,
        body: DoseChangeBody,
        response: { 201: DoseChangeSchema, 400: CodeSchema.or(FieldErrorsSchema), 404: DetailSchema, 409: ErrorCodeSchema, ...unauthorised },
      },
    },
    async (request, reply) => {
      const out = await manage.requestDoseChange(deps, currentUser(request).id, request.params.id, request.body);
      return reply.code(201).send(out);
    },
  );
  r.get(
    '/v1/users/subscriptions/:id/dose-change-requests/',
    {
      config: {
        operation: { id: 'listDoseChangeRequests', errors: { 404: [notFoundDetail] }, descriptions: { 200: 'The plan’s requests, newest first (bare array)' } },
      },
      schema: {
        ...common,
        summary: 'The plan’s dose change requests and their outcomes, newest first',
        description: 'Not shown in spec — our design.',
        params: IdParams,
        response: { 200: z.array(DoseChangeSchema), 404: DetailSchema, ...unauthorised },
      },
    },
    async (request) => manage.listDoseChanges(deps, currentUser(request).id, request.params.id),
  );

  // The review desk's side of dose-change requests (doctors only: /v1/clinician/).
  const desk = { tags: ['clinician'], security: bearerSecurity };
  r.get(
    '/v1/clinician/dose-change-requests/',
    {
      config: {
        operation: { id: 'listDoseChangeQueue', descriptions: { 200: 'A page of requests waiting for a doctor' } },
      },
      schema: {
        ...desk,
        summary: 'Dose change requests waiting for a doctor, oldest first',
        description: 'Not shown in spec — our design (docs/plan-management.md). Each with the engine’s check of the requested dose for the next delivery.',
        response: { 200: pageSchema(DeskDoseChangeSchema), 401: UnauthorisedResponses[401], 403: DetailCodeSchema },
      },
    },
    async (request) => {
      const page = await respondPage(request, deps.config.PUBLIC_BASE_URL, ({ limit, offset }) => manage.doseChangeQueue(deps, limit, offset));
      await logStaffRead(deps, request, 'profile', page.results.map((x) => x.user_id));
      return page;
    },
  );
  r.post(
    '/v1/clinician/dose-change-requests/:id/decide/',
    {
      config: {
        operation: {
          id: 'decideDoseChangeRequest',
          errors: { 400: [{ code: ['dose_step_not_allowed'] }, fields], 404: [notFoundDetail], 409: [{ detail_code: ['dose_change_not_pending'] }, { error: ['subscription_not_active'] }] },
          descriptions: { 200: 'The decided request' },
          requestExample: { decision: 'approve', note: 'Stay at 0.25 mg for four more weeks.' },
        },
      },
      schema: {
        ...desk,
        summary: 'Approve (the dose becomes the next cycle’s) or decline a dose change request',
        description:
          'Not shown in spec — our design. An approved dose is re-checked by the prescribing rule for the next delivery (400 `dose_step_not_allowed`) and becomes the open renewal’s dose, else the next renewal’s (`next_cycle_dosage`). The patient is emailed (no health details). 409 `dose_change_not_pending`.',
        params: IdParams,
        body: DoseDecisionBody,
        response: { 200: DeskDoseChangeSchema, 400: CodeSchema.or(FieldErrorsSchema), 401: UnauthorisedResponses[401], 403: DetailCodeSchema, 404: DetailSchema, 409: DetailCodeSchema.or(ErrorCodeSchema) },
      },
    },
    async (request) => {
      const out = await manage.decideDoseChange(deps, currentUser(request).id, request.params.id, request.body);
      await logStaffRead(deps, request, 'profile', out.user_id);
      return out;
    },
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
    { config: { operation: { id: 'getTestClock', errors: { 404: [{ code: ['test_clock_unavailable'] }] }, descriptions: { 200: 'The service clock' } } }, preHandler: sandboxOnly, schema: { ...staff, summary: 'The service’s current time (sandbox test clock)', response: { 200: clockSchema, 403: DetailCodeSchema, 404: CodeSchema, ...unauthorised } } },
    () => Promise.resolve(clockOut()),
  );
  r.post(
    '/v1/backoffice/test-clock/advance/',
    {
      config: {
        operation: {
          id: 'advanceTestClock',
          errors: { 400: [fields], 404: [{ code: ['test_clock_unavailable'] }] },
          descriptions: { 200: 'The service clock after the due work ran' },
          requestExample: { days: 30, seconds: 0 },
        },
      },
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
