// The patient's data-protection endpoints (issue 23, docs/privacy.md): consents, the access log,
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
import { AccessLogEntrySchema, ConsentBody, ConsentSchema, ConsentsSchema, EraseBody, ExportQuery, ExportSchema } from './schemas.ts';
import { registerRetentionJobs } from './retention.ts';
import * as privacy from './service.ts';

/** Exports per account and hour (each reads every record of the account): the budget in src/http/budgets.ts. */
export const EXPORTS_PER_HOUR = budgetsOf('GET /v1/users/me/export/').find((b) => b.per === 'account')?.points ?? 0;

export default function privacyModule(app: ZodApp, { deps }: ModuleOptions): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const common = { tags: ['privacy'], security: bearerSecurity };
  registerRetentionJobs(deps);

  r.get(
    '/v1/users/me/consents/',
    {
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
      schema: {
        ...common,
        summary: 'Record a consent decision (grant or withdraw); appended to the history',
        description:
          'Kinds: `health_data_processing` (GDPR Art. 9(2)(a)), `terms`, `privacy`, `marketing`. `granted: false` withdraws. A withdrawn `marketing` consent stops marketing mail (the service sends none today; docs/privacy.md).',
        body: ConsentBody,
        response: { 201: ConsentSchema, 400: FieldErrorsSchema, ...UnauthorisedResponses },
      },
    },
    async (request, reply) => reply.code(201).send(await privacy.recordConsent(deps, currentUser(request).id, request.body)),
  );

  r.get(
    '/v1/users/me/access-log/',
    {
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
      schema: {
        ...common,
        summary: 'Download every record of the account as one JSON document, or as a zip with the files (GDPR Art. 15 and 20)',
        description: `\`Content-Disposition: attachment\`. \`format=json\` (default): \`application/json\`; files (message attachments, invoices, prescription PDFs) are linked by their download paths. \`format=zip\`: \`application/zip\` holding \`export.json\` (the same document plus a \`files\` index) and the files under \`attachments/\`, \`invoices/\` and \`prescriptions/\`. Another format: 400 \`{format: [...]}\`. At most ${EXPORTS_PER_HOUR} exports per hour, either format (429 \`throttled\` with Retry-After).`,
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
      const data = await privacy.exportAccount(deps, user.id);
      return reply.header('content-disposition', `attachment; filename="account-export-${data.exported_at.slice(0, 10)}.json"`).send(data);
    },
  );

  r.delete(
    '/v1/users/me/',
    {
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
