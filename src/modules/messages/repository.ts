// SQL of the messages module. Patient-side functions take the account id and put it in the SQL.
import type { Queryable } from '../../db/index.ts';

const CONVERSATION = `
  select c.*, u.email, u.first_name, u.last_name, u.locale, u.country_of_residence,
         (select count(*) from messages m where m.conversation_id = c.id and m.sender_type = 'DOCTOR' and not m.is_read)::int as unread_count,
         coalesce((select s.status from subscriptions s where s.user_id = c.user_id order by s.created_at desc limit 1), 'none') as subscription_status
    from conversations c join users u on u.id = c.user_id`;

/** The patient's single conversation, created on first need. */
export async function ensureConversation(q: Queryable, userId: string): Promise<void> {
  await q.query('insert into conversations (user_id) values ($1) on conflict (user_id) do nothing', [userId]);
}

export async function conversationForUser(q: Queryable, userId: string, id?: string) {
  const [row] = await q.query(`${CONVERSATION} where c.user_id = $1${id ? ' and c.id = $2' : ''}`, id ? [userId, id] : [userId]);
  return row;
}

export async function conversationById(q: Queryable, id: string) {
  const [row] = await q.query(`${CONVERSATION} where c.id = $1`, [id]);
  return row;
}

export async function lastMessage(q: Queryable, conversationId: string) {
  const [row] = await q.query('select * from messages where conversation_id = $1 order by created_at desc, id desc limit 1', [conversationId]);
  return row;
}

export async function listMessages(q: Queryable, conversationId: string) {
  return q.query('select * from messages where conversation_id = $1 order by created_at asc, id asc', [conversationId]);
}

export async function markRead(q: Queryable, conversationId: string, senderType: 'USER' | 'DOCTOR') {
  await q.query('update messages set is_read = true, read_at = now() where conversation_id = $1 and sender_type = $2 and not is_read', [conversationId, senderType]);
}

export async function insertMessage(
  q: Queryable,
  m: { conversationId: string; senderId: string; senderType: 'USER' | 'DOCTOR'; content: string; fileId: string | null; flagged: boolean; at: Date },
) {
  const [row] = await q.query(
    `insert into messages (conversation_id, sender_id, sender_type, content, file_id, flagged_emergency, created_at)
     values ($1, $2, $3, $4, $5, $6, $7) returning *`,
    [m.conversationId, m.senderId, m.senderType, m.content, m.fileId, m.flagged, m.at],
  );
  await q.query(`update conversations set updated_at = $2${m.flagged ? ', flagged_at = coalesce(flagged_at, $2)' : ''} where id = $1`, [m.conversationId, m.at]);
  return row;
}

export async function insertFile(q: Queryable, f: { userId: string; key: string; contentType: string; extension: string; size: number }): Promise<string> {
  const [row] = await q.query<{ id: string }>(
    'insert into message_files (user_id, storage_key, content_type, extension, size_bytes) values ($1, $2, $3, $4, $5) returning id',
    [f.userId, f.key, f.contentType, f.extension, f.size],
  );
  return row.id;
}

/** A message's file, only through the owner's conversation. */
export async function fileForUser(q: Queryable, userId: string, conversationId: string, messageId: string) {
  const [row] = await q.query(
    `select f.* from messages m join conversations c on c.id = m.conversation_id join message_files f on f.id = m.file_id
      where c.user_id = $1 and c.id = $2 and m.id = $3`,
    [userId, conversationId, messageId],
  );
  return row;
}

export async function fileForConversation(q: Queryable, conversationId: string, messageId: string) {
  const [row] = await q.query(
    'select f.* from messages m join message_files f on f.id = m.file_id where m.conversation_id = $1 and m.id = $2',
    [conversationId, messageId],
  );
  return row;
}

export async function countConversations(q: Queryable) {
  const [row] = await q.query<{ n: number }>('select count(*)::int as n from conversations');
  return row.n;
}

export async function clinicianConversationIds(q: Queryable, limit: number, offset: number) {
  return q.query<{ id: string }>(
    `select c.id from conversations c
      order by c.flagged_at desc nulls last, c.updated_at desc, c.id limit $1 offset $2`,
    [limit, offset],
  );
}
