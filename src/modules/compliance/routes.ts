// Public pages' data and the public cancellation (docs/compliance.md): GET /v1/public/doctors/,
// GET /v1/public/site/, POST /v1/public/cancel/ and /v1/public/cancel/confirm/; the doctor's own
// listing at /v1/clinician/profile/.
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { CATEGORIES } from '../questionnaires/index.ts';
import { noticePriceChanges, pushNoticedPricesToProvider } from '../subscriptions/index.ts';
import type { ModuleOptions, ZodApp } from '../../http/plugin.ts';
import { bearerSecurity, currentUser } from '../../http/auth.ts';
import { DetailCodeSchema, DetailSchema, ErrorCodeSchema, FieldErrorsSchema, TokenErrorSchema } from '../../http/errors.ts';
import { fields, notFoundDetail } from '../../http/operation.ts';
import { requestTreatmentSwitch } from './switch.ts';
import { confirmCancellation, deskProfile, listExtraordinaryCancellations, publicDoctors, requestCancellation, reviewExtraordinaryCancellation, setDeskListing, siteInfo } from './service.ts';
import { logStaffRead } from '../audit/index.ts';
import { pageSchema, PageQuery, respondPage } from '../../http/pagination.ts';

const Regulator = z.object({ name: z.string(), register_url: z.string() }).nullable();
const PublicDoctor = z.object({
  name: z.string(),
  registration_number: z.string(),
  registration_country: z.string().nullable().meta({ description: 'ISO 3166 alpha-3: where the doctor is registered (the regulator below)' }),
  regulator: Regulator.meta({ description: 'Where anyone can check the registration; null for a country without a known public register' }),
});
const DeskProfile = PublicDoctor.extend({ registration_number: z.string().nullable(), public_listing: z.boolean() });
const SiteInfo = z.object({
  distance_selling: z
    .object({ register_url: z.string(), pharmacy_name: z.string(), country: z.string() })
    .nullable()
    .meta({ description: 'The dispensing pharmacy and its entry in the national register the EU common logo links to (Regulation (EU) 699/2014); null only outside production' }),
  imprint: z.object({
    name: z.string().nullable(),
    address: z.array(z.string()),
    country: z.string().nullable(),
    vat_id: z.string().nullable(),
    email: z.string().nullable(),
    phone: z.string().nullable(),
    representative: z.string().nullable(),
    register: z.string().nullable(),
    supervisory_authority: z.string().nullable(),
    professional_rules: z.string().nullable(),
  }),
  accessibility: z.object({ contact_email: z.string().nullable() }),
  price_change_notice_days: z.number().int(),
});
const day = z.iso.date({ error: 'Use a date such as 2026-12-31.' });
const CancelBody = z.object({
  name: z.string().trim().min(1, 'Enter your name.').max(200),
  email: z.email({ error: 'Enter a valid email address.' }).max(254),
  plan: z.enum(['all', ...CATEGORIES] as [string, ...string[]], { error: 'Choose which plan to cancel.' }).meta({ description: '`all`, or the category of the plan to cancel' }),
  kind: z.enum(['ordinary', 'extraordinary'], { error: 'Choose ordinary or extraordinary.' }),
  date: day.meta({ description: 'The date the cancellation should take effect. Ordinary: the plan ends at the end of the period already paid, not before. Extraordinary: a date that has come ends the plan on confirmation; a later one at the period end' }),
  reason: z.string().trim().max(2000).optional().meta({ description: 'The good cause of an extraordinary cancellation (§ 312k (2) 1 b BGB): required for it, not taken for an ordinary one' }),
}).superRefine((v, issue) => {
  if (v.kind === 'extraordinary' && !v.reason) issue.addIssue({ code: 'custom', path: ['reason'], message: 'Give the reason for an extraordinary cancellation.' });
});
const Accepted = z.object({ detail: z.string() });
const ConfirmBody = z.object({ token: z.string().min(10).max(200) });
const ConfirmOut = z.object({
  already_confirmed: z.boolean(),
  received_at: z.string(),
  plans: z.array(z.object({ category: z.string(), ends_at: z.string(), status: z.string(), cancel_at_period_end: z.boolean() })),
});

const SAME_ANSWER = 'If this address belongs to an account with a running plan, we have sent it a confirmation link and a receipt with the date and time.';

// Registers routes synchronously; the promise is Fastify's async-plugin contract.
export default function complianceModule(app: ZodApp, { deps }: ModuleOptions): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  // A catalogue price change is noticed to running plans before it is charged (docs/compliance.md).
  deps.scheduler.register('compliance.price-change-notices', async () => {
    await noticePriceChanges(deps);
    await pushNoticedPricesToProvider(deps);
  });
  const pub = { tags: ['public'], security: [] };

  r.get(
    '/v1/public/doctors/',
    {
      config: { access: 'public', operation: { id: 'listPublicDoctors', descriptions: { 200: 'The prescribing doctors' } } },
      schema: {
        ...pub,
        summary: 'The prescribing doctors (public)',
        description: 'Every active doctor with a registration number who has not opted out on their desk profile: name, registration number, the country of registration and the regulator whose public register checks it. Not shown in spec — our design (docs/compliance.md).',
        response: { 200: z.object({ results: z.array(PublicDoctor) }) },
      },
    },
    async () => publicDoctors(deps),
  );

  r.get(
    '/v1/public/site/',
    {
      config: { access: 'public', operation: { id: 'getPublicSiteInfo', descriptions: { 200: 'The legal settings of the deployment' } } },
      schema: {
        ...pub,
        summary: 'The deployment’s legal settings (public)',
        description: 'What the public pages show from configuration: the dispensing pharmacy and its national register entry (EU common logo), the imprint, where accessibility feedback goes, and the notice period of a price change. Not shown in spec — our design (docs/compliance.md).',
        response: { 200: SiteInfo },
      },
    },
    () => Promise.resolve(siteInfo(deps.config)),
  );

  r.post(
    '/v1/public/cancel/',
    {
      config: {
        access: 'public',
        operation: {
          id: 'requestPublicCancellation',
          errors: { 400: [fields] },
          descriptions: { 202: 'The same answer for every address' },
          requestExample: { name: 'Ada Lovelace', email: 'ada@example.org', plan: 'weight_loss', kind: 'ordinary', date: '2026-12-31' },
        },
      },
      schema: {
        ...pub,
        summary: 'Cancel a plan without signing in (§ 312k BGB)',
        description:
          'Name, e-mail, which plan (`all` or a category), ordinary or extraordinary (with its `reason`), and the date. Answers 202 with the same text for any address (no account enumeration; rate limited per address and per e-mail). When the address is a verified account with a running plan matching the form, it receives a receipt with the date and time and a one-click link (single use, 7 days) that cancels at the period end (an extraordinary cancellation whose date has come: at once). Not shown in spec — our design (docs/compliance.md).',
        body: CancelBody,
        response: { 202: Accepted, 400: FieldErrorsSchema },
      },
    },
    async (request, reply) => {
      await requestCancellation(deps, request.body);
      return reply.code(202).send({ detail: SAME_ANSWER });
    },
  );

  r.post(
    '/v1/public/cancel/confirm/',
    {
      config: {
        access: 'public',
        operation: {
          id: 'confirmPublicCancellation',
          errors: { 400: [fields], 404: [{ detail_code: ['cancel_link_invalid'] }], 410: [{ detail_code: ['cancel_link_expired'] }] },
          descriptions: { 200: 'The plans the link cancelled at their period end (again: the same, `already_confirmed`)' },
        },
      },
      schema: {
        ...pub,
        summary: 'The one-click confirmation of a public cancellation',
        description: 'Sets every plan the request names to end at its period end (an extraordinary cancellation whose date has come ends it now: `status: canceled`, `ends_at` today; the back office then reviews its reason) and mails the confirmation with the date and time the cancellation was received. A second use changes nothing and answers the same with `already_confirmed: true`. Unknown link 404 `cancel_link_invalid`; expired 410 `cancel_link_expired`. Not shown in spec — our design.',
        body: ConfirmBody,
        response: { 200: ConfirmOut, 400: FieldErrorsSchema, 404: DetailCodeSchema, 410: DetailCodeSchema },
      },
    },
    async (request) => confirmCancellation(deps, request.body.token),
  );

  const Cancellation = z
    .object({
      id: z.uuid(),
      user_id: z.uuid(),
      email: z.string(),
      subscription_id: z.uuid().nullable().meta({ description: 'The plan named; null: every plan of the account' }),
      requested_date: z.string(),
      received_at: z.string(),
      confirmed_at: z.string(),
      reason: z.string(),
      reviewed_at: z.string().nullable(),
      review_note: z.string().nullable(),
    })
    .meta({ id: 'ExtraordinaryCancellation' });

  r.get(
    '/v1/backoffice/cancellations/',
    {
      config: { operation: { id: 'listExtraordinaryCancellations', errors: { 400: [fields] }, descriptions: { 200: 'A page of confirmed extraordinary cancellations, oldest first' } } },
      schema: {
        tags: ['backoffice'],
        summary: 'Extraordinary cancellations to review',
        description: 'Confirmed extraordinary cancellations (for good cause) with their reason: the plan ended on confirmation; the back office reviews the reason and any refund of the period paid (POST /v1/backoffice/payments/{id}/refund/), then marks it reviewed. `reviewed=false` lists those still waiting. Each read is in the patient’s access log. Not shown in spec — our design (docs/compliance.md).',
        security: bearerSecurity,
        querystring: PageQuery.extend({ reviewed: z.enum(['true', 'false']).optional() }),
        response: { 200: pageSchema(Cancellation), 400: FieldErrorsSchema, 401: TokenErrorSchema, 403: DetailCodeSchema },
      },
    },
    async (request) => {
      const reviewed = request.query.reviewed === undefined ? undefined : request.query.reviewed === 'true';
      const page = await respondPage(request, deps.config.PUBLIC_BASE_URL, ({ limit, offset }) => listExtraordinaryCancellations(deps, reviewed, limit, offset));
      await logStaffRead(deps, request, 'profile', page.results.map((c) => c.user_id));
      return page;
    },
  );

  r.post(
    '/v1/backoffice/cancellations/:id/review/',
    {
      config: {
        operation: {
          id: 'reviewExtraordinaryCancellation',
          errors: { 400: [fields], 404: [notFoundDetail], 409: [{ detail_code: ['cancellation_already_reviewed'] }] },
          descriptions: { 204: 'Marked reviewed' },
          requestExample: { note: 'Good cause accepted (moved abroad); the unused half of the period refunded.' },
        },
      },
      schema: {
        tags: ['backoffice'],
        summary: 'Mark an extraordinary cancellation reviewed',
        description: 'Records what the back office decided (`note`, sealed at rest). Once: again 409 `cancellation_already_reviewed`. Not shown in spec — our design.',
        security: bearerSecurity,
        params: z.object({ id: z.uuid() }),
        body: z.object({ note: z.string().trim().min(1, 'Say what was decided.').max(2000) }),
        response: { 204: z.null(), 400: FieldErrorsSchema, 401: TokenErrorSchema, 403: DetailCodeSchema, 404: DetailSchema, 409: DetailCodeSchema },
      },
    },
    async (request, reply) => {
      await reviewExtraordinaryCancellation(deps, currentUser(request).id, request.params.id, request.body.note);
      return reply.code(204).send(null);
    },
  );

  r.post(
    '/v1/users/subscriptions/:id/treatment-switch/',
    {
      config: {
        idempotent: true,
        operation: {
          id: 'requestTreatmentSwitch',
          errors: { 400: [fields], 404: [notFoundDetail], 409: [{ error: ['treatment_switch_renewal_open', 'subscription_not_active'] }] },
          descriptions: { 201: 'The plan’s next renewal, opened on the new treatment: confirm it on the renewal screen' },
          requestExample: { treatment_id: 'tirzepatide', reason: 'shortage' },
        },
      },
      schema: {
        tags: ['subscriptions'],
        security: bearerSecurity,
        summary: 'Ask to switch to another treatment of the plan’s category',
        description:
          'After a price rise, a shortage or side effects. Opens the plan’s next renewal now, on the new treatment at the engine’s starting dose for it (`dosage`); the patient answers the renewal screen and confirms (POST /v1/users/subscriptions/pending-choice/confirm/, where the dose rules of the new treatment apply), and a doctor decides. 400 `{treatment_id}` for the same or an unknown treatment; 409 `treatment_switch_renewal_open` when this period’s renewal is already open (choose the treatment there); `subscription_not_active`. Not shown in spec — our design (docs/compliance.md).',
        params: z.object({ id: z.uuid() }),
        body: z.object({ treatment_id: z.string().min(1).max(64), reason: z.enum(['price', 'shortage', 'side_effects', 'other']) }),
        response: {
          201: z.object({ consultation_id: z.string(), treatment_id: z.string(), dosage: z.string(), next_step: z.literal('confirm_renewal') }),
          400: FieldErrorsSchema,
          404: DetailSchema,
          409: ErrorCodeSchema,
          401: TokenErrorSchema,
        },
      },
    },
    async (request, reply) => reply.code(201).send(await requestTreatmentSwitch(deps, currentUser(request).id, request.params.id, request.body)),
  );

  const desk = { tags: ['clinician'], security: bearerSecurity };
  const staffErrors = { 401: TokenErrorSchema, 403: DetailCodeSchema };
  r.get(
    '/v1/clinician/profile/',
    {
      config: { operation: { id: 'getDeskProfile', errors: { 404: [notFoundDetail] }, descriptions: { 200: 'The doctor’s public profile and listing' } } },
      schema: { ...desk, summary: 'My public profile as a doctor', description: 'Name, registration number, regulator and whether the "our doctors" page lists me (default: listed).', response: { 200: DeskProfile, 404: DetailSchema, ...staffErrors } },
    },
    async (request) => deskProfile(deps, currentUser(request).id),
  );
  r.patch(
    '/v1/clinician/profile/',
    {
      config: { operation: { id: 'updateDeskProfile', errors: { 400: [fields], 404: [notFoundDetail] }, descriptions: { 200: 'The doctor’s public profile and listing' }, requestExample: { public_listing: false } } },
      schema: {
        ...desk,
        summary: 'Opt in or out of the public list of doctors',
        description: '`public_listing: false` removes me from GET /v1/public/doctors/; true lists me again.',
        body: z.object({ public_listing: z.boolean() }),
        response: { 200: DeskProfile, 400: FieldErrorsSchema, 404: DetailSchema, ...staffErrors },
      },
    },
    async (request) => setDeskListing(deps, currentUser(request).id, request.body.public_listing),
  );
  return Promise.resolve();
}
