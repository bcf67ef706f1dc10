// The red-flag desk for clinicians (docs/red-flags.md): every red flag a patient's free text raised,
// emergencies first then the oldest, until a clinician resolves it with a note.
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { ModuleOptions, ZodApp } from '../../http/plugin.ts';
import { bearerSecurity, currentUser } from '../../http/auth.ts';
import { DetailCodeSchema, DetailSchema, FieldErrorsSchema, TokenErrorSchema } from '../../http/errors.ts';
import { explicitOrder, pageSchema, respondPage } from '../../http/pagination.ts';
import { DESK_ORDERING } from './service.ts';
import { DeskQuery, IdParams, RedFlagSchema, ResolveBody } from './schemas.ts';
import { listForClinician, resolveForClinician } from './service.ts';
import { fields, notFoundDetail } from '../../http/operation.ts';
import { logStaffRead } from '../audit/index.ts';

const staffErrors = { 401: TokenErrorSchema, 403: DetailCodeSchema };

// Registers routes synchronously; the Promise is Fastify's plugin contract.
export default function redFlagsModule(app: ZodApp, { deps }: ModuleOptions): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.get(
    '/v1/clinician/red-flags/',
    {
      config: {
        operation: { id: 'listRedFlags', errors: { 400: [fields] }, descriptions: { 200: 'A page of red flags, emergencies first, then the oldest' } },
      },
      schema: {
        tags: ['clinician'],
        summary: 'Red flags raised by patients’ free text',
        description: 'Every message, journal note, weight or injection note, side-effect report, questionnaire text answer or connector input that raised a red flag: emergencies first, then the oldest. `status`: open (default), resolved or all.',
        security: bearerSecurity,
        querystring: DESK_ORDERING.query.extend(DeskQuery.shape),
        response: { 200: pageSchema(RedFlagSchema), 400: FieldErrorsSchema, ...staffErrors },
      },
    },
    async (request) => {
      const order = explicitOrder(request.query, DESK_ORDERING);
      const page = await respondPage(request, deps.config.PUBLIC_BASE_URL, ({ limit, offset }) => listForClinician(deps, request.query.status ?? 'open', limit, offset, order));
      // Each flag shows its patient's name, address and own words: a read of their record.
      await logStaffRead(deps, request, 'red_flag', page.results.map((f) => f.id));
      return page;
    },
  );
  r.post(
    '/v1/clinician/red-flags/:id/resolve/',
    {
      config: {
        operation: {
          id: 'resolveRedFlag',
          errors: { 400: [fields], 404: [notFoundDetail], 409: [{ detail_code: ['red_flag_already_resolved'] }] },
          descriptions: { 200: 'Resolved: the flag with the note' },
          requestExample: { resolution: 'Called the patient: in hospital since last night, being treated. Nothing more for us.' },
        },
      },
      schema: {
        tags: ['clinician'],
        summary: 'Resolve a red flag with what was done',
        security: bearerSecurity,
        params: IdParams,
        body: ResolveBody,
        response: { 200: RedFlagSchema, 400: FieldErrorsSchema, ...staffErrors, 404: DetailSchema, 409: DetailCodeSchema },
      },
    },
    async (request) => {
      const flag = await resolveForClinician(deps, currentUser(request).id, request.params.id, request.body.resolution);
      await logStaffRead(deps, request, 'red_flag', flag.id);
      return flag;
    },
  );
  return Promise.resolve();
}
