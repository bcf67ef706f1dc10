// Messages with the medical team: one conversation per patient, stored at its first message; patient and
// doctor sides; attachments; emergency wording flagged. Design decisions: docs/messages.md.
import { randomUUID } from 'node:crypto';
import type { Queryable } from '../../db/index.ts';
import type { Deps } from '../../deps.ts';
import { fail, notFound } from '../../http/errors.ts';
import { screenFreeText } from '../redflags/index.ts';
import { nameUuid } from '../../lib/name-uuid.ts';
import { enqueueMail } from '../../mail/outbox.ts';
import { recordAudit } from '../audit/index.ts';
import { resumeReview } from '../consultations/index.ts';
import { fileStoreOf, type FileStore } from './file-stores.ts';
import { detectAllowedType, MAX_FILE_BYTES, stripMetadata } from './files.ts';
import { doctorReplyMail } from './mail.ts';
import * as repo from './repository.ts';
import type { ConversationView, MessageView, PatientSummary } from './repository.ts';
import { MAX_CONTENT_LENGTH } from './schemas.ts';
import { appLinks } from '../../mail/links.ts';
import { iso } from '../../lib/iso.ts';
import { notify } from '../notifications/index.ts';


/** Attachments: in the database or an S3-compatible store, sealed (./file-stores.ts). */
export function fileStore(deps: Deps): FileStore {
  return fileStoreOf(deps);
}

function messageOut(deps: Deps, m: MessageView, patientSide: boolean) {
  const base = deps.config.PUBLIC_BASE_URL;
  const file = m.file_id
    ? patientSide
      ? `${base}/v1/users/conversations/${m.conversation_id}/messages/${m.id}/file/`
      : `${base}/v1/clinician/conversations/${m.conversation_id}/messages/${m.id}/file/`
    : null;
  return { id: m.id, sender: m.sender_id, sender_type: m.sender_type, content: m.content, file, is_read: m.is_read, created_at: m.created_at.toISOString() };
}

function conversationOut(deps: Deps, c: ConversationView, patientSide = true) {
  const last = c.last_message;
  return {
    id: c.id,
    user: { id: c.user_id, email: c.email, first_name: c.first_name, last_name: c.last_name, locale: c.locale },
    created_at: c.created_at.toISOString(),
    updated_at: c.updated_at.toISOString(),
    is_active: c.is_active,
    pinned_at: iso(c.pinned_at),
    last_message: last ? messageOut(deps, last, patientSide) : null,
    last_message_created_at: last ? last.created_at.toISOString() : null,
    last_message_sender_type: last ? last.sender_type : null,
    unread_count: c.unread_count,
    subscription_status: c.subscription_status,
    flagged_at: iso(c.flagged_at),
  };
}

// The namespace of the ids of conversations not written to yet (any fixed UUID; changing it changes those ids).
const CONVERSATION_ID_NAMESPACE = '0b7c2f64-91d3-4a5e-8f0a-6c3e5d2b1a98';

/** The id a patient's conversation is shown with before it has a row, and stored under at the first message. */
export const conversationIdFor = (userId: string): string => nameUuid(CONVERSATION_ID_NAMESPACE, userId);

/**
 * The conversation a patient has before writing anything: empty, no row (GETs do not write). It is
 * dated from the account's creation, and the first message stores it with these dates, so that the
 * listing does not change when the row appears.
 */
function emptyConversation(userId: string, p: PatientSummary): ConversationView {
  return {
    id: conversationIdFor(userId), user_id: userId, is_active: true, pinned_at: null, flagged_at: null, created_at: p.created_at, updated_at: p.created_at,
    email: p.email, first_name: p.first_name, last_name: p.last_name, locale: p.locale, country_of_residence: p.country_of_residence,
    unread_count: 0, subscription_status: p.subscription_status, last_message: null,
  };
}

/** The patient's conversation, stored or empty; undefined only when the account is gone. */
async function patientConversation(q: Queryable, userId: string): Promise<ConversationView | undefined> {
  const stored = await repo.findConversationForPatient(q, userId);
  if (stored) return stored;
  const summary = await repo.patientSummary(q, userId);
  return summary && emptyConversation(userId, summary);
}

/** Read-only: served by deps.reader. */
export async function listForPatient(deps: Deps, userId: string) {
  const conv = await patientConversation(deps.reader, userId);
  if (!conv) throw notFound();
  return [conversationOut(deps, conv)];
}

/** The patient's own conversation by id (stored, or the empty one under its derived id), else 404. */
async function ownConversation(deps: Deps, userId: string, id: string): Promise<ConversationView> {
  const conv = (await repo.findConversationForPatient(deps.db, userId, id)) ?? (id === conversationIdFor(userId) ? await patientConversation(deps.db, userId) : undefined);
  if (!conv || conv.id !== id) throw notFound();
  return conv;
}

/** Marks the team's messages read, so it writes (on the primary) when there is something to mark. */
export async function readAsPatient(deps: Deps, userId: string, id: string) {
  const conv = await ownConversation(deps, userId, id);
  if (!conv.last_message) return [];
  const rows = await deps.db.tx(async (q) => {
    await repo.markTeamMessagesReadForPatient(q, userId, conv.id, deps.clock.now());
    return repo.listMessagesForPatient(q, userId, conv.id);
  });
  return rows.map((m) => messageOut(deps, m, true));
}

export interface Upload {
  data: Buffer;
  truncated: boolean;
  /** The file name the client sent (multipart `filename`), if any. */
  filename?: string;
}

/**
 * The name an upload is kept under: the client's base name without control characters, quotes or
 * path, at most 120 characters, ending in the extension of the type its bytes were found to be (a
 * PNG sent as "x.html" downloads as "x.png"). Null when nothing usable is left.
 */
export function uploadName(filename: string | undefined, extension: string): string | null {
  const base = (filename ?? '').split(/[\\/]/).pop() ?? '';
  const clean = base.normalize('NFC').replace(/[\p{Cc}\p{Cf}"\u2028\u2029]/gu, '').trim();
  const stem = clean.replace(/\.[^.]{1,10}$/, '').replace(/^\.+/, '').trim().slice(0, 110);
  return stem ? `${stem}.${extension}` : null;
}

const storedName = (f: { name: string | null; extension: string }, messageId: string) => f.name ?? `attachment-${messageId.slice(0, 8)}.${f.extension}`;

async function storeUpload(deps: Deps, q: Queryable, userId: string, upload: Upload): Promise<string> {
  if (upload.truncated || upload.data.length > MAX_FILE_BYTES) {
    throw fail('file_too_large', { message: `The file is larger than ${MAX_FILE_BYTES / 1024 / 1024} MiB.` });
  }
  if (upload.data.length === 0) throw fail('empty_file');
  const type = await detectAllowedType(upload.data);
  if (!type) throw fail('unsupported_file_type');
  const clean = stripMetadata(upload.data, type.contentType);
  const key = await fileStore(deps).put(clean, q);
  return repo.insertFile(q, userId, { key, contentType: type.contentType, extension: type.extension, size: clean.length, name: uploadName(upload.filename, type.extension) });
}

function checkContent(content: string | undefined): string {
  const text = (content ?? '').trim();
  if (text.length > MAX_CONTENT_LENGTH) throw fail('content_too_long', { message: `A message can have at most ${MAX_CONTENT_LENGTH} characters.` });
  return text;
}

export async function sendAsPatient(deps: Deps, userId: string, id: string, content: string | undefined, upload?: Upload) {
  const conv = await ownConversation(deps, userId, id);
  const text = checkContent(content);
  if (!text && !upload) throw fail('content_or_file_required');
  // The answer is read inside the transaction: once it commits nothing is left to fail, so a stored
  // message is never answered with an error (which a client would retry into a duplicate).
  const { row, emergency } = await deps.db.tx(async (q) => {
    // The first message stores the conversation under the id (and dates) it was shown with.
    await repo.createConversationForPatient(q, userId, conv.id, conv.created_at);
    const fileId = upload ? await storeUpload(deps, q, userId, upload) : null;
    // The one detector (docs/red-flags.md): an emergency flags the message and the thread and files a
    // desk flag; past history files a desk flag only. Same transaction as the message.
    const screening = await screenFreeText(q, { userId, source: 'message', sourceId: conv.id, texts: [text], about: 'message' });
    const flagged = screening.emergency !== null;
    if (!(await repo.insertPatientMessage(q, userId, { conversationId: conv.id, content: text, fileId, flagged, at: deps.clock.now() }))) throw notFound();
    // A patient's message answers the team's question (docs/consultations.md): consultations waiting
    // for information go back to review, in the same transaction as the message.
    await resumeReview(q, userId);
    const stored = await repo.findConversationForPatient(q, userId, conv.id);
    if (!stored) throw notFound();
    return { row: stored, emergency: screening.emergency };
  });
  const out = conversationOut(deps, row);
  return {
    ...out,
    user: { ...out.user, country_of_residence: row.country_of_residence },
    last_message: out.last_message && { ...out.last_message, translation_enabled: false, translation_default_on: false },
    translation_target_lang: row.locale,
    emergency,
  };
}

export async function patientFile(deps: Deps, userId: string, id: string, messageId: string) {
  const f = await repo.fileForPatient(deps.reader, userId, id, messageId);
  if (!f) throw notFound();
  return { data: await fileStore(deps).get(f.storage_key), contentType: f.content_type, name: storedName(f, messageId) };
}

// ---------------------------------------------------------------- the medical team

/** Read-only: one statement for the page (with last messages and unread counts) and one for the count. */
export async function listForClinician(deps: Deps, limit: number, offset: number, order?: Parameters<typeof repo.pageConversationsForClinician>[3]) {
  const count = await repo.countConversationsForClinician(deps.reader);
  const rows = await repo.pageConversationsForClinician(deps.reader, limit, offset, order);
  return { count, results: rows.map((c) => conversationOut(deps, c, false)) };
}

async function anyConversation(deps: Deps, id: string): Promise<ConversationView> {
  const row = await repo.findConversationForClinician(deps.db, id);
  if (!row) throw notFound();
  return row;
}

export async function readAsClinician(deps: Deps, id: string) {
  const conv = await anyConversation(deps, id);
  const rows = await deps.db.tx(async (q) => {
    await repo.markPatientMessagesReadForClinician(q, conv.id, deps.clock.now());
    return repo.listMessagesForClinician(q, conv.id);
  });
  return rows.map((m) => messageOut(deps, m, false));
}

/**
 * The team's reply: text, a file, or both. A file is checked and stored as a patient's is
 * (storeUpload: size, type by its bytes, metadata stripped, sealed name) and owned by the
 * conversation's patient, so the patient downloads it on their route and account erasure removes it.
 */
export async function replyAsClinician(deps: Deps, doctorId: string, id: string, content: string | undefined, upload?: Upload) {
  const conv = await anyConversation(deps, id);
  const text = checkContent(content);
  if (!text && !upload) throw fail('content_required');
  await deps.db.tx(async (q) => {
    const fileId = upload ? await storeUpload(deps, q, conv.user_id, upload) : null;
    await repo.insertMessageForClinician(q, doctorId, { conversationId: conv.id, content: text, fileId, at: deps.clock.now() });
    await recordAudit(q, { actorId: doctorId, action: 'conversation.reply', subjectType: 'conversation', subjectId: conv.id, ...(fileId ? { details: { file_id: fileId } } : {}) });
    await enqueueMail(q, conv.email, doctorReplyMail, conv.locale, { link: appLinks.messages(deps.config) });
    await notify(q, { kind: 'care_team_message', userId: conv.user_id, key: `${conv.id}:${randomUUID()}` });
  });
  return conversationOut(deps, await anyConversation(deps, conv.id), false);
}

export async function clinicianFile(deps: Deps, id: string, messageId: string) {
  const f = await repo.fileForClinician(deps.reader, id, messageId);
  if (!f) throw notFound();
  return { data: await fileStore(deps).get(f.storage_key), contentType: f.content_type, name: storedName(f, messageId) };
}

/** Removes stored files (account erasure, after its transaction committed); a failure is logged, not thrown. */
export async function removeStoredFiles(deps: Deps, keys: readonly string[]): Promise<void> {
  for (const key of keys) {
    await fileStore(deps)
      .remove(key)
      .catch((err: unknown) => deps.log.error({ err }, 'erasure: a stored message file could not be removed'));
  }
}

// The list orderings its routes validate `ordering` against (pagination contracts, not SQL).
export { DESK_CONVERSATION_ORDERING, PATIENT_CONVERSATION_ORDERING } from './repository.ts';

// ---- the account's privacy: its data export and its erasure (the privacy module)

/** The account's conversations and messages (the data export). */
export function conversationsOfAccount(...args: Parameters<typeof repo.conversationsOfAccount>) {
  return repo.conversationsOfAccount(...args);
}

/** Erasure of the account's messages, inside the erasure's transaction (`trx`). */
export function deleteAccountMessages(...args: Parameters<typeof repo.deleteAccountMessages>) {
  return repo.deleteAccountMessages(...args);
}
