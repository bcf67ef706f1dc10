// The patient's data-protection endpoints (docs/privacy.md): consents, the access log,
// the data export and erasure. Thin routes over service.ts.
import type { FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ModuleOptions, ZodApp } from '../../http/plugin.ts';
import { bearerSecurity, currentUser } from '../../http/auth.ts';
import { DetailCodeSchema, FieldErrorsSchema, UnauthorisedResponses } from '../../http/errors.ts';
import { budgetsOf } from '../../http/budgets.ts';
import { orderBy, pageSchema, respondPage } from '../../http/pagination.ts';
import { ACCESS_LOG_ORDERING } from '../audit/index.ts';
import { exportAccountZip } from './export-zip.ts';
import { patientSummary } from '../interop/index.ts';
import { AccessLogEntrySchema, ConsentBody, ConsentSchema, ConsentsSchema, EraseBody, ExportQuery, ExportSchema } from './schemas.ts';
import { registerRetentionJobs } from './retention.ts';
import * as privacy from './service.ts';
import { fields, credentials } from '../../http/operation.ts';

/** Exports per account and hour (each reads every record of the account): the budget in src/http/budgets.ts. */
export const EXPORTS_PER_HOUR = budgetsOf('GET /v1/users/me/export/').find((b) => b.per === 'account')?.points ?? 0;

export default function privacyModule(app: ZodApp, { deps }: ModuleOptions): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const common = { tags: ['privacy'], security: bearerSecurity };
  registerRetentionJobs(deps);

  r.get(
    '/v1/users/me/consents/',
    {
      config: {
        operation: {
          id: 'listConsents',
          descriptions: { 200: 'The current decision per kind, the history and the connector grants' },
          responseExample: {
            current: [{ id: '6f1c2a9e-4b7d-4c1a-9e2f-0a1b2c3d4e5f', kind: 'health_data_processing', version: '2025-01', granted: true, at: '2025-03-01T09:30:00+00:00' }],
            history: [{ id: '6f1c2a9e-4b7d-4c1a-9e2f-0a1b2c3d4e5f', kind: 'health_data_processing', version: '2025-01', granted: true, at: '2025-03-01T09:30:00+00:00' }],
            connectors: [],
          },
        },
      },
      schema: {
        ...common,
        summary: 'The account’s consents: the current decision per kind, the full history, and the connector (assistant) grants',
        response: { 200: ConsentsSchema, ...UnauthorisedResponses },
      },
    },
    async (request) => privacy.consents(deps, currentUser(request).id),
  );

  r.post(
    '/v1/users/me/consents/',
    {
      config: {
        operation: {
          id: 'recordConsent',
          errors: { 400: [fields] },
          descriptions: { 201: 'The decision, recorded', 400: 'Unknown kind, empty version or a missing `granted`' },
          requestExample: { kind: 'marketing', version: '2025-01', granted: false },
          responseExample: { id: '6f1c2a9e-4b7d-4c1a-9e2f-0a1b2c3d4e5f', kind: 'marketing', version: '2025-01', granted: false, at: '2025-03-01T09:30:00+00:00' },
        },
      },
      schema: {
        ...common,
        summary: 'Record a consent decision (grant or withdraw); appended to the history',
        description:
          'Kinds: `health_data_processing` (GDPR Art. 9(2)(a)), `terms`, `privacy`, `marketing`, `gp_sharing` (sharing with the patient’s own doctor, `gp` of the profile: docs/interoperability.md). `granted: false` withdraws. A withdrawn `marketing` consent stops marketing mail (the service sends none today; docs/privacy.md).',
        body: ConsentBody,
        response: { 201: ConsentSchema, 400: FieldErrorsSchema, ...UnauthorisedResponses },
      },
    },
    async (request, reply) => reply.code(201).send(await privacy.recordConsent(deps, currentUser(request).id, request.body)),
  );

  r.get(
    '/v1/users/me/access-log/',
    {
      config: {
        operation: {
          id: 'listAccessLog',
          descriptions: { 200: 'Staff reads and changes of the account’s record, newest first' },
          responseExample: {
            count: 1,
            next: null,
            previous: null,
            results: [
              { id: '0b7e5c1d-2f3a-4b5c-8d9e-1a2b3c4d5e6f', at: '2025-03-02T10:00:00+00:00', actor_role: 'doctor', actor_name: 'Greg House', action: 'read', resource_type: 'consultation', resource_id: '3fa85f64-5717-4562-b3fc-2c963f66afa6' },
            ],
          },
        },
      },
      schema: {
        ...common,
        summary: 'Who of the staff read or changed the account’s record, newest first',
        description: 'Every read of a consultation, conversation, file, journal, prescription or profile by a doctor or the back office, and every change they made.',
        querystring: ACCESS_LOG_ORDERING.query,
        response: { 200: pageSchema(AccessLogEntrySchema), ...UnauthorisedResponses },
      },
    },
    async (request) => {
      const order = orderBy(request.query, ACCESS_LOG_ORDERING);
      return respondPage(request, deps.config.PUBLIC_BASE_URL, ({ limit, offset }) => privacy.accessLog(deps, currentUser(request).id, limit, offset, order));
    },
  );

  r.get(
    '/v1/users/me/export/',
    {
      config: {
        operation: {
          id: 'exportAccount',
          errors: { 400: [fields], 429: [{ detail_code: ['throttled'] }] },
          descriptions: { 200: 'Every record of the account (Content-Disposition: attachment): JSON, with `format=zip` a zip archive, with `format=fhir` the FHIR patient summary', 400: 'An unknown `format`' },
          alsoBinary: ['application/zip', 'application/fhir+json'],
          responseExample: {
            exported_at: '2025-03-02T10:00:00+00:00',
            profile: { id: '3fa85f64-5717-4562-b3fc-2c963f66afa6', email: 'ada@example.org' },
            consultations: [],
            questionnaire_progress: { drafts: [], submissions: [], red_flags: [] },
            payments: [],
            checkout_sessions: [],
            orders: [],
            prescriptions: [],
            prescription_reissue_requests: [],
            plan_dose_change_requests: [],
            subscriptions: [],
            conversations: [],
            clinical_photos: [],
            journal: { weight_entries: [], injections: [], notes: [], injection_plan: null, injection_plans: [], side_effect_reports: [], goal: null },
            red_flags: [],
            referrals: { referral_code: 'ADA12345', referred_count: 0, referred_by: null },
            consents: [],
            access_log: [],
            connected_apps: [],
            connector_tool_calls: [],
            verification: { identity_verifications: [], weight_verifications: [] },
            notifications: { preferences: { events: {}, quiet_hours: null, time_zone: 'Europe/Berlin' }, push_subscriptions: 0, phone: null },
            appointments: [],
            gp_letters: [],
          },
        },
      },
      schema: {
        ...common,
        summary: 'Download every record of the account as one JSON document, or as a zip with the files (GDPR Art. 15 and 20)',
        description: `\`Content-Disposition: attachment\`. \`format=json\` (default): \`application/json\`; files (message attachments, invoices, prescription PDFs) are linked by their download paths. \`format=zip\`: \`application/zip\` holding \`export.json\` (the same document plus a \`files\` index) and the files under \`attachments/\`, \`invoices/\` and \`prescriptions/\`. \`format=fhir\`: \`application/fhir+json\`, the patient summary as a FHIR R4 \`Bundle\` of type \`document\` after the International Patient Summary (medications, allergies, problems, vital signs, consultations; docs/interoperability.md). Another format: 400 \`{format: [...]}\`. At most ${EXPORTS_PER_HOUR} exports per hour, either format (429 \`throttled\` with Retry-After).`,
        querystring: ExportQuery,
        response: { 200: ExportSchema, 400: FieldErrorsSchema, ...UnauthorisedResponses, 429: DetailCodeSchema },
      },
    },
    async (request, reply) => {
      const user = currentUser(request);
      if (request.query.format === 'zip') {
        const zip = await exportAccountZip(deps, user.id);
        // A Buffer is sent as it is (the JSON serialiser of the 200 schema does not run on it).
        const raw: FastifyReply = reply;
        return raw
          .type('application/zip')
          .header('content-disposition', `attachment; filename="account-export-${zip.exportedAt.slice(0, 10)}.zip"`)
          .send(zip.data);
      }
      if (request.query.format === 'fhir') {
        const bundle = await patientSummary(deps, user.id);
        const raw: FastifyReply = reply;
        return raw
          .type('application/fhir+json')
          .header('content-disposition', `attachment; filename="patient-summary-${String(bundle.timestamp).slice(0, 10)}.json"`)
          .send(Buffer.from(JSON.stringify(bundle)));
      }
      const data = await privacy.exportAccount(deps, user.id);
      return reply.header('content-disposition', `attachment; filename="account-export-${data.exported_at.slice(0, 10)}.json"`).send(data);
    },
  );

  r.delete(
    '/v1/users/me/',
    {
      config: {
        operation: {
          id: 'eraseAccount',
          errors: { 400: [fields], 403: [{ detail_code: ['recent_sign_in_required', 'permission_denied'] }], 429: [{ detail_code: ['throttled'] }] },
          descriptions: { 204: 'Erased: sessions ended, sign-in refused from now on', 400: 'Wrong or missing password (`password`), or a missing confirmation (`confirm`)' },
          requestExample: { password: credentials.password },
        },
      },
      schema: {
        ...common,
        summary: 'Erase the account (GDPR Art. 17)',
        description:
          'With `{password}`; an account without a password (Google sign-in): `{confirm: "DELETE"}` from a session signed in within the last 10 minutes (else 403 `recent_sign_in_required`). Live plans are canceled, sessions and connector tokens revoked, sign-in refused from then on, personal data deleted or pseudonymised; invoices, prescriptions and medical records stay pseudonymised for their retention period (docs/privacy.md). A mail confirms it. Wrong password: 400 `{password: [...]}` (counts against the sign-in failure budget: 429 `throttled` over it). Staff accounts: 403 `permission_denied`.',
        body: EraseBody,
        response: { 204: z.null(), 400: FieldErrorsSchema, ...UnauthorisedResponses, 403: DetailCodeSchema, 429: DetailCodeSchema },
      },
    },
    async (request, reply) => {
      const user = currentUser(request);
      await privacy.eraseAccount(deps, user.id, user.sessionId, request.body);
      return reply.code(204).send(null);
    },
  );
  return Promise.resolve();
}
