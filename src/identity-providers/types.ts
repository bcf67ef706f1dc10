// The identity provider interface. Two implementations: `sandbox` (built in, the default: a page of
// this service where a tester uploads an ID photo and a selfie and types what the document says) and
// `veriff` (a document + liveness vendor, its REST API and signed decision webhooks). Adapters hold
// no SQL and know no module: the verification module talks to this interface, and what must survive
// a restart lives in its tables (identity_verifications), handed to the adapter when it needs it.

export type IdentityProviderName = 'sandbox' | 'veriff';
export const IDENTITY_PROVIDER_NAMES = ['sandbox', 'veriff'] as const;

export interface StartRequest {
  /** Our verification id, sent to the vendor as its reference (vendorData) and back in its webhook. */
  verificationId: string;
  /** The profile's name as the patient gave it (a vendor may show or compare it). */
  firstName: string;
  lastName: string;
  /** Where the provider sends the browser when the patient is done. */
  returnUrl: string;
}

export interface StartedSession {
  /** The provider's id of the session (unique per provider). */
  sessionId: string;
  /** Where the patient completes the check (the vendor's hosted flow, or the sandbox page). */
  url: string;
  expiresAt: Date;
}

/** What the document said, as the provider read it. */
export interface DocumentReading {
  firstName: string;
  lastName: string;
  /** YYYY-MM-DD */
  dateOfBirth: string;
  /** The document's number: hashed with a key at once, never stored. */
  documentNumber: string | null;
  documentType: string | null;
  /** ISO 3166 alpha-2 or alpha-3, as the provider gives it. */
  issuingCountry: string | null;
}

/** A provider's outcome for a session, in this service's terms. */
export type IdentityOutcome =
  /** Document and liveness passed; the reading is compared with the profile (a mismatch goes to the desk). */
  | { kind: 'approved'; reading: DocumentReading; reason: string }
  /** The provider could not decide and asks for a person (its own review): the desk decides. */
  | { kind: 'review'; reading: DocumentReading | null; reason: string }
  | { kind: 'declined'; reason: string }
  /** The session ended without a decision (expired, abandoned): the patient may start again. */
  | { kind: 'expired'; reason: string }
  /** The patient must redo a step in the same session: nothing changes here. */
  | { kind: 'resubmit'; reason: string };

export interface IdentityProvider {
  readonly name: IdentityProviderName;
  startSession(req: StartRequest): Promise<StartedSession>;
}

/** A verified webhook event: which session, and its outcome. */
export interface IdentityEvent {
  eventId: string;
  sessionId: string;
  outcome: IdentityOutcome;
}

/** Where a verified webhook event goes: the verification module records its id and applies it once. */
export interface IdentityWebhookPort {
  /** True when the event id was recorded before (nothing changed). */
  receive(provider: IdentityProviderName, event: IdentityEvent): Promise<boolean>;
}

/** An image the sandbox page received (ID photo, selfie): bytes as uploaded, sanitised by the module. */
export interface UploadedImage {
  data: Buffer;
  truncated: boolean;
}

/** A sandbox session as its page shows it. */
export interface SandboxIdentitySession {
  id: string;
  status: string;
  expiresAt: Date;
  returnUrl: string;
  /** The profile's values, prefilled in the form (the tester edits them to what the document says). */
  profile: { firstName: string; lastName: string; dateOfBirth: string | null; documentNumber: string; issuingCountry: string };
}

/** What the sandbox page needs from the verification module. */
export interface SandboxIdentityPort {
  load(sessionId: string): Promise<SandboxIdentitySession | null>;
  /** The tester approves: the images are kept and the reading compared with the profile. */
  approve(sessionId: string, images: { idPhoto: UploadedImage; selfie: UploadedImage }, reading: DocumentReading): Promise<void>;
  reject(sessionId: string, reason: string): Promise<void>;
}
