// The sandbox identity provider's hosted page (HTML, outside the API document), standing in for a
// document + liveness vendor's flow:
//   GET  /sandbox/identity/{id}/          an ID-photo and a selfie upload (the phone's cameras), and
//                                         what the document says: name and birth date (prefilled from
//                                         the profile, editable), document number and country
//   POST /sandbox/identity/{id}/approve/  multipart: id_photo, selfie and the fields; the module keeps
//                                         the images and compares the reading with the profile
//   POST /sandbox/identity/{id}/reject/   the document is refused (what a vendor's "declined" does)
// Both POSTs answer 303 to the session's return address (the web app's verification page).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Deps } from '../deps.ts';
import type { ZodApp } from '../http/plugin.ts';
import { MAX_IMAGE_BYTES } from '../lib/images.ts';
import { SANDBOX_IDENTITY_ID } from './sandbox.ts';
import type { DocumentReading, SandboxIdentityPort, SandboxIdentitySession, UploadedImage } from './types.ts';

const Params = z.object({ id: z.string() });
const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function page(title: string, body: string) {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${esc(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;color:#222}label{display:block;margin:.8rem 0}input{font-size:1rem;padding:.4rem;width:100%;box-sizing:border-box}
button{font-size:1rem;padding:.6rem 1.2rem;margin-right:.5rem;cursor:pointer}.ok{background:#1a7f37;color:#fff;border:0}.note{color:#555;font-size:.9rem}.error{color:#a40e26}</style></head><body>${body}</body></html>`;
}

/** The reading typed on the page; a field missing or malformed is reported by name. */
const ReadingForm = z.object({
  first_name: z.string().trim().min(1).max(100),
  last_name: z.string().trim().min(1).max(100),
  date_of_birth: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  document_number: z.string().trim().max(64).optional(),
  issuing_country: z.string().trim().max(3).optional(),
});

interface Form {
  fields: Record<string, string>;
  files: Record<string, UploadedImage>;
}

async function readForm(request: FastifyRequest): Promise<Form | null> {
  if (!request.isMultipart()) return null;
  const form: Form = { fields: {}, files: {} };
  try {
    for await (const part of request.parts({ limits: { fileSize: MAX_IMAGE_BYTES, files: 2, fields: 8, fieldSize: 1024 } })) {
      if (part.type === 'file') {
        const data = await part.toBuffer();
        if (part.fieldname === 'id_photo' || part.fieldname === 'selfie') form.files[part.fieldname] = { data, truncated: part.file.truncated };
      } else {
        form.fields[part.fieldname] = String(part.value);
      }
    }
  } catch {
    return null;
  }
  return form;
}

export function registerSandboxIdentityPages(app: ZodApp, deps: Deps, port: SandboxIdentityPort): void {
  const load = async (id: string) => (SANDBOX_IDENTITY_ID.test(id) ? port.load(id) : null);
  const open = (row: SandboxIdentitySession) => row.status === 'pending' && row.expiresAt.getTime() > deps.clock.now().getTime();
  const html = (reply: FastifyReply) => reply.header('cache-control', 'no-store').type('text/html; charset=utf-8');
  const notFoundPage = (reply: FastifyReply) => html(reply).code(404).send(page('Not found', '<h1>Verification session not found</h1>'));

  const form = (row: SandboxIdentitySession, error?: string) =>
    page(
      'Sandbox identity check',
      `<h1>Sandbox identity check</h1><p class="note">Test mode: no document is checked by anyone. A real provider reads the document and checks that the selfie is a live person matching it.</p>
${error ? `<p class="error" role="alert">${esc(error)}</p>` : ''}
<form method="post" action="approve/" enctype="multipart/form-data">
<label>Photo of the identity document<input type="file" name="id_photo" accept="image/*" capture="environment" required></label>
<label>Selfie<input type="file" name="selfie" accept="image/*" capture="user" required></label>
<h2>What the document says</h2>
<label>First name<input name="first_name" value="${esc(row.profile.firstName)}" required autocomplete="off"></label>
<label>Last name<input name="last_name" value="${esc(row.profile.lastName)}" required autocomplete="off"></label>
<label>Date of birth (YYYY-MM-DD)<input name="date_of_birth" value="${esc(row.profile.dateOfBirth ?? '')}" required pattern="\\d{4}-\\d{2}-\\d{2}" autocomplete="off"></label>
<label>Document number<input name="document_number" value="${esc(row.profile.documentNumber)}" autocomplete="off"></label>
<label>Issuing country (ISO code)<input name="issuing_country" value="${esc(row.profile.issuingCountry)}" maxlength="3" autocomplete="off"></label>
<button class="ok" type="submit">Approve the document</button></form>
<form method="post" action="reject/" style="margin-top:1rem"><button type="submit">Reject the document</button></form>`,
    );

  app.get('/sandbox/identity/:id/', { schema: { hide: true } }, async (request, reply) => {
    const row = await load(Params.parse(request.params).id);
    if (!row) return notFoundPage(reply);
    if (!open(row)) {
      const state = row.status === 'pending' ? 'expired' : 'finished';
      return html(reply).send(page('Identity check', `<h1>This identity check is ${state}</h1><p><a href="${esc(row.returnUrl)}">Continue</a></p>`));
    }
    return html(reply).send(form(row));
  });

  app.post('/sandbox/identity/:id/approve/', { schema: { hide: true } }, async (request, reply) => {
    const row = await load(Params.parse(request.params).id);
    if (!row) return notFoundPage(reply);
    if (!open(row)) return reply.redirect(row.returnUrl, 303);
    const body = await readForm(request);
    const idPhoto = body?.files.id_photo;
    const selfie = body?.files.selfie;
    const fields = ReadingForm.safeParse(body?.fields ?? {});
    if (!idPhoto || !selfie || !fields.success) {
      return html(reply).code(400).send(form(row, 'Add both photos, and the name and birth date (YYYY-MM-DD) as the document gives them.'));
    }
    const reading: DocumentReading = {
      firstName: fields.data.first_name,
      lastName: fields.data.last_name,
      dateOfBirth: fields.data.date_of_birth,
      documentNumber: fields.data.document_number || null,
      documentType: 'ID_CARD',
      issuingCountry: fields.data.issuing_country || null,
    };
    try {
      await port.approve(row.id, { idPhoto, selfie }, reading);
    } catch (err) {
      if (err instanceof Error && err.name === 'ImageRejectedError') {
        return html(reply).code(400).send(form(row, 'A photo could not be read. Use a JPEG, PNG, WebP or HEIC photo of at most 15 MiB.'));
      }
      throw err;
    }
    return reply.redirect(row.returnUrl, 303);
  });

  app.post('/sandbox/identity/:id/reject/', { schema: { hide: true } }, async (request, reply) => {
    const row = await load(Params.parse(request.params).id);
    if (!row) return notFoundPage(reply);
    if (open(row)) await port.reject(row.id, 'declined on the sandbox page');
    return reply.redirect(row.returnUrl, 303);
  });
}
