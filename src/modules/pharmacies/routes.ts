// Partner pharmacies over HTTP (docs/pharmacy.md "Partner pharmacies"): the back office manages them
// under /v1/backoffice/pharmacies/ (the backoffice_admin scope of src/http/access.ts); a patient
// lists the active ones near their profile's postal code and city at GET /v1/users/pharmacies/.
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ModuleOptions, ZodApp } from '../../http/plugin.ts';
import { bearerSecurity, currentUser } from '../../http/auth.ts';
import { DetailCodeSchema, DetailSchema, FieldErrorsSchema, TokenErrorSchema } from '../../http/errors.ts';
import { PageQuery, pageSchema, respondPage } from '../../http/pagination.ts';
import { CreatePharmacyBody, NearbyPharmacySchema, PartnerPharmacySchema, UpdatePharmacyBody } from './schemas.ts';
import { assignPharmacistToPharmacy, createPharmacy, getPharmacy, listPharmacies, nearbyPharmacies, setPharmacyActive, updatePharmacy } from './service.ts';
import { fields, notFoundDetail, type OperationDoc } from '../../http/operation.ts';

const IdParams = z.object({ id: z.uuid() });
const staffErrors = { 401: TokenErrorSchema, 403: DetailCodeSchema };

const AssignPharmacyBody = z.object({
  pharmacy_id: z.uuid().or(z.literal('central')).meta({ description: 'The pharmacy (an active one), or `central`: the central dispatch pharmacy' }),
});
const PharmacistAssignmentSchema = z
  .object({
    pharmacist_id: z.uuid(),
    pharmacy: PartnerPharmacySchema,
    is_central: z.boolean().meta({ description: 'The pharmacy is the central dispatch pharmacy (it ships every order not routed elsewhere)' }),
    assigned_at: z.string().nullable().meta({ description: 'When the pharmacist was assigned (null: never assigned, working for the central dispatch pharmacy)' }),
  })
  .meta({ id: 'PharmacistAssignment' });

const NearbyQuery = PageQuery.extend({
  near: z.enum(['profile']).optional().meta({ description: "`profile` (the default): rank by the profile's postal code and city" }),
  postal_code: z.string().max(20).optional().meta({ description: "Rank by this postal code instead of the profile's" }),
  city: z.string().max(120).optional().meta({ description: "Rank by this city instead of the profile's" }),
  service: z.enum(['click_and_collect']).optional().meta({ description: '`click_and_collect`: only pharmacies where an order can be collected' }),
});

// Registers routes synchronously; the Promise is Fastify's plugin contract.
export default function pharmaciesModule(app: ZodApp, { deps }: ModuleOptions): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const base = deps.config.PUBLIC_BASE_URL;

  r.get(
    '/v1/users/pharmacies/',
    {
      config: {
        operation: { id: 'listNearbyPharmacies', errors: { 400: [fields] }, descriptions: { 200: 'A page of active partner pharmacies, nearest first', 400: 'No country, or neither a postal code nor a city, to rank by (`near`)' } },
      },
      schema: {
        tags: ['billing'],
        summary: 'Partner pharmacies near the patient',
        description:
          "Active partner pharmacies in the profile's country of residence, nearest first: same postal code, then the same first 3 and first 2 characters of the postal code, then the same city, then the rest of the country (then by name). No geocoding. `postal_code`/`city` replace the profile's. 400 `{near}` when the profile has no country, or neither a postal code nor a city.",
        security: bearerSecurity,
        querystring: NearbyQuery,
        response: { 200: pageSchema(NearbyPharmacySchema), 400: FieldErrorsSchema, 401: TokenErrorSchema },
      },
    },
    async (request) => {
      const q = request.query;
      return respondPage(request, base, (p) => nearbyPharmacies(deps, currentUser(request).id, { postal_code: q.postal_code, city: q.city, collection_only: q.service === 'click_and_collect' }, p));
    },
  );

  r.get(
    '/v1/backoffice/pharmacies/',
    {
      config: {
        operation: { id: 'listPartnerPharmacies', errors: { 400: [fields] }, descriptions: { 200: 'A page of partner pharmacies' } },
      },
      schema: {
        tags: ['backoffice'],
        summary: 'Partner pharmacies (active and deactivated)',
        description: 'By country, city and name.',
        security: bearerSecurity,
        querystring: PageQuery,
        response: { 200: pageSchema(PartnerPharmacySchema), 400: FieldErrorsSchema, ...staffErrors },
      },
    },
    async (request) => respondPage(request, base, (p) => listPharmacies(deps, p)),
  );

  r.post(
    '/v1/backoffice/pharmacies/',
    {
      config: {
        operation: {
          id: 'createPartnerPharmacy',
          errors: { 400: [fields] },
          descriptions: { 201: 'The pharmacy, created' },
          requestExample: {
            name: 'Apotheke am Markt',
            address_line: 'Marktplatz 3',
            postal_code: '10115',
            city: 'Berlin',
            country: 'DEU',
            opening_hours: [{ day: 'mon', opens: '08:00', closes: '18:30' }, { day: 'sat', opens: '09:00', closes: '13:00' }],
            click_and_collect: true,
            delivery: false,
          },
        },
      },
      schema: {
        tags: ['backoffice'],
        summary: 'Add a partner pharmacy',
        description: 'At least one of click_and_collect and delivery. Audit-logged.',
        security: bearerSecurity,
        body: CreatePharmacyBody,
        response: { 201: PartnerPharmacySchema, 400: FieldErrorsSchema, ...staffErrors },
      },
    },
    async (request, reply) => reply.code(201).send(await createPharmacy(deps, currentUser(request).id, request.body)),
  );

  r.get(
    '/v1/backoffice/pharmacies/:id/',
    { config: { operation: { id: 'getPartnerPharmacy', errors: { 404: [notFoundDetail] }, descriptions: { 200: 'The pharmacy' } } }, schema: { tags: ['backoffice'], summary: 'One partner pharmacy', security: bearerSecurity, params: IdParams, response: { 200: PartnerPharmacySchema, ...staffErrors, 404: DetailSchema } } },
    async (request) => getPharmacy(deps, request.params.id),
  );

  r.patch(
    '/v1/backoffice/pharmacies/:id/',
    {
      config: {
        operation: { id: 'updatePartnerPharmacy', errors: { 400: [fields], 404: [notFoundDetail] }, descriptions: { 200: 'The pharmacy, changed' }, requestExample: { city: 'Berlin', delivery: true } },
      },
      schema: {
        tags: ['backoffice'],
        summary: 'Change a partner pharmacy',
        description: 'Any of the fields; the result must still offer click-and-collect or delivery. Audit-logged.',
        security: bearerSecurity,
        params: IdParams,
        body: UpdatePharmacyBody,
        response: { 200: PartnerPharmacySchema, 400: FieldErrorsSchema, ...staffErrors, 404: DetailSchema },
      },
    },
    async (request) => updatePharmacy(deps, currentUser(request).id, request.params.id, request.body),
  );

  for (const action of ['deactivate', 'activate'] as const) {
    r.post(
      `/v1/backoffice/pharmacies/:id/${action}/`,
      {
        config: {
          operation: (
            {
              deactivate: { id: 'deactivatePartnerPharmacy', errors: { 404: [notFoundDetail] }, descriptions: { 200: 'The pharmacy, deactivated' } },
              activate: { id: 'activatePartnerPharmacy', errors: { 404: [notFoundDetail] }, descriptions: { 200: 'The pharmacy, active' } },
            } satisfies Record<typeof action, OperationDoc>
          )[action],
        },
        schema: {
          tags: ['backoffice'],
          summary: action === 'deactivate' ? 'Deactivate a partner pharmacy' : 'Activate a deactivated partner pharmacy',
          description:
            action === 'deactivate'
              ? 'Leaves the patient list and can no longer be chosen for collection; orders already collecting there keep it. Idempotent; audit-logged.'
              : 'Idempotent; audit-logged.',
          security: bearerSecurity,
          params: IdParams,
          response: { 200: PartnerPharmacySchema, ...staffErrors, 404: DetailSchema },
        },
      },
      async (request) => setPharmacyActive(deps, currentUser(request).id, request.params.id, action === 'activate'),
    );
  }

  // Issue 43: a pharmacist sees and moves only the orders of their pharmacy (docs/pharmacy.md).
  r.put(
    '/v1/backoffice/pharmacists/:id/pharmacy/',
    {
      config: {
        operation: {
          id: 'assignPharmacistPharmacy',
          errors: { 400: [fields], 404: [notFoundDetail] },
          descriptions: { 200: 'The pharmacist now works for this pharmacy', 400: 'No active pharmacy with this id (`pharmacy_id`)', 404: 'The id names no pharmacist' },
          requestExample: { pharmacy_id: 'central' },
        },
      },
      schema: {
        tags: ['backoffice'],
        summary: "Assign a pharmacist to their pharmacy (they see and move only its orders)",
        description:
          'One pharmacy per pharmacist; assigning again moves them. A pharmacist never assigned works for the central dispatch pharmacy. Audit-logged (`pharmacist.assigned`).',
        security: bearerSecurity,
        params: IdParams,
        body: AssignPharmacyBody,
        response: { 200: PharmacistAssignmentSchema, 400: FieldErrorsSchema, ...staffErrors, 404: DetailSchema },
      },
    },
    async (request) => assignPharmacistToPharmacy(deps, currentUser(request).id, request.params.id, request.body.pharmacy_id),
  );
  return Promise.resolve();
}
