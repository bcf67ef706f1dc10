// Messages with the medical team (spec 2.5, 4.6), patient and doctor sides.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ModuleOptions, ZodApp } from '../../http/plugin.ts';
import { bearerSecurity, currentUser } from '../../http/auth.ts';
import { ApiError, DetailCodeSchema, DetailSchema, ErrorCodeSchema, FieldErrorsSchema, UnauthorisedResponses, fail } from '../../http/errors.ts';
import { refuseNul } from '../../http/input-guard.ts';
import { explicitOrder, orderBy, pageSchema, respondPage } from '../../http/pagination.ts';
import { DESK_CONVERSATION_ORDERING, PATIENT_CONVERSATION_ORDERING } from './service.ts';
import { logStaffRead } from '../audit/index.ts';
import { MAX_FILE_BYTES } from './files.ts';
import { ClinicianConversationSchema, ClinicianReplyJsonBody, ConversationSchema, FileParams, IdParams, MessageSchema, SendJsonBody, SendResponseSchema } from './schemas.ts';
import * as messages from './service.ts';
import { fields, notFoundDetail } from '../../http/operation.ts';

const unauthorised = UnauthorisedResponses;
const FileResponse = z.string().meta({ description: 'The file itself (application/pdf, image/jpeg, image/png or image/heic)', format: 'binary' });

/** Reads a multipart send: the `file` part (as a buffer, with the size limit) and `content`. */
async function readMultipart(request: FastifyRequest): Promise<{ content?: string; upload?: messages.Upload }> {
  let content: string | undefined;
  let upload: messages.Upload | undefined;
  try {
    for await (const part of request.parts({ limits: { fileSize: MAX_FILE_BYTES, files: 1 } })) {
      if (part.type === 'file') {
        const data = await part.toBuffer();
        if (part.fieldname === 'file') upload = { data, truncated: part.file.truncated, filename: part.filename };
      } else if (part.fieldname === 'content') {
        content = String(part.value);
        refuseNul('content', content);
      }
    }
  } catch (err: unknown) {
    const code = err !== null && typeof err === 'object' && 'code' in err ? err.code : undefined;
    if (code === 'FST_REQ_FILE_TOO_LARGE') throw fail('file_too_large', { message: `The file is larger than ${MAX_FILE_BYTES / 1024 / 1024} MiB.` });
    if (code === 'FST_FILES_LIMIT') throw fail('too_many_files');
    if (err instanceof ApiError) throw err;
    throw fail('invalid_multipart');
  }
  return { content, upload };
}

/** A multipart body is read in the handler (streamed, with its size limit): the JSON schema sees `{}`. */
function multipartBodyIsReadLater(request: FastifyRequest, _reply: FastifyReply, done: () => void): void {
  if (request.isMultipart() || request.body === undefined || request.body === null) (request as { body: unknown }).body = {};
  done();
}

function sendFile(reply: FastifyReply, file: { data: Buffer; contentType: string; name: string }) {
  reply.header('content-type', file.contentType);
  // RFC 6266: an ASCII fallback for old clients, the exact name (UTF-8) in filename*.
  const ascii = file.name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  reply.header('content-disposition', `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(file.name)}`);
  return reply.send(file.data);
}

// Registers routes synchronously; the promise is Fastify's async-plugin contract (nothing to await).
export default function messagesModule(app: ZodApp, { deps }: ModuleOptions): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const patient = { tags: ['messages'], security: bearerSecurity };
  const doctor = { tags: ['clinician'], security: bearerSecurity };

  r.get(
    '/v1/users/conversations/',
    {
      config: {
        operation: { id: 'listConversations', descriptions: { 200: 'A page with the patient’s conversation' } },
      },
      schema: { ...patient, summary: 'The patient’s conversation with the medical team (always one; stored at its first message)', querystring: PATIENT_CONVERSATION_ORDERING.query, response: { 200: pageSchema(ConversationSchema), ...unauthorised } },
    },
    async (request) => {
      // One conversation: every allowed order is the same page; an unknown one is still refused.
      orderBy(request.query, PATIENT_CONVERSATION_ORDERING);
      const results = await messages.listForPatient(deps, currentUser(request).id);
      return respondPage(request, deps.config.PUBLIC_BASE_URL, ({ limit, offset }) => Promise.resolve({ count: results.length, results: results.slice(offset, offset + limit) }));
    },
  );

  r.get(
    '/v1/users/conversations/:id/messages/',
    {
      config: {
        operation: { id: 'listMessages', errors: { 404: [notFoundDetail] }, descriptions: { 200: 'Every message, oldest first (bare array)' } },
      },
      schema: {
        ...patient,
        summary: 'Messages of the conversation, oldest first (bare array); marks the team’s messages read',
        params: IdParams,
        response: { 200: z.array(MessageSchema), 404: DetailSchema, ...unauthorised },
      },
    },
    async (request) => messages.readAsPatient(deps, currentUser(request).id, request.params.id),
  );

  r.post(
    '/v1/users/conversations/:id/messages/',
    {
      config: {
        idempotent: true,
        operation: {
          id: 'sendMessage',
          errors: {
            400: [{ error: ['content_or_file_required', 'content_too_long', 'empty_file', 'unsupported_file_type', 'too_many_files', 'invalid_multipart'] }, fields],
            404: [notFoundDetail],
            413: [{ error: ['file_too_large'] }],
          },
          descriptions: { 201: 'Sent: the conversation with the new message' },
          requestExample: { content: 'Since the higher dose I feel a little nauseous in the mornings. Is that expected?' },
        },
      },
      // A multipart body is read in the handler (streamed, with its size limit); the JSON schema
      // applies to JSON bodies only.
      preValidation: multipartBodyIsReadLater,
      schema: {
        ...patient,
        summary: 'Send a message (JSON `content`, or multipart with `file` and optional `content`); answers 201 with the conversation',
        description:
          'At least one of content or file. Content max 5000 characters. File: PDF, JPEG, PNG or HEIC by its bytes, max 10 MiB (413 `file_too_large`). Emergency wording adds an `emergency` notice with the country’s number; the message is still delivered and flagged for the team.',
        params: IdParams,
        body: SendJsonBody,
        response: { 201: SendResponseSchema, 400: ErrorCodeSchema.or(FieldErrorsSchema), 404: DetailSchema, 413: ErrorCodeSchema, ...unauthorised },
      },
    },
    async (request, reply) => {
      const userId = currentUser(request).id;
      const input = request.isMultipart() ? await readMultipart(request) : { content: request.body?.content };
      const out = await messages.sendAsPatient(deps, userId, request.params.id, input.content, input.upload);
      return reply.code(201).send(out);
    },
  );

  r.get(
    '/v1/users/conversations/:id/messages/:message_id/file/',
    {
      config: {
        operation: {
          id: 'downloadMessageFile',
          errors: { 404: [notFoundDetail] },
          binary: ['application/pdf', 'image/jpeg', 'image/png', 'image/heic'],
          descriptions: { 200: 'The file (`Content-Disposition: attachment`)' },
        },
      },
      schema: { ...patient, summary: 'Download a message’s file (owner only)', params: FileParams, response: { 200: FileResponse, 404: DetailSchema, ...unauthorised } },
    },
    async (request, reply) => sendFile(reply, await messages.patientFile(deps, currentUser(request).id, request.params.id, request.params.message_id)),
  );

  // The medical team's side.
  r.get(
    '/v1/clinician/conversations/',
    {
      config: {
        operation: { id: 'listClinicianConversations', descriptions: { 200: 'A page of conversations' } },
      },
      schema: {
        ...doctor,
        summary: 'Patient conversations, flagged (emergency wording) first, then most recent',
        querystring: DESK_CONVERSATION_ORDERING.query,
        response: { 200: pageSchema(ClinicianConversationSchema), 403: DetailCodeSchema, ...unauthorised },
      },
    },
    async (request) => {
      const order = explicitOrder(request.query, DESK_CONVERSATION_ORDERING);
      const page = await respondPage(request, deps.config.PUBLIC_BASE_URL, ({ limit, offset }) => messages.listForClinician(deps, limit, offset, order));
      await logStaffRead(deps, request, 'conversation', page.results.map((c) => c.id));
      return page;
    },
  );

  r.get(
    '/v1/clinician/conversations/:id/messages/',
    {
      config: {
        operation: { id: 'readConversation', errors: { 404: [notFoundDetail] }, descriptions: { 200: 'Every message, oldest first (bare array)' } },
      },
      schema: { ...doctor, summary: 'Read a conversation (marks the patient’s messages read)', params: IdParams, response: { 200: z.array(MessageSchema), 403: DetailCodeSchema, 404: DetailSchema, ...unauthorised } },
    },
    async (request) => {
      const list = await messages.readAsClinician(deps, request.params.id);
      await logStaffRead(deps, request, 'conversation', request.params.id);
      return list;
    },
  );

  r.post(
    '/v1/clinician/conversations/:id/messages/',
    {
      // As the patient's send: a multipart body is read in the handler; the JSON schema applies to JSON bodies only.
      config: {
        operation: {
          id: 'replyToConversation',
          errors: {
            400: [{ error: ['content_required', 'content_too_long', 'empty_file', 'unsupported_file_type', 'too_many_files', 'invalid_multipart'] }, fields],
            404: [notFoundDetail],
            413: [{ error: ['file_too_large'] }],
          },
          descriptions: { 201: 'Sent: the conversation' },
          requestExample: { content: 'Mild nausea is common in the first weeks. Eat smaller meals; write again if it gets worse.' },
        },
      },
      preValidation: multipartBodyIsReadLater,
      schema: {
        ...doctor,
        summary: 'Reply to the patient (JSON `content`, or multipart with `file` and optional `content`); emails a notification without health details',
        description:
          'Content max 5000 characters. File: PDF, JPEG, PNG or HEIC by its bytes, max 10 MiB (413 `file_too_large`), stored for the patient (who downloads it on their route).',
        params: IdParams,
        // Longer text answers 400 `content_too_long` (service.ts checkContent), so the limit is published.
        body: ClinicianReplyJsonBody,
        response: { 201: ClinicianConversationSchema, 400: ErrorCodeSchema.or(FieldErrorsSchema), 403: DetailCodeSchema, 404: DetailSchema, 413: ErrorCodeSchema, ...unauthorised },
      },
    },
    async (request, reply) => {
      const input = request.isMultipart() ? await readMultipart(request) : { content: request.body?.content };
      return reply.code(201).send(await messages.replyAsClinician(deps, currentUser(request).id, request.params.id, input.content, input.upload));
    },
  );

  r.get(
    '/v1/clinician/conversations/:id/messages/:message_id/file/',
    {
      config: {
        operation: {
          id: 'downloadPatientFile',
          errors: { 404: [notFoundDetail] },
          binary: ['application/pdf', 'image/jpeg', 'image/png', 'image/heic'],
          descriptions: { 200: 'The file (`Content-Disposition: attachment`)' },
        },
      },
      schema: { ...doctor, summary: 'Download a file a patient sent', params: FileParams, response: { 200: FileResponse, 403: DetailCodeSchema, 404: DetailSchema, ...unauthorised } },
    },
    async (request, reply) => {
      const file = await messages.clinicianFile(deps, request.params.id, request.params.message_id);
      await logStaffRead(deps, request, 'message_file', request.params.message_id);
      return sendFile(reply, file);
    },
  );
  return Promise.resolve();
}
