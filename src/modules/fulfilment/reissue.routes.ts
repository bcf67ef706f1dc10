// Prescription reissue requests over HTTP (docs/pharmacy.md): the patient's request and list under
// /v1/users/prescriptions/, the doctor's queue and decisions under /v1/clinician/reissue-requests/
// (the doctor scope of src/http/access.ts).
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Deps } from '../../deps.ts';
import type { ZodApp } from '../../http/plugin.ts';
import { bearerSecurity, currentUser } from '../../http/auth.ts';
import { DetailCodeSchema, DetailSchema, FieldErrorsSchema, TokenErrorSchema } from '../../http/errors.ts';
import { orderBy, pageEnvelope, pageParams, pageSchema } from '../../http/pagination.ts';
import { iso } from '../../lib/iso.ts';
import { logStaffRead } from '../audit/index.ts';
import { approveReissue, declineReissue, requestReissue } from './reissue.ts';
import { PENDING_REISSUE_ORDERING, REISSUE_ORDERING, countPendingReissues, countReissueRequests, pagePendingReissues, pageReissueRequests } from './service.ts';
import { ReissueRequestSchema, toReissue } from './reissue.schemas.ts';
import { fields, notFoundDetail, transitionConflict } from '../../http/operation.ts';

const ts = z.iso.datetime({ offset: true });
const IdParams = z.object({ id: z.uuid() });
const auth401 = { 401: TokenErrorSchema };
const staffErrors = { 401: TokenErrorSchema, 403: DetailCodeSchema };

const ClinicianReissueSchema = ReissueRequestSchema.extend({
  patient: z.object({ id: z.uuid(), first_name: z.string(), last_name: z.string() }),
  prescription: z.object({ treatment_name: z.string(), dosage: z.string(), valid_until: ts.nullable() }),
}).meta({ id: 'ClinicianReissueRequest' });

const ReasonBody = z.object({ reason: z.string().trim().min(1).max(2000).meta({ description: 'Why the prescription is needed again (lost, damaged, the pharmacy asks for a new one)' }) });

export function reissueRoutes(app: ZodApp, deps: Deps): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const base = deps.config.PUBLIC_BASE_URL;

  r.post(
    '/v1/users/prescriptions/:id/reissue-requests/',
    {
      config: {
        idempotent: true,
        operation: {
          id: 'requestPrescriptionReissue',
          errors: { 400: [fields], 404: [notFoundDetail], 409: [{ detail_code: ['reissue_request_pending', 'prescription_not_reissuable'] }] },
          descriptions: { 201: 'The request, pending', 404: 'No such prescription on this account', 409: 'A request is already pending, or the prescription is no longer valid' },
          requestExample: { reason: 'I lost the paper prescription.' },
        },
      },
      schema: {
        tags: ['billing'],
        summary: 'Ask a doctor to reissue a prescription',
        security: bearerSecurity,
        params: IdParams,
        body: ReasonBody,
        response: { 201: ReissueRequestSchema, 400: FieldErrorsSchema, ...auth401, 404: DetailSchema, 409: DetailCodeSchema },
      },
    },
    async (request, reply) => {
      const row = await requestReissue(deps, currentUser(request).id, request.params.id, request.body.reason);
      return reply.code(201).send(toReissue(row));
    },
  );

  r.get(
    '/v1/users/prescriptions/reissue-requests/',
    {
      config: {
        operation: { id: 'listPrescriptionReissueRequests', descriptions: { 200: 'A page of reissue requests, newest first' } },
      },
      schema: { tags: ['billing'], summary: 'Reissue requests of the account, newest first', security: bearerSecurity, querystring: REISSUE_ORDERING.query, response: { 200: pageSchema(ReissueRequestSchema), ...auth401 } },
    },
    async (request) => {
      const user = currentUser(request);
      const p = pageParams(request.query);
      const order = orderBy(request.query, REISSUE_ORDERING);
      const n = await countReissueRequests(deps.reader, user.id);
      const rows = await pageReissueRequests(deps.reader, user.id, p.limit, p.offset, order);
      return pageEnvelope(request, base, p, n, rows.map(toReissue));
    },
  );

  r.get(
    '/v1/clinician/reissue-requests/',
    {
      config: {
        operation: { id: 'listReissueQueue', errors: { 400: [fields] }, descriptions: { 200: 'A page of pending reissue requests, oldest first' } },
      },
      schema: { tags: ['clinician'], summary: 'Pending prescription reissue requests, oldest first', security: bearerSecurity, querystring: PENDING_REISSUE_ORDERING.query, response: { 200: pageSchema(ClinicianReissueSchema), 400: FieldErrorsSchema, ...staffErrors } },
    },
    async (request) => {
      const p = pageParams(request.query);
      const order = orderBy(request.query, PENDING_REISSUE_ORDERING);
      const n = await countPendingReissues(deps.reader);
      const rows = await pagePendingReissues(deps.reader, p.limit, p.offset, order);
      await logStaffRead(deps, request, 'prescription', rows.map((x) => x.prescription_id));
      return pageEnvelope(
        request,
        base,
        p,
        n,
        rows.map((x) => ({
          ...toReissue(x),
          patient: { id: x.user_id, first_name: x.first_name, last_name: x.last_name },
          prescription: { treatment_name: x.treatment_name, dosage: x.dosage, valid_until: iso(x.valid_until) },
        })),
      );
    },
  );

  const decision = { 200: ReissueRequestSchema, 400: FieldErrorsSchema, ...staffErrors, 404: DetailSchema, 409: DetailCodeSchema };
  r.post(
    '/v1/clinician/reissue-requests/:id/approve/',
    {
      config: {
        operation: {
          id: 'approveReissueRequest',
          errors: {
            400: [fields],
            403: [{ detail_code: ['permission_denied', 'second_factor_required_to_sign'] }],
            404: [notFoundDetail],
            409: [{ detail_code: ['invalid_status_transition', 'prescription_not_reissuable', 'already_dispensed', 'prescription_cancelled'] }],
            503: [{ detail_code: ['signing_unavailable'] }],
          },
          descriptions: {
            200: 'Approved: the request names the new prescription (signed); the original is cancelled',
            403: 'Not a doctor, or (STAFF_MFA=required) a session that did not pass the second factor',
            409: 'Already decided, the prescription is no longer valid, already dispensed in full, or cancelled',
            503: 'The signing provider is unavailable: nothing was reissued',
          },
          requestExample: { note: 'Reissued as before.' },
        },
      },
      schema: {
        tags: ['clinician'],
        summary: 'Approve: a new signed prescription that names the original, which is cancelled',
        security: bearerSecurity,
        params: IdParams,
        body: z.object({ note: z.string().trim().min(1).max(2000).optional() }),
        response: { ...decision, 503: DetailCodeSchema },
      },
    },
    async (request) => toReissue(await approveReissue(deps, { requestId: request.params.id, doctorId: currentUser(request).id, note: request.body.note ?? null, session: { secondFactor: currentUser(request).second_factor } })),
  );
  r.post(
    '/v1/clinician/reissue-requests/:id/decline/',
    { config: { operation: { id: 'declineReissueRequest', errors: { 400: [fields], 404: [notFoundDetail], ...transitionConflict }, descriptions: { 200: 'Declined with the reason', 409: 'Already decided' }, requestExample: { reason: 'Your treatment needs a new consultation first.' } } }, schema: { tags: ['clinician'], summary: 'Decline with a reason', security: bearerSecurity, params: IdParams, body: ReasonBody, response: decision } },
    async (request) => toReissue(await declineReissue(deps, { requestId: request.params.id, doctorId: currentUser(request).id, reason: request.body.reason })),
  );
}
