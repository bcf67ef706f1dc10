// Messages with the medical team: one conversation per patient, created on first need; patient and
// doctor sides; attachments; emergency wording flagged. Design decisions: docs/messages.md.
import { join } from 'node:path';
import type { Queryable } from '../../db/index.ts';
import type { Deps } from '../../deps.ts';
import { errorCode, notFound } from '../../http/errors.ts';
import { emergencyNotice, mentionsEmergency, type EmergencyNotice } from '../../lib/emergency.ts';
import { enqueueMail } from '../../mail/outbox.ts';
import { detectAllowedType, diskStore, MAX_FILE_BYTES, stripMetadata, type FileStore } from './files.ts';
import { doctorReplyMail } from './mail.ts';
import * as repo from './repository.ts';
import { MAX_CONTENT_LENGTH } from './schemas.ts';
import { appLinks } from '../../mail/links.ts';
import { iso } from '../../lib/iso.ts';


let stores = new Map<string, FileStore>();
export function fileStore(deps: Deps): FileStore {
  const dir = join(deps.config.DATA_DIR, 'uploads');
  if (!stores.has(dir)) stores = new Map(stores).set(dir, diskStore(dir));
  return stores.get(dir)!;
}

function messageOut(deps: Deps, m: any, patientSide: boolean) {
  const base = deps.config.PUBLIC_BASE_URL;
  const file = m.file_id
    ? patientSide
      ? `${base}/v1/users/conversations/${m.conversation_id}/messages/${m.id}/file/`
      : `${base}/v1/clinician/conversations/${m.conversation_id}/messages/${m.id}/file/`
    : null;
  return { id: m.id, sender: m.sender_id, sender_type: m.sender_type, content: m.content, file, is_read: m.is_read, created_at: iso(m.created_at)! };
}

async function conversationOut(deps: Deps, q: Queryable, row: any, patientSide = true) {
  const last = await repo.lastMessage(q, row.id);
  return {
    id: row.id,
    user: { id: row.user_id, email: row.email, first_name: row.first_name, last_name: row.last_name, locale: row.locale },
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
    is_active: row.is_active,
    pinned_at: iso(row.pinned_at),
    last_message: last ? messageOut(deps, last, patientSide) : null,
    last_message_created_at: last ? iso(last.created_at) : null,
    last_message_sender_type: last ? last.sender_type : null,
    unread_count: row.unread_count,
    subscription_status: row.subscription_status,
    flagged_at: iso(row.flagged_at),
  };
}

export async function listForPatient(deps: Deps, userId: string) {
  await repo.ensureConversation(deps.db, userId);
  const row = await repo.conversationForUser(deps.db, userId);
  return [await conversationOut(deps, deps.db, row)];
}

async function ownConversation(deps: Deps, userId: string, id: string) {
  const row = await repo.conversationForUser(deps.db, userId, id);
  if (!row) throw notFound();
  return row;
}

export async function readAsPatient(deps: Deps, userId: string, id: string) {
  const conv = await ownConversation(deps, userId, id);
  const rows = await deps.db.tx(async (q) => {
    await repo.markRead(q, conv.id, 'DOCTOR');
    return repo.listMessages(q, conv.id);
  });
  return rows.map((m) => messageOut(deps, m, true));
}

export interface Upload {
  data: Buffer;
  truncated: boolean;
}

async function storeUpload(deps: Deps, q: Queryable, userId: string, upload: Upload): Promise<string> {
  if (upload.truncated || upload.data.length > MAX_FILE_BYTES) {
    throw errorCode(413, 'file_too_large', `The file is larger than ${MAX_FILE_BYTES / 1024 / 1024} MiB.`);
  }
  if (upload.data.length === 0) throw errorCode(400, 'empty_file', 'The file is empty.');
  const type = await detectAllowedType(upload.data);
  if (!type) throw errorCode(400, 'unsupported_file_type', 'Only PDF, JPEG, PNG and HEIC files can be sent.');
  const clean = stripMetadata(upload.data, type.contentType);
  const key = await fileStore(deps).put(clean);
  return repo.insertFile(q, { userId, key, contentType: type.contentType, extension: type.extension, size: clean.length });
}

function checkContent(content: string | undefined): string {
  const text = (content ?? '').trim();
  if (text.length > MAX_CONTENT_LENGTH) throw errorCode(400, 'content_too_long', `A message can have at most ${MAX_CONTENT_LENGTH} characters.`);
  return text;
}

export async function sendAsPatient(deps: Deps, userId: string, id: string, content: string | undefined, upload?: Upload) {
  const conv = await ownConversation(deps, userId, id);
  const text = checkContent(content);
  if (!text && !upload) throw errorCode(400, 'content_or_file_required', 'Either content or file is required.');
  const flagged = text !== '' && mentionsEmergency(text);
  await deps.db.tx(async (q) => {
    const fileId = upload ? await storeUpload(deps, q, userId, upload) : null;
    await repo.insertMessage(q, { conversationId: conv.id, senderId: userId, senderType: 'USER', content: text, fileId, flagged, at: deps.clock.now() });
  });
  const row = await repo.conversationForUser(deps.db, userId, conv.id);
  const out = await conversationOut(deps, deps.db, row);
  const emergency: EmergencyNotice | null = flagged ? emergencyNotice(row.country_of_residence, row.locale) : null;
  return {
    ...out,
    user: { ...out.user, country_of_residence: row.country_of_residence },
    last_message: out.last_message && { ...out.last_message, translation_enabled: false, translation_default_on: false },
    translation_target_lang: row.locale,
    emergency,
  };
}

export async function patientFile(deps: Deps, userId: string, id: string, messageId: string) {
  const f = await repo.fileForUser(deps.db, userId, id, messageId);
  if (!f) throw notFound();
  return { data: await fileStore(deps).get(f.storage_key), contentType: f.content_type as string, name: `attachment-${messageId.slice(0, 8)}.${f.extension}` };
}

// ---------------------------------------------------------------- the medical team

export async function listForClinician(deps: Deps, limit: number, offset: number) {
  const count = await repo.countConversations(deps.db);
  const ids = await repo.clinicianConversationIds(deps.db, limit, offset);
  const results = [];
  for (const { id } of ids) results.push(await conversationOut(deps, deps.db, await repo.conversationById(deps.db, id), false));
  return { count, results };
}

async function anyConversation(deps: Deps, id: string) {
  const row = await repo.conversationById(deps.db, id);
  if (!row) throw notFound();
  return row;
}

export async function readAsClinician(deps: Deps, id: string) {
  const conv = await anyConversation(deps, id);
  const rows = await deps.db.tx(async (q) => {
    await repo.markRead(q, conv.id, 'USER');
    return repo.listMessages(q, conv.id);
  });
  return rows.map((m) => messageOut(deps, m, false));
}

export async function replyAsClinician(deps: Deps, doctorId: string, id: string, content: string | undefined) {
  const conv = await anyConversation(deps, id);
  const text = checkContent(content);
  if (!text) throw errorCode(400, 'content_required', 'A reply needs content.');
  await deps.db.tx(async (q) => {
    await repo.insertMessage(q, { conversationId: conv.id, senderId: doctorId, senderType: 'DOCTOR', content: text, fileId: null, flagged: false, at: deps.clock.now() });
    await q.query(`insert into audit_log (actor_id, action, subject_type, subject_id) values ($1, 'conversation.reply', 'conversation', $2)`, [doctorId, conv.id]);
    await enqueueMail(q, conv.email, doctorReplyMail, conv.locale, { link: appLinks.messages(deps.config) });
  });
  return conversationOut(deps, deps.db, await repo.conversationById(deps.db, conv.id), false);
}

export async function clinicianFile(deps: Deps, id: string, messageId: string) {
  const f = await repo.fileForConversation(deps.db, id, messageId);
  if (!f) throw notFound();
  return { data: await fileStore(deps).get(f.storage_key), contentType: f.content_type as string, name: `attachment-${messageId.slice(0, 8)}.${f.extension}` };
}
