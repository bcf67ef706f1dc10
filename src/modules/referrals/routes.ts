// Referrals (spec 2.10, 4.5) and attribution events from the landing funnel.
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ModuleOptions, ZodApp } from '../../http/plugin.ts';
import { bearerSecurity, currentUser } from '../../http/auth.ts';
import { DetailCodeSchema, FieldErrorsSchema, UnauthorisedResponses } from '../../http/errors.ts';
import { orderBy, pageSchema, respondPage } from '../../http/pagination.ts';
import { REFERRAL_TX_ORDERING, REFERRED_ORDERING } from './service.ts';
import * as referrals from './service.ts';
import { fields } from '../../http/operation.ts';

const ATTRIBUTION_EVENTS_PER_MINUTE = 60;

const ReferredSchema = z
  .object({
    referred_user_id: z.uuid(),
    initials: z.string(),
    joined_at: z.string(),
    referred_at: z.string(),
    gross_cents: z.number().int(),
    commission_cents: z.number().int(),
    tx_count: z.number().int(),
    commission_withheld_reason: z
      .enum(['self_referral', 'same_payment_card'])
      .nullable()
      .meta({
        description:
          'Why this earns no commission: `self_referral` when the referred address is the referrer’s own mailbox (a +tag, or dots at gmail.com); `same_payment_card` when it paid with a card the referrer paid with too. Null: it earns.',
      }),
  })
  .meta({ id: 'ReferredPerson' });

const SummarySchema = z
  .object({
    referral_code: z.string(),
    share_url: z.string(),
    referred_count: z.number().int(),
    tx_count: z.number().int(),
    gross_cents: z.number().int(),
    net_cents: z.number().int(),
    commission_rate_percent: z.number(),
    commission_cents: z.number().int(),
    currency: z.string(),
  })
  .meta({ id: 'ReferralSummary' });

const TransactionSchema = z
  .object({
    payment_id: z.uuid(),
    referred_user_id: z.uuid(),
    initials: z.string(),
    amount_cents: z.number().int(),
    refunded_amount_cents: z.number().int(),
    net_cents: z.number().int(),
    commission_cents: z.number().int(),
    currency: z.string(),
    status: z.string(),
    created_at: z.string(),
    commission_withheld_reason: z
      .enum(['self_referral', 'same_payment_card'])
      .nullable()
      .meta({
        description:
          'Why this earns no commission: `self_referral` when the referred address is the referrer’s own mailbox (a +tag, or dots at gmail.com); `same_payment_card` when it paid with a card the referrer paid with too. Null: it earns.',
      }),
  })
  .meta({ id: 'ReferralTransaction' });

const short = (n: number) => z.string().trim().max(n);
const AttributionBody = z.object({
  event: z.enum(['landing_view', 'signup_started', 'signup_completed'], { error: 'Must be one of landing_view, signup_started, signup_completed.' }),
  referral_code: short(32).optional(),
  utm_source: short(100).optional(),
  utm_medium: short(100).optional(),
  utm_campaign: short(100).optional(),
  landing_path: short(500).optional(),
});

export default function referralsModule(app: ZodApp, { deps }: ModuleOptions): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const common = { tags: ['referrals'], security: bearerSecurity };
  const unauthorised = UnauthorisedResponses;

  r.get(
    '/v1/users/referrals/me/referred/',
    {
      config: {
        operation: { id: 'listReferredPeople', descriptions: { 200: 'A page of referred people (initials only)' } },
      },
      schema: { ...common, summary: 'People the patient referred (initials only), newest first', querystring: REFERRED_ORDERING.query, response: { 200: pageSchema(ReferredSchema), ...unauthorised } },
    },
    async (request) => {
      const order = orderBy(request.query, REFERRED_ORDERING);
      return respondPage(request, deps.config.PUBLIC_BASE_URL, ({ limit, offset }) => referrals.referred(deps, currentUser(request).id, limit, offset, order));
    },
  );

  r.get(
    '/v1/users/referrals/me/',
    { config: { operation: { id: 'getReferralSummary', descriptions: { 200: 'Code, link, totals and commission' } } }, schema: { ...common, summary: 'Referral code, share link, totals and commission', response: { 200: SummarySchema, ...unauthorised } } },
    async (request) => referrals.summary(deps, currentUser(request).id),
  );

  r.get(
    '/v1/users/referrals/me/transactions/',
    {
      config: {
        operation: { id: 'listReferralTransactions', descriptions: { 200: 'A page of commission-earning payments' } },
      },
      schema: { ...common, summary: 'Payments of referred people that earn commission, newest first', querystring: REFERRAL_TX_ORDERING.query, response: { 200: pageSchema(TransactionSchema), ...unauthorised } },
    },
    async (request) => {
      const order = orderBy(request.query, REFERRAL_TX_ORDERING);
      return respondPage(request, deps.config.PUBLIC_BASE_URL, ({ limit, offset }) => referrals.transactions(deps, currentUser(request).id, limit, offset, order));
    },
  );

  r.post(
    '/v1/users/referrals/attribution-events/',
    {
      config: {
        access: 'public',
        operation: {
          id: 'recordAttributionEvent',
          errors: { 400: [fields], 429: [{ detail_code: ['throttled'] }] },
          descriptions: { 202: 'Recorded' },
        },
      },
      schema: {
        tags: ['referrals'],
        security: [],
        summary: 'Record a landing-funnel event for later attribution (no token; rate-limited per IP)',
        body: AttributionBody,
        response: { 202: z.object({ id: z.uuid() }), 400: FieldErrorsSchema, 429: DetailCodeSchema },
      },
    },
    async (request, reply) => {
      await deps.limiters.budget('attribution-ip', ATTRIBUTION_EVENTS_PER_MINUTE, 60).consume(request.ip);
      return reply.code(202).send({ id: await referrals.recordAttribution(deps, request.body, request.ip) });
    },
  );
  return Promise.resolve();
}
