// SQL of the messages module (owner of conversations, messages and message_files).
// Patient-side functions take the account id and put it in the SQL, so another account's
// conversation, message or file is simply not found. The medical team's functions are named
// `...ForClinician`: the team reads every conversation (access control is the route's doctor rule).
import { listOrdering, type Order } from '../../http/pagination.ts';
import type { Queryable } from '../../db/index.ts';
import { sql, sqlOf, type Sql } from '../../db/kysely.ts';
import type { RawBuilder } from 'kysely';
import { forAccount } from '../../db/scope.ts';
import type { ConversationsRow, MessageFilesRow, MessagesRow, UsersRow } from '../../db/schema.ts';
import { openText, readText, sealText } from '../../lib/sealed.ts';

export type SenderType = 'USER' | 'DOCTOR';

export type MessageView = Pick<MessagesRow, 'id' | 'conversation_id' | 'sender_id' | 'file_id' | 'is_read' | 'created_at'> & { sender_type: SenderType; content: string };

/** The patient fields a conversation shows, and their newest subscription's status ('none' without one). */
export type PatientSummary = Pick<UsersRow, 'email' | 'first_name' | 'last_name' | 'locale' | 'country_of_residence' | 'created_at'> & { subscription_status: string };

export type ConversationView = Pick<ConversationsRow, 'id' | 'user_id' | 'is_active' | 'pinned_at' | 'flagged_at' | 'created_at' | 'updated_at'> &
  Omit<PatientSummary, 'created_at'> & {
    /** Unread messages from the other side: the team's for the patient, the patient's for the team. */
    unread_count: number;
    last_message: MessageView | null;
  };

export type StoredFile = Pick<MessageFilesRow, 'storage_key' | 'content_type' | 'extension'> & {
  /** The name it was uploaded with (opened from name_enc), null for files stored before migration 1060. */
  name: string | null;
};
const fileOf = (q: Queryable, { name_enc, ...f }: Pick<MessageFilesRow, 'storage_key' | 'content_type' | 'extension' | 'name_enc'>): StoredFile => ({
  ...f,
  name: name_enc ? openText(q, name_enc) : null,
});

const asSender = (v: string): SenderType => (v === 'DOCTOR' ? 'DOCTOR' : 'USER');
// Message bodies are sealed at rest (content_enc, src/lib/sealed.ts); `content` is the plaintext of a
// row written before that, until the start-up pass seals it.
const MESSAGE_COLUMNS = ['id', 'conversation_id', 'sender_id', 'sender_type', 'content', 'content_enc', 'file_id', 'is_read', 'created_at'] as const;
const messageOf = (q: Queryable, { content, content_enc, ...m }: Pick<MessagesRow, (typeof MESSAGE_COLUMNS)[number]>): MessageView => ({
  ...m,
  content: readText(q, content, content_enc),
  sender_type: asSender(m.sender_type),
});

/**
 * Conversations with their patient, newest subscription status, unread count and last message, in
 * one statement (the team's list used to run two more statements per row). `unreadFrom` is the side
 * whose unread messages are counted: the other side's, seen from the reader.
 */
function conversations(from: ConversationsFrom, unreadFrom: SenderType, subscriptionStatus: RawBuilder<string>) {
  return from
    .innerJoin('users as u', 'u.id', 'c.user_id')
    .leftJoinLateral(
      (eb) =>
        eb
          .selectFrom('messages as lm')
          .select(['lm.id', 'lm.conversation_id', 'lm.sender_id', 'lm.sender_type', 'lm.content', 'lm.content_enc', 'lm.file_id', 'lm.is_read', 'lm.created_at'])
          .whereRef('lm.conversation_id', '=', 'c.id')
          .orderBy('lm.created_at', 'desc')
          .orderBy('lm.id', 'desc')
          .limit(1)
          .as('last'),
      (join) => join.onTrue(),
    )
    .select([
      'c.id', 'c.user_id', 'c.is_active', 'c.pinned_at', 'c.flagged_at', 'c.created_at', 'c.updated_at',
      'u.email', 'u.first_name', 'u.last_name', 'u.locale', 'u.country_of_residence',
      sql<number>`(select count(*)::int from messages m where m.conversation_id = c.id and m.sender_type = ${unreadFrom} and not m.is_read)`.as('unread_count'),
      subscriptionStatus.as('subscription_status'),
      'last.id as last_id', 'last.sender_id as last_sender_id', 'last.sender_type as last_sender_type', 'last.content as last_content', 'last.content_enc as last_content_enc',
      'last.file_id as last_file_id', 'last.is_read as last_is_read', 'last.created_at as last_created_at',
    ]);
}

type ConversationRow = Awaited<ReturnType<ReturnType<typeof conversations>['executeTakeFirstOrThrow']>>;

function conversationOf(q: Queryable, r: ConversationRow): ConversationView {
  const last =
    r.last_id !== null && r.last_sender_id !== null && r.last_sender_type !== null && r.last_is_read !== null && r.last_created_at !== null
      ? messageOf(q, {
          id: r.last_id, conversation_id: r.id, sender_id: r.last_sender_id, sender_type: r.last_sender_type, content: r.last_content, content_enc: r.last_content_enc,
          file_id: r.last_file_id, is_read: r.last_is_read, created_at: r.last_created_at,
        })
      : null;
  return {
    id: r.id, user_id: r.user_id, is_active: r.is_active, pinned_at: r.pinned_at, flagged_at: r.flagged_at, created_at: r.created_at, updated_at: r.updated_at,
    email: r.email, first_name: r.first_name, last_name: r.last_name, locale: r.locale, country_of_residence: r.country_of_residence,
    unread_count: r.unread_count, subscription_status: r.subscription_status, last_message: last,
  };
}

// ---------------------------------------------------------------- the patient's side

/** The newest subscription status of the account (`none` without one), for a statement over its rows. */
const ownSubscriptionStatus = (q: Queryable, userId: string) =>
  sql<string>`coalesce(${forAccount(q, userId).selectFrom('subscriptions as s').select('s.status').orderBy('s.created_at', 'desc').limit(1)}, 'none')`;

/** The patient's conversation (optionally only if it has this id), or undefined when it has no row yet. */
export async function findConversationForPatient(q: Queryable, userId: string, id?: string): Promise<ConversationView | undefined> {
  let query = conversations(forAccount(q, userId).selectFrom('conversations as c'), 'DOCTOR', ownSubscriptionStatus(q, userId));
  if (id !== undefined) query = query.where('c.id', '=', id);
  const row = await query.executeTakeFirst();
  return row && conversationOf(q, row);
}

/** What a conversation without a row shows of its patient. Undefined when the account does not exist. */
export async function patientSummary(q: Queryable, userId: string): Promise<PatientSummary | undefined> {
  return sqlOf(q)
    .selectFrom('users as u')
    .select([
      'u.email', 'u.first_name', 'u.last_name', 'u.locale', 'u.country_of_residence', 'u.created_at',
      ownSubscriptionStatus(q, userId).as('subscription_status'),
    ])
    .where('u.id', '=', userId)
    .executeTakeFirst();
}

/**
 * Creates the patient's conversation under the id it was shown with (first write); a no-op when it
 * exists. No conflict target: parallel first writes collide on the primary key (the same derived id)
 * as well as on user_id, and either must be a no-op, never 23505.
 */
export async function createConversationForPatient(q: Queryable, userId: string, id: string, createdAt: Date): Promise<void> {
  await sqlOf(q)
    .insertInto('conversations')
    .values({ id, user_id: userId, created_at: createdAt, updated_at: createdAt })
    .onConflict((oc) => oc.doNothing())
    .execute();
}

export async function listMessagesForPatient(q: Queryable, userId: string, conversationId: string): Promise<MessageView[]> {
  const rows = await sqlOf(q)
    .selectFrom('messages as m')
    .innerJoin('conversations as c', 'c.id', 'm.conversation_id')
    .select(['m.id', 'm.conversation_id', 'm.sender_id', 'm.sender_type', 'm.content', 'm.content_enc', 'm.file_id', 'm.is_read', 'm.created_at'])
    .where('c.user_id', '=', userId)
    .where('c.id', '=', conversationId)
    .orderBy('m.created_at', 'asc')
    .orderBy('m.id', 'asc')
    .execute();
  return rows.map((m) => messageOf(q, m));
}

/** The patient has read the team's messages. */
export async function markTeamMessagesReadForPatient(q: Queryable, userId: string, conversationId: string, at: Date): Promise<void> {
  await sqlOf(q)
    .updateTable('messages')
    .set({ is_read: true, read_at: at })
    .where('conversation_id', '=', conversationId)
    .where('conversation_id', 'in', forAccount(q, userId).selectFrom('conversations').select('id'))
    .where('sender_type', '=', 'DOCTOR')
    .where('is_read', '=', false)
    .execute();
}

/** A patient's message, only into their own conversation; false when the conversation is not theirs. */
export async function insertPatientMessage(
  q: Queryable,
  userId: string,
  m: { conversationId: string; content: string; fileId: string | null; flagged: boolean; at: Date },
): Promise<boolean> {
  const inserted = await sqlOf(q)
    .insertInto('messages')
    .columns(['conversation_id', 'sender_id', 'sender_type', 'content', 'content_enc', 'file_id', 'flagged_emergency', 'created_at'])
    .expression(
      forAccount(q, userId)
        .selectFrom('conversations')
        .select([
          'id',
          'user_id',
          sql<string>`'USER'`.as('sender_type'),
          sql<null>`null::text`.as('content'),
          sql<string>`${sealText(q, m.content)}::text`.as('content_enc'),
          sql<string | null>`${m.fileId}::uuid`.as('file_id'),
          sql<boolean>`${m.flagged}::boolean`.as('flagged_emergency'),
          sql<Date>`${m.at}::timestamptz`.as('created_at'),
        ])
        .where('id', '=', m.conversationId),
    )
    .returning('id')
    .executeTakeFirst();
  if (!inserted) return false;
  // Emergency wording flags the thread for the team (first flag kept); every message moves it up.
  await forAccount(q, userId)
    .updateTable('conversations')
    .set((eb) => ({ updated_at: m.at, ...(m.flagged ? { flagged_at: eb.fn.coalesce('flagged_at', sql<Date>`${m.at}::timestamptz`) } : {}) }))
    .where('id', '=', m.conversationId)
    .execute();
  return true;
}

export async function insertFile(q: Queryable, userId: string, f: { key: string; contentType: string; extension: string; size: number; name: string | null }): Promise<string> {
  const row = await sqlOf(q)
    .insertInto('message_files')
    .values({ user_id: userId, storage_key: f.key, content_type: f.contentType, extension: f.extension, size_bytes: f.size, name_enc: f.name === null ? null : sealText(q, f.name) })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** A message's file, only through the owner's conversation. */
export async function fileForPatient(q: Queryable, userId: string, conversationId: string, messageId: string): Promise<StoredFile | undefined> {
  const row = await sqlOf(q)
    .selectFrom('messages as m')
    .innerJoin('conversations as c', 'c.id', 'm.conversation_id')
    .innerJoin('message_files as f', 'f.id', 'm.file_id')
    .select(['f.storage_key', 'f.content_type', 'f.extension', 'f.name_enc'])
    .where('c.user_id', '=', userId)
    .where('c.id', '=', conversationId)
    .where('m.id', '=', messageId)
    .executeTakeFirst();
  return row && fileOf(q, row);
}

// ---------------------------------------------------------------- the medical team's side

/** The statement's start: one account's conversations, or the desk's (every patient's). */
declare const _typed: Sql;
type ConversationsFrom = ReturnType<typeof _typed.selectFrom<'conversations as c'>>;

/** The desk's conversations: every patient's, each with its own patient's newest subscription status. */
function conversationsForClinician(q: Queryable) {
  const status = sql<string>`coalesce((select s.status from subscriptions s where s.user_id = c.user_id order by s.created_at desc limit 1), 'none')`;
  return conversations(sqlOf(q).selectFrom('conversations as c'), 'USER', status);
}

export async function findConversationForClinician(q: Queryable, id: string): Promise<ConversationView | undefined> {
  const row = await conversationsForClinician(q).where('c.id', '=', id).executeTakeFirst();
  return row && conversationOf(q, row);
}

export async function countConversationsForClinician(q: Queryable): Promise<number> {
  const row = await sqlOf(q).selectFrom('conversations').select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow();
  return row.n;
}

/** The desk's `ordering` whitelist; without one: flagged (emergency wording) first, then the most recently active. */
export const DESK_CONVERSATION_ORDERING = listOrdering(['updated_at'], '-updated_at', 'flagged (emergency wording) first, then `-updated_at`');
/** The patient's conversation list (always one conversation): `ordering` whitelist. */
export const PATIENT_CONVERSATION_ORDERING = listOrdering([], '-created_at');

/** A page of conversations in the asked order, else flagged (emergency wording) first, then the most recently active. */
export async function pageConversationsForClinician(
  q: Queryable,
  limit: number,
  offset: number,
  order?: Order<(typeof DESK_CONVERSATION_ORDERING.fields)[number]>,
): Promise<ConversationView[]> {
  const base = conversationsForClinician(q);
  const ordered = order
    ? base.orderBy(`c.${order.field}`, order.direction).orderBy('c.id', order.direction)
    : base.orderBy(sql`c.flagged_at desc nulls last`).orderBy('c.updated_at', 'desc').orderBy('c.id');
  const rows = await ordered
    .limit(limit)
    .offset(offset)
    .execute();
  return rows.map((r) => conversationOf(q, r));
}

export async function listMessagesForClinician(q: Queryable, conversationId: string): Promise<MessageView[]> {
  const rows = await sqlOf(q).selectFrom('messages').select(MESSAGE_COLUMNS).where('conversation_id', '=', conversationId).orderBy('created_at', 'asc').orderBy('id', 'asc').execute();
  return rows.map((m) => messageOf(q, m));
}

/** The team has read the patient's messages. */
export async function markPatientMessagesReadForClinician(q: Queryable, conversationId: string, at: Date): Promise<void> {
  await sqlOf(q).updateTable('messages').set({ is_read: true, read_at: at }).where('conversation_id', '=', conversationId).where('sender_type', '=', 'USER').where('is_read', '=', false).execute();
}

export async function insertMessageForClinician(q: Queryable, doctorId: string, m: { conversationId: string; content: string; fileId?: string | null; at: Date }): Promise<void> {
  await sqlOf(q)
    .insertInto('messages')
    .values({ conversation_id: m.conversationId, sender_id: doctorId, sender_type: 'DOCTOR', content: null, content_enc: sealText(q, m.content), file_id: m.fileId ?? null, flagged_emergency: false, created_at: m.at })
    .execute();
  await sqlOf(q).updateTable('conversations').set({ updated_at: m.at }).where('id', '=', m.conversationId).execute();
}

export async function fileForClinician(q: Queryable, conversationId: string, messageId: string): Promise<StoredFile | undefined> {
  const row = await sqlOf(q)
    .selectFrom('messages as m')
    .innerJoin('message_files as f', 'f.id', 'm.file_id')
    .select(['f.storage_key', 'f.content_type', 'f.extension', 'f.name_enc'])
    .where('m.conversation_id', '=', conversationId)
    .where('m.id', '=', messageId)
    .executeTakeFirst();
  return row && fileOf(q, row);
}

// ---------------------------------------------------------------- the account's privacy

/** The account's conversation (at most one) with every message, oldest first (the data export). */
export async function conversationsOfAccount(q: Queryable, userId: string) {
  const db = sqlOf(q);
  const conversations = await forAccount(q, userId).selectFrom('conversations').selectAll().execute();
  const messages = conversations.length
    ? await db
        .selectFrom('messages')
        .select(['id', 'conversation_id', 'sender_type', 'content', 'content_enc', 'file_id', 'is_read', 'read_at', 'flagged_emergency', 'created_at'])
        .where('conversation_id', 'in', conversations.map((c) => c.id))
        .orderBy('created_at', 'asc')
        .orderBy('id', 'asc')
        .execute()
    : [];
  const opened = messages.map(({ content, content_enc, ...m }) => ({ ...m, content: readText(q, content, content_enc) }));
  return conversations.map((c) => ({ ...c, messages: opened.filter((m) => m.conversation_id === c.id) }));
}

/**
 * Erasure: the account's conversation, its messages (the team's replies too) and its uploaded files'
 * rows, deleted. Answers the storage keys, whose files the caller removes once this commits.
 */
export async function deleteAccountMessages(q: Queryable, userId: string): Promise<string[]> {
  const files = await forAccount(q, userId).selectFrom('message_files').select('storage_key').execute();
  await forAccount(q, userId).deleteFrom('conversations').execute();
  await forAccount(q, userId).deleteFrom('message_files').execute();
  return files.map((f) => f.storage_key);
}
