// Request and response shapes of the privacy endpoints (docs/privacy.md).
import { z } from 'zod';
import { CONSENT_KINDS } from './repository.ts';

const ts = z.iso.datetime({ offset: true });

export const ConsentBody = z.object({
  kind: z.enum(CONSENT_KINDS),
  version: z.string().trim().min(1).max(64).meta({ description: 'The version of the text consented to (e.g. the terms’ date or number)' }),
  granted: z.boolean().meta({ description: '`false` withdraws the consent' }),
});

export const ConsentSchema = z
  .object({ id: z.uuid(), kind: z.enum(CONSENT_KINDS), version: z.string(), granted: z.boolean(), at: ts })
  .meta({ id: 'Consent' });

export const ConnectorConsentSchema = z
  .object({
    id: z.uuid(),
    client_id: z.string(),
    client_name: z.string(),
    scopes: z.array(z.string()),
    granted_at: ts,
    revoked_at: ts.nullable(),
  })
  .meta({ id: 'ConnectorConsent', description: 'An assistant the account allowed to act through the MCP connector (docs/mcp.md)' });

export const ConsentsSchema = z
  .object({
    current: z.array(ConsentSchema).meta({ description: 'The newest decision of each kind ever decided' }),
    history: z.array(ConsentSchema).meta({ description: 'Every decision, newest first (rows are appended, never changed)' }),
    connectors: z.array(ConnectorConsentSchema).meta({ description: 'Consents given to assistants through the connector, live and revoked, newest first' }),
  })
  .meta({ id: 'Consents' });

export const AccessLogEntrySchema = z
  .object({
    id: z.uuid(),
    at: ts,
    actor_role: z.enum(['doctor', 'backoffice_admin', 'pharmacist', 'link_recipient']).meta({ description: '`link_recipient`: someone who opened the patient’s share link (actor_name: the recipient they gave)' }),
    actor_name: z.string(),
    action: z.enum(['read', 'write']),
    resource_type: z.enum(['consultation', 'conversation', 'message_file', 'journal', 'prescription', 'profile', 'payment', 'order', 'verification', 'clinical_photo', 'red_flag', 'share_link']),
    resource_id: z.string(),
  })
  .meta({ id: 'AccessLogEntry' });

const rows = z.array(z.record(z.string(), z.unknown()));

export const ExportSchema = z
  .object({
    exported_at: ts,
    profile: z.record(z.string(), z.unknown()),
    consultations: rows.meta({ description: 'Each with its form_snapshot (questions and answers), submission, prescriptions and payments' }),
    questionnaire_progress: z.object({ drafts: rows, submissions: rows, red_flags: rows }),
    payments: rows.meta({ description: 'Each with invoice_url, its invoice download path' }),
    checkout_sessions: rows,
    orders: rows,
    prescriptions: rows.meta({ description: 'Each with pdf_url, its PDF download path' }),
    prescription_reissue_requests: rows,
    subscriptions: rows,
    plan_dose_change_requests: rows,
    conversations: z.array(z.record(z.string(), z.unknown())).meta({ description: 'Each with its messages; a message with a file has file_url, its download path' }),
    clinical_photos: rows.meta({ description: 'Photos taken for the doctor (questionnaire photo questions, photos added to a consultation): each with url, its download path; the zip holds the JPEG files' }),
    journal: z.object({ weight_entries: rows, injections: rows, notes: rows, injection_plan: z.record(z.string(), z.unknown()).nullable(), injection_plans: rows, side_effect_reports: rows, goal: z.object({ goal_weight_kg: z.number().nullable(), updated_at: z.string() }).nullable() }),
    red_flags: rows.meta({ description: 'Every red flag the account’s words raised (the excerpt, the kind and categories, when, and how a clinician resolved it)' }),
    referrals: z.record(z.string(), z.unknown()),
    consents: z.array(ConsentSchema),
    access_log: z.array(AccessLogEntrySchema),
    connected_apps: z.array(z.record(z.string(), z.unknown())),
    connector_tool_calls: rows,
    verification: z
      .object({ identity_verifications: rows, weight_verifications: rows })
      .meta({ description: 'Identity checks (what the document said, the keyed hash of its number, the outcome) and photos on the scales; the images themselves are in the zip variant (docs/verification.md)' }),
    notifications: z.record(z.string(), z.unknown()).meta({ description: 'Notification preferences, how many browsers are subscribed to push (not their endpoints) and the phone for SMS' }),
    appointments: rows.meta({ description: 'Calls with a doctor: times, status, video or phone, the outcome and its note (docs/appointments.md)' }),
    gp_letters: rows.meta({ description: 'Letters to the patient’s own doctor: each with its status (queued, sent, withheld when the consent was withdrawn before it went), recipient, url (its PDF download path) and content; the zip holds the PDFs (docs/interoperability.md)' }),
  })
  .meta({ id: 'AccountExport' });

export const EraseBody = z
  .object({
    password: z.string().max(1000).optional().meta({ description: 'The account password (accounts that have one)' }),
    confirm: z.literal('DELETE').optional().meta({ description: 'Accounts without a password (Google sign-in): the word DELETE, from a session signed in within the last 10 minutes' }),
  })
  .meta({ description: '`{password}`, or `{confirm: "DELETE"}` for an account without a password' });

export const ExportQuery = z.object({
  format: z
    .enum(['json', 'zip', 'fhir'], { error: 'Use json, zip or fhir.' })
    .optional()
    .meta({
      description:
        '`json` (default): one JSON document; `zip`: a zip archive holding export.json and the account’s files (attachments, invoices, prescriptions); `fhir`: the patient summary as a FHIR R4 Bundle of type `document` (International Patient Summary, `application/fhir+json`; docs/interoperability.md)',
    }),
});
