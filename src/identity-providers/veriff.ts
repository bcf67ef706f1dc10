// Veriff (document + liveness vendor) through its REST API, https://devdocs.veriff.com:
// - a session: POST {IDENTITY_VERIFF_BASE_URL}/v1/sessions with the integration's API key
//   (X-AUTH-CLIENT); the answer's verification.url is where the patient photographs the document
//   and takes the selfie (Veriff's liveness check), its verification.id the session id;
// - the decision: Veriff posts it to POST /v1/webhooks/identity/veriff/ (the "decision webhook"),
//   signed with the integration's shared secret: X-HMAC-SIGNATURE is the hex HMAC-SHA256 of the raw
//   body, and X-AUTH-CLIENT names the integration. This adapter checks both in constant time, and
//   refuses an event whose decision time is outside IDENTITY_WEBHOOK_TOLERANCE_SECONDS of now (a
//   captured body replayed later); the module refuses an event id it processed before.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../lib/clock.ts';
import type { DocumentReading, IdentityEvent, IdentityOutcome, IdentityProvider, StartedSession, StartRequest } from './types.ts';

export interface VeriffSettings {
  baseUrl: string;
  apiKey: string;
  sharedSecret: string;
  toleranceSeconds: number;
}

/** The vendor did not answer, or answered an error: the caller answers 503. */
export class IdentityProviderUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'IdentityProviderUnavailableError';
  }
}

/** Veriff keeps a session open for 7 days. */
const SESSION_TTL_MS = 7 * 24 * 3600 * 1000;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const obj = (v: unknown): Obj => (isObj(v) ? v : {});
/** A string field, or the `value` of Veriff's newer `{value, confidenceCategory}` fields. */
const text = (v: unknown): string | null => (typeof v === 'string' ? v : isObj(v) && typeof v.value === 'string' ? v.value : null);

export function veriffProvider(settings: VeriffSettings, clock: Clock): IdentityProvider {
  return {
    name: 'veriff',
    async startSession(req: StartRequest): Promise<StartedSession> {
      let res: Response;
      try {
        res = await fetch(`${settings.baseUrl.replace(/\/+$/, '')}/v1/sessions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-auth-client': settings.apiKey },
          body: JSON.stringify({ verification: { callback: req.returnUrl, person: { firstName: req.firstName, lastName: req.lastName }, vendorData: req.verificationId } }),
          signal: AbortSignal.timeout(10_000),
        });
      } catch (err) {
        throw new IdentityProviderUnavailableError(`the identity provider did not answer: ${(err as Error).name}`);
      }
      const body: unknown = await res.json().catch(() => null);
      const v = obj(obj(body).verification);
      const id = text(v.id);
      const url = text(v.url);
      if (!res.ok || !id || !url) throw new IdentityProviderUnavailableError(`the identity provider refused the session (HTTP ${res.status})`);
      return { sessionId: id, url, expiresAt: new Date(clock.now().getTime() + SESSION_TTL_MS) };
    },
  };
}

export type WebhookCheck = { ok: true; event: IdentityEvent | null } | { ok: false; reason: 'signature' | 'stale' };

/**
 * Verifies a decision webhook and maps it. `null` event: a verified payload that is not a decision
 * (acknowledged, nothing to do).
 */
export function verifyVeriffWebhook(settings: VeriffSettings, clock: Clock, raw: Buffer, headers: { authClient?: string; signature?: string }): WebhookCheck {
  const expected = createHmac('sha256', settings.sharedSecret).update(raw).digest('hex');
  const given = (headers.signature ?? '').trim().toLowerCase();
  const client = headers.authClient ?? '';
  // Constant time: equal lengths compared with timingSafeEqual (a wrong length is refused without comparing).
  const sigOk = given.length === expected.length && timingSafeEqual(Buffer.from(given), Buffer.from(expected));
  const clientOk = client.length === settings.apiKey.length && timingSafeEqual(Buffer.from(client), Buffer.from(settings.apiKey));
  if (!sigOk || !clientOk) return { ok: false, reason: 'signature' };
  let payload: unknown;
  try {
    payload = JSON.parse(raw.toString('utf8'));
  } catch {
    return { ok: false, reason: 'signature' };
  }
  const v = obj(obj(payload).verification);
  const sessionId = text(v.id);
  const status = text(v.status);
  if (!sessionId || !status) return { ok: true, event: null };
  const at = Date.parse(text(v.decisionTime) ?? text(v.acceptanceTime) ?? '');
  if (!Number.isFinite(at) || Math.abs(clock.now().getTime() - at) > settings.toleranceSeconds * 1000) return { ok: false, reason: 'stale' };
  const outcome = veriffOutcome(status, v);
  if (!outcome) return { ok: true, event: null };
  return { ok: true, event: { eventId: `${sessionId}:${text(v.attemptId) ?? ''}:${status}`, sessionId, outcome } };
}

function reading(v: Obj): DocumentReading | null {
  const person = obj(v.person);
  const document = obj(v.document);
  const firstName = text(person.firstName);
  const lastName = text(person.lastName);
  const dateOfBirth = text(person.dateOfBirth);
  if (!firstName || !lastName || !dateOfBirth || !/^\d{4}-\d{2}-\d{2}$/.test(dateOfBirth)) return null;
  return { firstName, lastName, dateOfBirth, documentNumber: text(document.number) ?? text(person.idNumber), documentType: text(document.type), issuingCountry: text(document.country) };
}

/** Veriff's decision statuses (verification.status) in this service's terms. */
export function veriffOutcome(status: string, v: Obj): IdentityOutcome | null {
  const reason = text(v.reason) ?? '';
  switch (status) {
    case 'approved': {
      const r = reading(v);
      // Approved without the data to compare: a person looks (never a silent pass).
      return r ? { kind: 'approved', reading: r, reason } : { kind: 'review', reading: null, reason: 'approved without a readable name or birth date' };
    }
    case 'review':
      return { kind: 'review', reading: reading(v), reason };
    case 'declined':
      return { kind: 'declined', reason };
    case 'expired':
    case 'abandoned':
      return { kind: 'expired', reason: reason || status };
    case 'resubmission_requested':
      return { kind: 'resubmit', reason };
    default:
      return null;
  }
}
