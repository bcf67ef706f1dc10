// Verified identity and verified weight before prescribing (docs/verification.md): starting an
// identity check with the configured provider, applying its outcome (the sandbox page or a vendor's
// signed webhook), the desk's decisions, what each category requires and the approval gate.
import { createHmac, randomUUID } from 'node:crypto';
import type { Queryable } from '../../db/index.ts';
import type { Deps } from '../../deps.ts';
import { fail, fieldErrors, notFound } from '../../http/errors.ts';
import { identityProvider, IdentityProviderUnavailableError, type DocumentReading, type IdentityOutcome, type UploadedImage } from '../../identity-providers/index.ts';
import { decrypt, encrypt, sealedKeyId } from '../../lib/crypto.ts';
import { ImageRejectedError, sanitiseImage } from '../../lib/images.ts';
import { recordAudit } from '../audit/index.ts';
import { recordVerifiedWeight } from '../journal/index.ts';
import { resealBlobTable, sealedStoreWith, type FileStore } from '../messages/index.ts';
import { notify } from '../notifications/index.ts';
import { requirementsOf, VERIFICATION_CATEGORIES, WEIGHT_VALID_DAYS, type Requirement } from './catalogue.ts';
import * as repo from './repository.ts';
import type { IdentityRow, ProfileFacts, WeightRow } from './repository.ts';

export type VerificationStatus = 'not_started' | 'pending' | 'verified' | 'needs_review' | 'rejected';
const DAY_MS = 24 * 3600 * 1000;

// ---------------------------------------------------------------- images

const stores = new WeakMap<object, FileStore>();
/** The verification images' store: sealed like message attachments, in the database or the bucket. */
function imageStore(deps: Deps): FileStore {
  let store = stores.get(deps);
  if (!store) {
    store = sealedStoreWith(deps, {
      kind: 'database',
      put: (q, key, sealed) => repo.insertBlob(q, key, sealedKeyId(sealed) ?? 'unknown', sealed),
      get: (key) => repo.readBlob(deps.reader, key),
      remove: (key) => repo.deleteBlob(deps.db, key),
    });
    stores.set(deps, store);
  }
  return store;
}

/** How long before a verified weight expires the patient is told (docs/verification.md). */
export const WEIGHT_DUE_NOTICE_DAYS = 14;

/**
 * The scheduler's sweep: a patient whose plan needs a verified weight is told (`verification_due`)
 * once per verification, two weeks before it expires (or at once when it already has); the
 * notification's key is the verification, so a second sweep adds nothing.
 */
export async function raiseVerificationDue(deps: Deps): Promise<number> {
  const categories = VERIFICATION_CATEGORIES.filter((c) => requirementsOf(c).includes('weight'));
  const photographedBefore = new Date(deps.clock.now().getTime() - (WEIGHT_VALID_DAYS - WEIGHT_DUE_NOTICE_DAYS) * DAY_MS);
  const due = await repo.weightsDueForScheduler(deps.db, categories, photographedBefore);
  for (const d of due) await notify(deps.db, { kind: 'verification_due', userId: d.user_id, key: d.weight_id, at: deps.clock.now() });
  return due.length;
}

/** reencrypt (docs/operations.md, "Key rotation"): the identity documents, selfies and scale photos. */
export function resealVerificationImages(deps: Pick<Deps, 'config' | 'db' | 'secrets'>): Promise<{ database: number; s3: number }> {
  return resealBlobTable(deps, {
    blobsNotUnderKey: repo.blobsNotUnderKey,
    readBlob: repo.readBlob,
    replaceBlob: repo.replaceBlob,
    keysAfterForOperator: repo.imageKeysAfterForOperator,
  });
}

/** A photo as received: refused by content (type, size, pixels), re-encoded without metadata. */
async function cleanImage(upload: UploadedImage) {
  if (upload.truncated) throw fail('image_too_large');
  if (upload.data.length === 0) throw fail('photo_required');
  try {
    return await sanitiseImage(upload.data);
  } catch (err) {
    if (err instanceof ImageRejectedError) {
      if (err.reason === 'too_large') throw fail('image_too_large');
      if (err.reason === 'unsupported_type') throw fail('unsupported_image');
      throw fail('image_unreadable');
    }
    throw err;
  }
}

// ---------------------------------------------------------------- comparing a document with the profile

/** A name as compared: accents folded, case and punctuation ignored, words in order. */
export function nameWords(name: string): string[] {
  return name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

/**
 * The profile fields the document contradicts: `last_name` unless the words are the same, `first_name`
 * unless every word of the profile's first name is a given name on the document (a middle name the
 * profile leaves out is fine), `date_of_birth` unless equal. Anything listed goes to the desk.
 */
export function mismatchesOf(reading: DocumentReading, profile: Pick<ProfileFacts, 'first_name' | 'last_name' | 'date_of_birth'>): string[] {
  const out: string[] = [];
  const givenOnDocument = new Set(nameWords(reading.firstName));
  const givenInProfile = nameWords(profile.first_name);
  if (givenInProfile.length === 0 || !givenInProfile.every((w) => givenOnDocument.has(w))) out.push('first_name');
  if (nameWords(reading.lastName).join(' ') !== nameWords(profile.last_name).join(' ') || nameWords(profile.last_name).length === 0) out.push('last_name');
  if (!profile.date_of_birth || reading.dateOfBirth !== profile.date_of_birth) out.push('date_of_birth');
  return out;
}

const hmacKey = (deps: Deps, purpose: string) => createHmac('sha256', deps.secrets.codeKey).update(`verification:${purpose}`).digest();

/** The keyed hash of a document (issuing country and number, letters and digits only): never the number itself. */
export function documentHash(deps: Deps, issuingCountry: string | null, number: string): string {
  const norm = (s: string) => s.normalize('NFKC').toUpperCase().replace(/[^A-Z0-9]/g, '');
  return createHmac('sha256', hmacKey(deps, 'document')).update(`${norm(issuingCountry ?? '')}:${norm(number)}`).digest('hex');
}

/** The keyed hash of the profile's name and birth date a verification holds for. */
function profileHash(deps: Deps, p: Pick<ProfileFacts, 'first_name' | 'last_name' | 'date_of_birth'>): string {
  return createHmac('sha256', hmacKey(deps, 'profile'))
    .update(`${nameWords(p.first_name).join(' ')}|${nameWords(p.last_name).join(' ')}|${p.date_of_birth ?? ''}`)
    .digest('hex');
}

// ---------------------------------------------------------------- status

/** An identity row as the patient and the desk see its status now. */
function identityStatus(deps: Deps, row: IdentityRow | null, profile: ProfileFacts | null): VerificationStatus {
  if (!row) return 'not_started';
  switch (row.status) {
    case 'pending':
      return row.expires_at.getTime() > deps.clock.now().getTime() ? 'pending' : 'not_started';
    case 'verified':
      // A change of name or birth date after the check resets it: the check held for the old ones.
      return profile && row.profile_hash === profileHash(deps, profile) ? 'verified' : 'not_started';
    case 'needs_review':
    case 'rejected':
      return row.status;
    default:
      return 'not_started';
  }
}

interface WeightState {
  status: VerificationStatus;
  weight_kg: number | null;
  verified_at: string | null;
  due_at: string | null;
  /** A verified weight counts now (verified and not past its due date). */
  valid: boolean;
}

function weightState(deps: Deps, latest: WeightRow | null, verified: WeightRow | null): WeightState {
  const due = verified ? new Date(verified.created_at.getTime() + WEIGHT_VALID_DAYS * DAY_MS) : null;
  const valid = due !== null && due.getTime() > deps.clock.now().getTime();
  let status: VerificationStatus = latest ? (latest.status as VerificationStatus) : 'not_started';
  // The newest record is a verified weight past its due date: a new photo is needed.
  if (status === 'verified' && !valid) status = 'not_started';
  return {
    status,
    weight_kg: verified?.weight_kg != null ? Number(verified.weight_kg) : null,
    verified_at: verified?.decided_at ? verified.decided_at.toISOString() : null,
    due_at: due ? due.toISOString() : null,
    valid,
  };
}

async function stateOf(deps: Deps, q: Queryable, userId: string) {
  const [identity, profile, latestW, verifiedW] = await Promise.all([repo.latestIdentity(q, userId), repo.profileFacts(q, userId), repo.latestWeight(q, userId), repo.latestVerifiedWeight(q, userId)]);
  const status = identityStatus(deps, identity, profile);
  return {
    identityRow: identity,
    identity: { status, checked_at: status === 'not_started' || status === 'pending' || !identity?.checked_at ? null : identity.checked_at.toISOString() },
    weight: weightState(deps, latestW, verifiedW),
  };
}

type State = Awaited<ReturnType<typeof stateOf>>;

function missingOf(state: State, category: string): Requirement[] {
  return requirementsOf(category).filter((r) => (r === 'identity' ? state.identity.status !== 'verified' : !state.weight.valid));
}

const weightOut = ({ valid: _valid, ...w }: WeightState) => w;

/** GET /v1/users/verification/: both checks, and per category what it requires and what is missing. */
export async function verificationStatus(deps: Deps, userId: string) {
  const state = await stateOf(deps, deps.reader, userId);
  return {
    identity: state.identity,
    weight: weightOut(state.weight),
    requirements: VERIFICATION_CATEGORIES.map((category) => ({ category, required: requirementsOf(category), missing: missingOf(state, category) })),
  };
}

/**
 * What the category requires and what the patient has not done (renewal options): a renewal due
 * while the verified weight has expired says so, since the doctor cannot approve it without a new photo.
 */
export async function verificationFor(deps: Deps, userId: string, category: string) {
  const state = await stateOf(deps, deps.reader, userId);
  const required = requirementsOf(category);
  const missing = missingOf(state, category);
  const weightExpired = missing.includes('weight') && state.weight.due_at !== null;
  const message = missing.length
    ? [
        ...(missing.includes('identity') ? ['Verify your identity (a photo of your ID and a selfie).'] : []),
        ...(missing.includes('weight')
          ? [weightExpired ? `Your verified weight expired on ${state.weight.due_at!.slice(0, 10)}: send a new photo on the scales.` : 'Send a photo of yourself on the scales with the reading visible.']
          : []),
        deps.config.PATIENT_VERIFICATION === 'required' ? 'The doctor can approve only once this is done.' : 'The doctor will see that this is missing.',
      ].join(' ')
    : null;
  return { required, missing, weight_due_at: required.includes('weight') ? state.weight.due_at : null, weight_expired: weightExpired, message };
}

/**
 * The approval gate (one call at the top of the doctor's approval of a first consultation or a
 * renewal): with PATIENT_VERIFICATION=required, a category whose requirements are not met is
 * 409 verification_required {missing}; with optional the desk shows the state and a warning.
 */
export async function assertVerifiedForApproval(deps: Deps, userId: string, category: string): Promise<void> {
  if (deps.config.PATIENT_VERIFICATION !== 'required') return;
  const missing = missingOf(await stateOf(deps, deps.db, userId), category);
  if (missing.length) throw fail('verification_required', { extra: { missing } });
}

/** The desk's view beside a consultation: the checks, what is missing, the warning, duplicate signals. */
export async function verificationForDesk(deps: Deps, userId: string, category: string) {
  const state = await stateOf(deps, deps.db, userId);
  const missing = missingOf(state, category);
  const required = deps.config.PATIENT_VERIFICATION === 'required';
  return {
    mode: deps.config.PATIENT_VERIFICATION,
    required: requirementsOf(category),
    missing,
    warning: missing.length
      ? required
        ? `Approval is blocked until the patient completes: ${missing.join(', ')}.`
        : `Not verified: ${missing.join(', ')}. Verification is optional on this service: decide with this in mind.`
      : null,
    identity: { ...state.identity, id: state.identityRow?.id ?? null, mismatches: state.identityRow?.status === 'needs_review' ? state.identityRow.mismatches : [] },
    weight: weightOut(state.weight),
    duplicate_signals: await duplicateSignals(deps, userId),
  };
}

/** Other accounts sharing this account's identity document, payment card or delivery address. */
export async function duplicateSignals(deps: Deps, userId: string) {
  const q = deps.db;
  const [documents, cards, addresses] = await Promise.all([
    repo.documentHashesOf(q, userId).then((h) => repo.accountsWithDocumentForClinician(q, userId, h)),
    repo.accountsWithCardForClinician(q, userId),
    repo.addressKeysOf(q, userId).then((k) => repo.accountsWithAddressForClinician(q, userId, k)),
  ]);
  return [
    ...(documents.length ? [{ kind: 'identity_document' as const, account_ids: documents }] : []),
    ...(cards.length ? [{ kind: 'card' as const, account_ids: cards }] : []),
    ...(addresses.length ? [{ kind: 'delivery_address' as const, account_ids: addresses }] : []),
  ];
}

// ---------------------------------------------------------------- identity: the patient starts

/** The return address must be the web app's own (an open redirect otherwise). */
function returnUrlOf(deps: Deps, given: string | undefined): string {
  const fallback = `${deps.config.WEB_APP_URL}/verification/?identity=done`;
  if (given === undefined) return fallback;
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    throw fieldErrors({ return_url: ['Enter a valid URL.'] });
  }
  if (url.origin !== new URL(deps.config.WEB_APP_URL).origin) throw fieldErrors({ return_url: ['The return address must be a page of the web app.'] });
  return url.toString();
}

export async function startIdentity(deps: Deps, userId: string, input: { return_url?: string }) {
  const returnUrl = returnUrlOf(deps, input.return_url);
  const current = await stateOf(deps, deps.db, userId);
  if (current.identity.status === 'verified') throw fail('identity_already_verified');
  const open = current.identityRow;
  if (open?.status === 'pending') {
    if (open.expires_at.getTime() > deps.clock.now().getTime()) return { status: 'pending' as const, verification_url: open.provider_url };
    await repo.expireIdentity(deps.db, userId, open.id);
  }
  const profile = await repo.profileFacts(deps.db, userId);
  const id = randomUUID();
  let session;
  try {
    session = await identityProvider(deps).startSession({ verificationId: id, firstName: profile?.first_name ?? '', lastName: profile?.last_name ?? '', returnUrl });
  } catch (err) {
    if (err instanceof IdentityProviderUnavailableError) {
      deps.log.warn({ err: err.message }, 'identity provider unavailable');
      throw fail('identity_provider_unavailable');
    }
    throw err;
  }
  const row = await repo.insertIdentity(deps.db, { id, userId, provider: identityProvider(deps).name, providerSessionId: session.sessionId, providerUrl: session.url, returnUrl, expiresAt: session.expiresAt });
  // A concurrent start opened one first: answer that one.
  const kept = row ?? (await repo.latestIdentity(deps.db, userId));
  if (!kept) throw notFound();
  return { status: 'pending' as const, verification_url: kept.provider_url };
}

// ---------------------------------------------------------------- identity: the provider's outcome

interface StoredImages {
  idPhotoKey: string;
  selfieKey: string;
}

/** Applies a provider's outcome to a pending session (locked by the caller), in the caller's transaction. */
async function applyOutcome(deps: Deps, q: Queryable, row: IdentityRow, outcome: IdentityOutcome, images?: StoredImages): Promise<void> {
  if (outcome.kind === 'resubmit') return;
  const now = deps.clock.now();
  const base = { provider_reason: outcome.reason.slice(0, 500), ...(images ? { id_photo_key: images.idPhotoKey, selfie_key: images.selfieKey } : {}) };
  if (outcome.kind === 'declined' || outcome.kind === 'expired') {
    const status = outcome.kind === 'declined' ? 'rejected' : 'expired';
    await repo.updateIdentityForProvider(q, row.id, { ...base, status, checked_at: outcome.kind === 'declined' ? now : null });
    await recordAudit(q, { actorId: null, action: `identity_verification.${status}`, subjectType: 'user', subjectId: row.user_id, details: { verification_id: row.id, provider: row.provider } });
    return;
  }
  const reading = outcome.reading;
  const profile = await repo.profileFacts(q, row.user_id);
  const mismatches = reading && profile ? mismatchesOf(reading, profile) : ['first_name', 'last_name', 'date_of_birth'];
  const status = outcome.kind === 'approved' && mismatches.length === 0 ? 'verified' : 'needs_review';
  await repo.updateIdentityForProvider(q, row.id, {
    ...base,
    status,
    mismatches: reading ? mismatches : [],
    document_sealed: reading
      ? encrypt(deps.secrets.documentKeys, JSON.stringify({ first_name: reading.firstName, last_name: reading.lastName, date_of_birth: reading.dateOfBirth, document_type: reading.documentType, issuing_country: reading.issuingCountry }))
      : null,
    document_hash: reading?.documentNumber ? documentHash(deps, reading.issuingCountry, reading.documentNumber) : null,
    profile_hash: status === 'verified' && profile ? profileHash(deps, profile) : null,
    checked_at: now,
  });
  await recordAudit(q, { actorId: null, action: `identity_verification.${status}`, subjectType: 'user', subjectId: row.user_id, details: { verification_id: row.id, provider: row.provider, mismatches } });
}

/** The sandbox page's port (src/identity-providers/sandbox-pages.ts). */
export function sandboxIdentityPort(deps: Deps) {
  return {
    async load(sessionId: string) {
      const row = await repo.identityBySessionForProvider(deps.db, 'sandbox', sessionId);
      if (!row) return null;
      const p = await repo.profileFacts(deps.db, row.user_id);
      return {
        id: row.provider_session_id,
        status: row.status,
        expiresAt: row.expires_at,
        returnUrl: row.return_url,
        profile: {
          firstName: p?.first_name ?? '',
          lastName: p?.last_name ?? '',
          dateOfBirth: p?.date_of_birth ?? null,
          documentNumber: p?.document_number_enc ? decrypt(deps.secrets.documentKeys, p.document_number_enc) : '',
          issuingCountry: p?.issuing_state || p?.country_of_residence || '',
        },
      };
    },
    async approve(sessionId: string, images: { idPhoto: UploadedImage; selfie: UploadedImage }, reading: DocumentReading) {
      const [idPhoto, selfie] = [await sanitiseImage(images.idPhoto.data), await sanitiseImage(images.selfie.data)];
      const store = imageStore(deps);
      const written: string[] = [];
      try {
        await deps.db.tx(async (q) => {
          const row = await repo.lockIdentityBySessionForProvider(q, 'sandbox', sessionId);
          if (!row || row.status !== 'pending') return;
          const idPhotoKey = await store.put(idPhoto.data, q);
          written.push(idPhotoKey);
          const selfieKey = await store.put(selfie.data, q);
          written.push(selfieKey);
          await applyOutcome(deps, q, row, { kind: 'approved', reading, reason: 'approved on the sandbox page' }, { idPhotoKey, selfieKey });
        });
      } catch (err) {
        // The bucket's objects do not roll back with the transaction.
        if (deps.config.FILE_STORE === 's3') for (const key of written) await store.remove(key).catch(() => undefined);
        throw err;
      }
    },
    async reject(sessionId: string, reason: string) {
      await deps.db.tx(async (q) => {
        const row = await repo.lockIdentityBySessionForProvider(q, 'sandbox', sessionId);
        if (row?.status === 'pending') await applyOutcome(deps, q, row, { kind: 'declined', reason });
      });
    },
  };
}

/** The vendor webhook's port: the event id and its effect in one transaction. */
export function identityWebhookPort(deps: Deps) {
  return {
    receive: (provider: string, event: { eventId: string; sessionId: string; outcome: IdentityOutcome }) =>
      deps.db.tx(async (q) => {
        if (!(await repo.recordWebhookEventForProvider(q, provider, event.eventId))) return true;
        const row = await repo.lockIdentityBySessionForProvider(q, provider, event.sessionId);
        // An unknown session, or one already decided: acknowledged, nothing changes.
        if (row?.status === 'pending') await applyOutcome(deps, q, row, event.outcome);
        return false;
      }),
  };
}

// ---------------------------------------------------------------- identity: the desk

const documentOf = (deps: Deps, row: IdentityRow) => {
  if (!row.document_sealed) return null;
  const d = JSON.parse(decrypt(deps.secrets.documentKeys, row.document_sealed)) as Record<string, string | null>;
  return { first_name: d.first_name ?? '', last_name: d.last_name ?? '', date_of_birth: d.date_of_birth ?? '', document_type: d.document_type ?? null, issuing_country: d.issuing_country ?? null };
};

async function identityOut(deps: Deps, row: IdentityRow, profile: (ProfileFacts & { id: string }) | undefined) {
  const base = deps.config.PUBLIC_BASE_URL;
  return {
    id: row.id,
    user_id: row.user_id,
    provider: row.provider,
    status: row.status,
    profile: { first_name: profile?.first_name ?? '', last_name: profile?.last_name ?? '', date_of_birth: profile?.date_of_birth ?? null },
    document: documentOf(deps, row),
    mismatches: row.mismatches,
    provider_reason: row.provider_reason,
    images: {
      id_photo_url: row.id_photo_key ? `${base}/v1/clinician/identity-verifications/${row.id}/images/id_photo/` : null,
      selfie_url: row.selfie_key ? `${base}/v1/clinician/identity-verifications/${row.id}/images/selfie/` : null,
    },
    duplicate_signals: await duplicateSignals(deps, row.user_id),
    decided_by: row.decided_by,
    decision_reason: row.decision_reason,
    checked_at: row.checked_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
  };
}

export async function identityQueue(deps: Deps, status: string, limit: number, offset: number) {
  const count = await repo.countIdentityQueueForClinician(deps.db, status);
  const rows = await repo.pageIdentityQueueForClinician(deps.db, status, limit, offset);
  const profiles = new Map((await repo.profileFactsForClinician(deps.db, rows.map((r) => r.user_id))).map((p) => [p.id, p]));
  const results = [];
  for (const row of rows) results.push(await identityOut(deps, row, profiles.get(row.user_id)));
  return { count, results };
}

export async function decideIdentity(deps: Deps, doctorId: string, id: string, input: { decision: 'verified' | 'rejected'; reason: string }) {
  const decided = await deps.db.tx(async (q) => {
    const row = await repo.identityForClinician(q, id, true);
    if (!row) throw notFound();
    if (row.status !== 'needs_review') throw fail('verification_already_decided');
    const profile = await repo.profileFacts(q, row.user_id);
    const out = await repo.decideIdentityForClinician(q, id, {
      status: input.decision,
      decidedBy: doctorId,
      reason: input.reason,
      // The doctor accepts the document for the profile as it reads now; a later change resets it.
      profileHash: input.decision === 'verified' && profile ? profileHash(deps, profile) : null,
      at: deps.clock.now(),
    });
    await recordAudit(q, { actorId: doctorId, action: `identity_verification.${input.decision}`, subjectType: 'user', subjectId: row.user_id, details: { verification_id: id, by: 'desk' } });
    return out;
  });
  const [profile] = await repo.profileFactsForClinician(deps.db, [decided.user_id]);
  return identityOut(deps, decided, profile);
}

export async function identityImage(deps: Deps, id: string, kind: 'id_photo' | 'selfie') {
  const row = await repo.identityForClinician(deps.db, id);
  const key = kind === 'id_photo' ? row?.id_photo_key : row?.selfie_key;
  if (!row || !key) throw notFound();
  return { data: await imageStore(deps).get(key), userId: row.user_id };
}

// ---------------------------------------------------------------- weight

export async function submitWeight(deps: Deps, userId: string, input: { file: UploadedImage | undefined; weightKg: string | undefined }) {
  const weight = Number(input.weightKg);
  if (input.weightKg === undefined || input.weightKg.trim() === '') throw fieldErrors({ weight_kg: ['This field is required.'] });
  if (!Number.isFinite(weight) || !/^\d{1,3}(\.\d{1,2})?$/.test(input.weightKg.trim())) throw fieldErrors({ weight_kg: ['A valid number is required (kilograms, at most two decimals).'] });
  if (weight < 20 || weight > 500) throw fieldErrors({ weight_kg: ['Enter a weight between 20 and 500 kg.'] });
  if (!input.file) throw fail('photo_required');
  const photo = await cleanImage(input.file);
  const store = imageStore(deps);
  let key: string | undefined;
  try {
    return await deps.db.tx(async (q) => {
      key = await store.put(photo.data, q);
      const row = await repo.insertWeight(q, { userId, photoKey: key, claimedWeightKg: weight });
      return { id: row.id, status: 'pending' as const };
    });
  } catch (err) {
    if (key && deps.config.FILE_STORE === 's3') await store.remove(key).catch(() => undefined);
    throw err;
  }
}

function weightRowOut(deps: Deps, row: WeightRow, profile: (ProfileFacts & { id: string }) | undefined) {
  return {
    id: row.id,
    user: { id: row.user_id, first_name: profile?.first_name ?? '', last_name: profile?.last_name ?? '', date_of_birth: profile?.date_of_birth ?? null },
    status: row.status as 'pending' | 'verified' | 'rejected',
    claimed_weight_kg: Number(row.claimed_weight_kg),
    weight_kg: row.weight_kg != null ? Number(row.weight_kg) : null,
    method: row.method === 'video_call' ? ('video_call' as const) : ('photo' as const),
    photo_url: row.photo_key ? `${deps.config.PUBLIC_BASE_URL}/v1/clinician/weight-verifications/${row.id}/photo/` : null,
    decided_by: row.decided_by,
    decided_at: row.decided_at?.toISOString() ?? null,
    reason: row.reason,
    created_at: row.created_at.toISOString(),
  };
}

export async function weightQueue(deps: Deps, status: string, limit: number, offset: number) {
  const count = await repo.countWeightQueueForClinician(deps.db, status);
  const rows = await repo.pageWeightQueueForClinician(deps.db, status, limit, offset);
  const profiles = new Map((await repo.profileFactsForClinician(deps.db, rows.map((r) => r.user_id))).map((p) => [p.id, p]));
  return { count, results: rows.map((r) => weightRowOut(deps, r, profiles.get(r.user_id))) };
}

export async function decideWeight(deps: Deps, doctorId: string, id: string, input: { decision: 'verified' | 'rejected'; weight_kg?: number | undefined; reason?: string | undefined }) {
  if (input.decision === 'verified' && input.weight_kg === undefined) throw fieldErrors({ weight_kg: ['The weight read on the scales is required to verify.'] });
  if (input.decision === 'rejected' && !input.reason?.trim()) throw fieldErrors({ reason: ['Say why the photo does not verify the weight (the patient is told).'] });
  const row = await deps.db.tx(async (q) => {
    const w = await repo.weightForClinician(q, id, true);
    if (!w) throw notFound();
    if (w.status !== 'pending') throw fail('verification_already_decided');
    const now = deps.clock.now();
    const out = await repo.decideWeightForClinician(q, id, { status: input.decision, weightKg: input.decision === 'verified' ? input.weight_kg! : null, decidedBy: doctorId, reason: input.reason?.trim() ?? '', at: now });
    if (input.decision === 'verified') {
      // The weight enters the journal on the day of the photo, marked verified by this doctor now.
      await recordVerifiedWeight(q, w.user_id, { weightKg: input.weight_kg!, loggedOn: w.created_at.toISOString().slice(0, 10), verifiedBy: doctorId, verifiedAt: now });
    }
    await recordAudit(q, { actorId: doctorId, action: `weight_verification.${input.decision}`, subjectType: 'user', subjectId: w.user_id, details: { verification_id: id } });
    return out;
  });
  const [profile] = await repo.profileFactsForClinician(deps.db, [row.user_id]);
  return weightRowOut(deps, row, profile);
}

/**
 * A weight the doctor saw on the scales during a video call (the appointments module's outcome),
 * inside that outcome's transaction: it counts as a verified weight like one read from a photo
 * (decided by this doctor now, due after the same WEIGHT_VALID_DAYS) and enters the journal marked
 * verified, as a photo decision does.
 */
export async function recordWeightSeenOnCall(q: Queryable, input: { userId: string; weightKg: number; doctorId: string; at: Date; appointmentId: string }) {
  const row = await repo.insertWeightSeenOnCall(q, { userId: input.userId, weightKg: input.weightKg, decidedBy: input.doctorId, at: input.at });
  await recordVerifiedWeight(q, input.userId, { weightKg: input.weightKg, loggedOn: input.at.toISOString().slice(0, 10), verifiedBy: input.doctorId, verifiedAt: input.at });
  await recordAudit(q, { actorId: input.doctorId, action: 'weight_verification.verified', subjectType: 'user', subjectId: input.userId, details: { verification_id: row.id, method: 'video_call', appointment_id: input.appointmentId } });
  return { id: row.id };
}

export async function weightPhoto(deps: Deps, id: string) {
  const row = await repo.weightForClinician(deps.db, id);
  // A weight seen on a video call has no photo.
  if (!row?.photo_key) throw notFound();
  return { data: await imageStore(deps).get(row.photo_key), userId: row.user_id };
}

// ---------------------------------------------------------------- the account's privacy

/** The account's verification records for its data export (images listed by id, files in the zip). */
export async function verificationOfAccount(deps: Deps, userId: string) {
  const [identities, weights] = await Promise.all([repo.identitiesOfAccount(deps.db, userId), repo.weightsOfAccount(deps.db, userId)]);
  return {
    identity_verifications: identities.map((r) => ({
      id: r.id,
      provider: r.provider,
      status: r.status,
      document: documentOf(deps, r),
      document_hash: r.document_hash,
      mismatches: r.mismatches,
      decision_reason: r.decision_reason,
      checked_at: r.checked_at?.toISOString() ?? null,
      created_at: r.created_at.toISOString(),
      images: [...(r.id_photo_key ? ['id_photo'] : []), ...(r.selfie_key ? ['selfie'] : [])],
    })),
    weight_verifications: weights.map((r) => ({
      id: r.id,
      method: r.method,
      status: r.status,
      claimed_weight_kg: Number(r.claimed_weight_kg),
      weight_kg: r.weight_kg != null ? Number(r.weight_kg) : null,
      reason: r.reason,
      decided_at: r.decided_at?.toISOString() ?? null,
      created_at: r.created_at.toISOString(),
    })),
  };
}

/** The account's verification images for the zip export: path and bytes. */
export async function verificationFilesOfAccount(deps: Deps, userId: string): Promise<{ path: string; id: string; data: Buffer }[]> {
  const [identities, weights] = await Promise.all([repo.identitiesOfAccount(deps.db, userId), repo.weightsOfAccount(deps.db, userId)]);
  const store = imageStore(deps);
  const out: { path: string; id: string; data: Buffer }[] = [];
  const add = async (id: string, path: string, key: string | null) => {
    if (!key) return;
    try {
      out.push({ id, path, data: await store.get(key) });
    } catch (err) {
      deps.log.warn({ err: (err as Error).name, verification: id }, 'export: a verification image could not be read');
    }
  };
  for (const r of identities) {
    await add(r.id, `verification/identity-${r.id}-id_photo.jpg`, r.id_photo_key);
    await add(r.id, `verification/identity-${r.id}-selfie.jpg`, r.selfie_key);
  }
  for (const r of weights) await add(r.id, `verification/weight-${r.id}.jpg`, r.photo_key);
  return out;
}

/** Erasure, inside the erasure's transaction: the records go, and (database store) their images; answers the keys to remove from a bucket after commit. */
export async function deleteAccountVerification(trx: Queryable, userId: string): Promise<string[]> {
  const keys = await repo.deleteAccountVerificationRows(trx, userId);
  for (const key of keys) await repo.deleteBlob(trx, key);
  return keys;
}

/** After the erasure committed: the images in a bucket (FILE_STORE=s3). */
export async function removeVerificationImages(deps: Deps, keys: readonly string[]): Promise<void> {
  if (deps.config.FILE_STORE !== 's3') return;
  for (const key of keys) {
    await imageStore(deps)
      .remove(key)
      .catch((err: unknown) => deps.log.error({ err: (err as Error).name }, 'erasure: a verification image could not be removed'));
  }
}
