// Share links to the patient summary (SMART Health Links, docs/interoperability.md): the patient's
// routes to create, list and revoke them, and the public manifest that serves the encrypted summary
// to whoever holds a link. Thin routes over share-links.ts.
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ModuleOptions, ZodApp } from '../../http/plugin.ts';
import { bearerSecurity, currentUser } from '../../http/auth.ts';
import { DetailSchema, FieldErrorsSchema, UnauthorisedResponses } from '../../http/errors.ts';
import { fields, notFoundDetail } from '../../http/operation.ts';
import { PageQuery, pageSchema, respondPage } from '../../http/pagination.ts';
import { ManifestBody, ManifestParams, ManifestSchema, PasscodeErrorSchema, ShareLinkBody, ShareLinkCreatedSchema, ShareLinkIdParams, ShareLinkSchema } from './schemas.ts';
import { createShareLink, listShareLinks, revokeShareLink, shareLinkManifest, SHARE_LINK_PASSCODE_ATTEMPTS } from './share-links.ts';
import { GpLetterSchema } from './schemas.ts';
import { gpLetterPdfForUser, pageGpLetters, sendQueuedGpLetters } from './gp-letters.ts';


export default function interopModule(app: ZodApp, { deps }: ModuleOptions): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const common = { tags: ['privacy'], security: bearerSecurity };
  // Letters queued by approvals go to the GPs through the outbox (withheld when the consent was withdrawn since).
  deps.scheduler.register('interop.gp-letters', async () => void (await sendQueuedGpLetters(deps)));

  r.get(
    '/v1/users/me/gp-letters/',
    {
      config: { operation: { id: 'listGpLetters', descriptions: { 200: 'The letters to the patient’s own doctor, newest first' } } },
      schema: {
        ...common,
        summary: 'Letters to my own doctor',
        description:
          'One letter per approval of a category whose GP letters are `required` or `recommended`, while the `gp_sharing` consent is granted and the profile names a GP (docs/interoperability.md). A letter withheld because the consent was withdrawn before it went is not listed (it never left; the export holds it).',
        querystring: PageQuery,
        response: { 200: pageSchema(GpLetterSchema), ...UnauthorisedResponses },
      },
    },
    async (request) => respondPage(request, deps.config.PUBLIC_BASE_URL, ({ limit, offset }) => pageGpLetters(deps, currentUser(request).id, limit, offset)),
  );

  r.get(
    '/v1/users/me/gp-letters/:id/pdf/',
    {
      config: {
        operation: {
          id: 'downloadGpLetter',
          errors: { 404: [notFoundDetail] },
          binary: ['application/pdf'],
          descriptions: { 200: 'The letter as a PDF (`Content-Disposition: attachment`): the patient’s language, then English', 404: 'No such letter of this account' },
        },
      },
      schema: {
        ...common,
        summary: 'A letter to my own doctor as PDF',
        params: ShareLinkIdParams,
        response: { 200: z.unknown().meta({ description: 'PDF document (application/pdf)' }), 404: DetailSchema, ...UnauthorisedResponses },
      },
    },
    async (request, reply) => {
      const pdf = await gpLetterPdfForUser(deps, currentUser(request).id, request.params.id);
      return reply.type('application/pdf').header('content-disposition', `attachment; filename="letter-${request.params.id}.pdf"`).send(pdf);
    },
  );

  r.post(
    '/v1/users/me/share-links/',
    {
      config: {
        operation: {
          id: 'createShareLink',
          errors: { 400: [fields] },
          descriptions: { 201: 'The link (shown once: its key is not kept)', 400: 'A bad `expires_in_days`, `passcode` or `label`' },
          requestExample: { expires_in_days: 14, passcode: '4711', label: 'For Dr. Weber' },
        },
      },
      schema: {
        ...common,
        summary: 'Share the patient summary: a SMART Health Link, encrypted with a key only the link carries',
        description:
          'Encrypts the FHIR patient summary (as `GET /v1/users/me/export/?format=fhir`, taken now) as a JWE with a fresh key that is put in the link and not stored: the server keeps only the ciphertext. Anyone with the link opens it (the web app’s `/shl` page, or any SMART Health Links viewer) until `expires_at` or a revocation; with a passcode, after ' +
          `${SHARE_LINK_PASSCODE_ATTEMPTS} wrong attempts (from anyone) the link stops answering. Each use is listed and in the access log (docs/interoperability.md).`,
        body: ShareLinkBody,
        response: { 201: ShareLinkCreatedSchema, 400: FieldErrorsSchema, ...UnauthorisedResponses },
      },
    },
    async (request, reply) => reply.code(201).send(await createShareLink(deps, currentUser(request).id, request.body)),
  );

  r.get(
    '/v1/users/me/share-links/',
    {
      config: { operation: { id: 'listShareLinks', descriptions: { 200: 'The account’s share links, newest first, each with its uses' } } },
      schema: {
        ...common,
        summary: 'The share links, live and ended, with each use (who, when, served or a wrong passcode)',
        querystring: PageQuery,
        response: { 200: pageSchema(ShareLinkSchema), ...UnauthorisedResponses },
      },
    },
    async (request) => respondPage(request, deps.config.PUBLIC_BASE_URL, ({ limit, offset }) => listShareLinks(deps, currentUser(request).id, limit, offset)),
  );

  r.delete(
    '/v1/users/me/share-links/:id/',
    {
      config: { operation: { id: 'revokeShareLink', errors: { 404: [notFoundDetail] }, descriptions: { 204: 'Revoked: the link answers 404 from now on', 404: 'No such link of this account' } } },
      schema: { ...common, summary: 'Revoke a share link (204; revoking again is 204 too)', params: ShareLinkIdParams, response: { 204: z.null(), 404: DetailSchema, ...UnauthorisedResponses } },
    },
    async (request, reply) => {
      await revokeShareLink(deps, currentUser(request).id, request.params.id);
      return reply.code(204).send(null);
    },
  );

  r.post(
    '/v1/public/shl/:manifest_id/',
    {
      config: {
        access: 'public',
        operation: {
          id: 'getShareLinkManifest',
          errors: { 400: [fields], 401: [{ detail_code: ['share_link_passcode_invalid'] }], 404: [notFoundDetail] },
          descriptions: {
            200: 'The manifest: the encrypted summary, embedded',
            400: 'No `recipient`',
            401: 'The link has a passcode and it is missing or wrong (`remainingAttempts`)',
            404: 'No such link, or it expired, was revoked or took too many wrong passcodes',
          },
          requestExample: { recipient: 'Dr. Weber, Praxis am Markt', passcode: '4711' },
          responseExample: { files: [{ contentType: 'application/fhir+json', embedded: 'eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2R0NNIiwiY3R5IjoiYXBwbGljYXRpb24vZmhpcitqc29uIn0..…' }] },
        },
      },
      schema: {
        tags: ['public'],
        security: [],
        summary: 'A share link’s manifest (SMART Health Links): the encrypted patient summary, for whoever holds the link',
        description: `The \`url\` of a \`shlink:/\` payload. Body \`{recipient, passcode?}\`. Answers \`{files: [{contentType: "application/fhir+json", embedded: <JWE>}]}\`; decrypt the JWE with the link’s \`key\`. A missing or wrong passcode: 401 with \`remainingAttempts\` (${SHARE_LINK_PASSCODE_ATTEMPTS} in all). Each use is in the patient’s access log. A link’s id is 43 base64url characters (256 random bits).`,
        params: ManifestParams,
        body: ManifestBody,
        response: { 200: ManifestSchema, 400: FieldErrorsSchema, 401: PasscodeErrorSchema, 404: DetailSchema },
      },
    },
    async (request) => shareLinkManifest(deps, request.params.manifest_id, request.body),
  );
  return Promise.resolve();
}
