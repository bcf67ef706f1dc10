// Questionnaire endpoints (spec 2.7, 4.3). Catalogue and schema are public; answers need a token.
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ModuleOptions, ZodApp } from '../../http/plugin.ts';
import { bearerSecurity, currentUser } from '../../http/auth.ts';
import { DetailCodeSchema, DetailSchema, ErrorNameSchema, FieldErrorsSchema, TokenErrorSchema } from '../../http/errors.ts';
import { publicCategoryText } from './advertising.ts';
import { currentVersion, listCategories, localisedSteps as stepsOut, pickLocale, type Category, type Locale } from './catalogue.ts';
import { CategoriesResponseSchema, ProgressPatchSchema, ProgressResponseSchema, SchemaResponseSchema, SubmissionHistoryItemSchema, SubmitResponseSchema } from './schemas.ts';
import { categoryOr404, getProgress, patchProgress, submissionHistory, submit, treatmentOut } from './service.ts';
import { PageQuery, pageSchema, respondPage } from '../../http/pagination.ts';
import { fields, notFoundDetail } from '../../http/operation.ts';

const LocaleQuery = z.object({ locale: z.string().max(10).optional() });
const SlugParams = z.object({ slug: z.string().max(64) });

// Title and description are the public texts (catalogue/public/categories.json): they name no
// medicine, class or brand, since anyone reads them (docs/compliance.md).
const categoryOut = (c: Category, locale: Locale) => {
  const v = currentVersion(c.slug)!;
  return { id: c.id, slug: c.slug, ...publicCategoryText(c.slug, locale), default_plan: c.default_plan, version: v.id, version_number: v.number, price_from: priceFrom(c) };
};
/**
 * What a consultation of the category costs at least: the service sells the doctor's consultation
 * and the treatment it prescribes as one supply (docs/billing.md, VAT), refunded in full when the
 * doctor does not prescribe. No medicine is named with it (the catalogue has one currency per category).
 */
function priceFrom(c: Category) {
  const plans = c.treatments.flatMap((t) => (t.plan_price_cents === null ? [] : [t.plan_price_cents]));
  return {
    currency: c.treatments[0]?.currency ?? 'EUR',
    one_off_cents: Math.min(...c.treatments.map((t) => t.one_off_price_cents)),
    plan_cents: plans.length ? Math.min(...plans) : null,
  };
}
/** Public, cacheable bodies: strong ETag over the body, 304 on a matching If-None-Match. */
function cacheable(request: FastifyRequest, reply: FastifyReply, body: unknown): boolean {
  const etag = `"${createHash('sha256').update(JSON.stringify(body)).digest('base64url').slice(0, 27)}"`;
  reply.header('ETag', etag).header('Cache-Control', 'public, max-age=300').header('Vary', 'Accept-Language');
  const inm = request.headers['if-none-match'];
  if (!inm) return false;
  const tags = inm.split(',').map((t) => t.trim().replace(/^W\//, ''));
  return tags.includes('*') || tags.includes(etag);
}

const localeOf = (request: FastifyRequest) => pickLocale(LocaleQuery.safeParse(request.query).data?.locale, request.headers['accept-language']);

// Registers routes synchronously; the promise is Fastify's async-plugin contract (nothing to await).
export default function questionnairesModule(app: ZodApp, { deps }: ModuleOptions): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const unauthorised = { 401: TokenErrorSchema.or(DetailCodeSchema), 403: DetailCodeSchema };
  const notModified = { 304: z.null().describe('Not modified: the If-None-Match ETag matches.') };

  r.get(
    '/v1/users/questionnaires/categories/',
    {
      config: {
        access: 'public',
        operation: { id: 'listQuestionnaireCategories', descriptions: { 200: 'The categories' } },
      },
      schema: {
        tags: ['questionnaires'],
        security: [],
        summary: 'Questionnaire categories (public)',
        description: 'The eight treatment categories with their current questionnaire version and the public texts (no medicine, class of medicine or brand: they are read signed out), localised by `?locale=` or `Accept-Language` (de en es fr it nl pt; English otherwise). Cacheable: ETag, If-None-Match gives 304.',
        querystring: LocaleQuery,
        response: { 200: CategoriesResponseSchema, ...notModified },
      },
    },
    async (request, reply) => {
      const locale = localeOf(request);
      const body = { locale, categories: listCategories().map((c) => categoryOut(c, locale)) };
      // A 304 has no body (send(null) would serialise `null` with Content-Length: 4).
      if (cacheable(request, reply, body)) return reply.code(304).send(undefined as never);
      return body;
    },
  );

  r.get(
    '/v1/users/questionnaires/:slug/schema/',
    {
      config: {
        access: 'public',
        operation: { id: 'getQuestionnaire', errors: { 404: [notFoundDetail] }, descriptions: { 200: 'The current questionnaire of the category' } },
      },
      schema: {
        tags: ['questionnaires'],
        security: [],
        summary: 'A category’s current questionnaire (public)',
        description:
          'Ordered steps of questions (boolean, single_choice, multiple_choice, number with unit and bounds, date, text) with options, required flags and visibility conditions (`visible_if` on the profile or earlier answers), plus the treatments with prices. Eligibility rules are not published. Localised; ETag/If-None-Match; unknown slug 404 {detail}.',
        params: SlugParams,
        querystring: LocaleQuery,
        response: { 200: SchemaResponseSchema, ...notModified, 404: DetailSchema },
      },
    },
    async (request, reply) => {
      const locale = localeOf(request);
      const c = categoryOr404(request.params.slug);
      const v = currentVersion(c.slug)!;
      const body = { ...categoryOut(c, locale), locale, published_at: v.published_at, treatments: c.treatments.map((t) => treatmentOut(t, locale)), steps: stepsOut(v.steps, locale) };
      // A 304 has no body (send(null) would serialise `null` with Content-Length: 4).
      if (cacheable(request, reply, body)) return reply.code(304).send(undefined as never);
      return body;
    },
  );

  r.get(
    '/v1/users/questionnaires/:slug/progress/',
    {
      config: {
        operation: { id: 'getQuestionnaireDraft', errors: { 403: null, 404: [notFoundDetail] }, descriptions: { 200: 'The saved draft (empty when nothing is saved)' } },
      },
      schema: {
        tags: ['questionnaires'],
        security: bearerSecurity,
        summary: 'The patient’s saved draft',
        description: '`{progress: {id, category (uuid), version (uuid), data[]}, emergency}`; an empty draft (`data: []`) when nothing is saved yet. `emergency` is the emergency notice when saved answers contain a red flag, else null. Unknown category: 404 {detail} naming it.',
        params: SlugParams,
        querystring: LocaleQuery,
        response: { 200: ProgressResponseSchema, ...unauthorised, 404: DetailSchema },
      },
    },
    async (request) => getProgress(deps, currentUser(request).id, request.params.slug, localeOf(request)),
  );

  r.patch(
    '/v1/users/questionnaires/:slug/progress/',
    {
      config: {
        operation: {
          id: 'saveQuestionnaireDraft',
          errors: { 400: [fields, { error_name: ['SERVICE_NOT_AVAILABLE_IN_COUNTRY'] }], 403: null, 404: [notFoundDetail] },
          descriptions: { 200: 'The saved draft' },
          requestExample: { data: [{ step_id: 1, question_key: 'urgent_symptoms', values: { none: true } }, { step_id: 2, question_key: 'height_cm', value: 170 }] },
        },
      },
      schema: {
        tags: ['questionnaires'],
        security: bearerSecurity,
        summary: 'Save the draft (whole answer array replaced)',
        description:
          'Body `{data: [{step_id, question_key, value | values}]}`: the full cumulative answer set; omitted answers are erased. Each answer is checked against the current version (question exists in that step, type, options, bounds); a 400 is keyed `data[<index>].<field>`. A red-flag answer is reported at once in `emergency` (and remembered: a later submission is held for review). Residents of Spain or France are refused before anything is stored: 400 `{error_name: "SERVICE_NOT_AVAILABLE_IN_COUNTRY", message, country, reasons}`.',
        params: SlugParams,
        querystring: LocaleQuery,
        body: ProgressPatchSchema,
        response: { 200: ProgressResponseSchema, 400: FieldErrorsSchema.or(ErrorNameSchema), ...unauthorised, 404: DetailSchema },
      },
    },
    async (request) => patchProgress(deps, currentUser(request).id, request.params.slug, request.body.data, localeOf(request)),
  );

  r.post(
    '/v1/users/questionnaires/:slug/submit/',
    {
      config: {
        operation: {
          id: 'submitQuestionnaire',
          errors: { 400: [{ error_name: ['PROFILE_INCOMPLETE', 'QUESTIONNAIRE_INCOMPLETE', 'SERVICE_NOT_AVAILABLE_IN_COUNTRY'] }], 403: null, 404: [notFoundDetail] },
          descriptions: { 200: 'The outcome: eligible, ineligible, emergency or held for review' },
        },
      },
      schema: {
        tags: ['questionnaires'],
        security: bearerSecurity,
        summary: 'Submit the draft for eligibility and doctor review',
        description:
          'No body. Outcomes are 200s: `eligible` (treatments, next_step checkout), `ineligible` (reasons with codes and sources, alternative), `emergency` (emergency number of the country; no checkout), `held_for_review` (an answer or profile field that decided an earlier ineligible outcome or an excluded treatment changed, or a red flag was raised on the draft: the doctor decides; checkout allowed). 400 PROFILE_INCOMPLETE {missing_fields}; 400 SERVICE_NOT_AVAILABLE_IN_COUNTRY {country, reasons} (Spain K5, France K6); 400 QUESTIONNAIRE_INCOMPLETE {missing_answers}; 404 unknown category.',
        params: SlugParams,
        querystring: LocaleQuery,
        response: { 200: SubmitResponseSchema, 400: ErrorNameSchema, ...unauthorised, 404: DetailSchema },
      },
    },
    async (request) => submit(deps, currentUser(request).id, request.params.slug, localeOf(request)),
  );

  r.get(
    '/v1/users/questionnaires/submissions/',
    {
      config: {
        operation: { id: 'listQuestionnaireSubmissions', errors: { 403: null }, descriptions: { 200: 'A page of the account\'s questionnaire outcomes, newest first' } },
      },
      schema: {
        tags: ['questionnaires'],
        security: bearerSecurity,
        summary: 'The account\'s questionnaire outcomes, newest first (history)',
        description:
          'Every submission of the account, of every category, with its outcome (`eligible`, `ineligible`, `emergency`, `held_for_review`), the reasons as stable rule codes with their text in `?locale=` (or Accept-Language), and the alternative offered. Never the answers. A "not suitable" result that never became a consultation stays in the history here. Paginated (`limit`, `offset`).',
        querystring: LocaleQuery.extend(PageQuery.shape),
        response: { 200: pageSchema(SubmissionHistoryItemSchema), ...unauthorised },
      },
    },
    async (request, reply) => {
      reply.header('Cache-Control', 'no-store');
      const locale = localeOf(request);
      return respondPage(request, deps.config.PUBLIC_BASE_URL, ({ limit, offset }) => submissionHistory(deps, currentUser(request).id, locale, limit, offset));
    },
  );
  return Promise.resolve();
}
