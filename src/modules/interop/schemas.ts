// Request and response shapes of the share-link endpoints (docs/interoperability.md).
import { z } from 'zod';

const ts = z.iso.datetime({ offset: true });

export const ShareLinkBody = z.object({
  expires_in_days: z.number({ error: 'A whole number of days from 1 to 365.' }).int({ error: 'A whole number of days from 1 to 365.' }).min(1, { error: 'A whole number of days from 1 to 365.' }).max(365, { error: 'A whole number of days from 1 to 365.' }),
  passcode: z
    .string()
    .min(4, { error: 'At least 4 characters.' })
    .max(64, { error: 'At most 64 characters.' })
    .optional()
    .meta({ description: 'Asked of whoever opens the link (flag `P`); 10 wrong attempts in all and the link stops answering' }),
  label: z.string().trim().max(80, { error: 'At most 80 characters.' }).optional().meta({ description: 'Shown to the recipient (SMART Health Links `label`, at most 80 characters); default "Patient summary"' }),
});

export const ShareLinkCreatedSchema = z
  .object({
    id: z.uuid(),
    url: z.string().meta({ description: 'The web app’s viewer with the link in its fragment (`<web>/shl#shlink:/…`): open it, or hand the `shlink` to any SMART Health Links viewer. Shown once: the key is in it and is not kept.' }),
    shlink: z.string().meta({ description: 'The SMART Health Link (`shlink:/` + base64url of `{url, key, exp, flag, label, v}`)' }),
    label: z.string(),
    passcode: z.boolean(),
    created_at: ts,
    expires_at: ts,
  })
  .meta({ id: 'ShareLinkCreated' });

export const ShareLinkSchema = z
  .object({
    id: z.uuid(),
    label: z.string(),
    passcode: z.boolean().meta({ description: 'Whether the link asks for a passcode' }),
    status: z.enum(['active', 'expired', 'revoked', 'locked']).meta({ description: '`locked`: too many wrong passcodes' }),
    created_at: ts,
    expires_at: ts,
    revoked_at: ts.nullable(),
    accesses: z
      .array(z.object({ at: ts, recipient: z.string(), outcome: z.enum(['served', 'wrong_passcode', 'locked']) }))
      .meta({ description: 'Each use of the link, newest first: who said they were (`recipient`), and whether the summary was served' }),
  })
  .meta({ id: 'ShareLink' });

export const ShareLinkIdParams = z.object({ id: z.uuid({ error: 'Not a valid id.' }) });
export const ManifestParams = z.object({ manifest_id: z.string().max(200) });

export const ManifestBody = z.object({
  recipient: z.string().trim().min(1, { error: 'Say who is opening the link.' }).max(200, { error: 'At most 200 characters.' }).meta({ description: 'Who opens the link (e.g. "Dr. Weber, Praxis am Markt"): shown to the patient' }),
  passcode: z.string().max(64).optional(),
  embeddedLengthMax: z.number().int().min(0).optional().meta({ description: 'Accepted for the SMART Health Links protocol; the file is always embedded today' }),
});

export const ManifestSchema = z
  .object({
    files: z.array(z.object({ contentType: z.literal('application/fhir+json'), embedded: z.string().meta({ description: 'The summary as a compact JWE (`dir`, `A256GCM`): decrypt with the link’s key' }) })),
  })
  .meta({ id: 'ShareLinkManifest' });

export const PasscodeErrorSchema = z.object({ detail: z.string(), code: z.string(), remainingAttempts: z.number().int() });

export const GpLetterSchema = z
  .object({
    id: z.uuid(),
    consultation_id: z.uuid().meta({ description: 'The approved consultation (or renewal) the letter reports' }),
    status: z.enum(['queued', 'sent']).meta({ description: '`queued` from the approval until the sending job mails it (within a minute or so); `sent` once in the mail outbox' }),
    created_at: z.string().meta({ description: 'When the approval queued it' }),
    sent_at: z.string().nullable(),
    recipient: z.string().meta({ description: 'The GP’s e-mail address at the approval' }),
    url: z.string().meta({ description: 'The letter as a PDF (this account only)' }),
  })
  .meta({ id: 'GpLetter', description: 'A letter to the patient’s own doctor (docs/interoperability.md)' });
