// The stored answers of Idempotency-Key requests (src/http/idempotency.ts), per account.
import type { Queryable } from '../db/index.ts';
import { accountSql } from '../db/scope.ts';
import { readText, sealText } from '../lib/sealed.ts';

export interface StoredAnswer {
  fingerprint: string;
  status_code: number | null;
  response_type: string | null;
  response_body: string | null;
}

/**
 * Claims (account, key) for a request: a new key; a key whose answer is older than `expiresBefore`;
 * or the same request's claim left unanswered since before `abandonedBefore` (its process died).
 * True when this request now holds the key.
 */
export async function claimKey(
  q: Queryable,
  userId: string,
  key: string,
  fingerprint: string,
  at: Date,
  expiresBefore: Date,
  abandonedBefore: Date,
): Promise<boolean> {
  const rows = await CLAIM.query(q, userId, [key, fingerprint, at, expiresBefore, abandonedBefore]);
  return rows.length > 0;
}

// The conflict target (user_id, key) is the owner's row: another account's key is never taken over.
const CLAIM = accountSql(
  (owner) => `insert into idempotency_keys (user_id, key, fingerprint, created_at) values (${owner}, $2, $3, $4)
     on conflict (user_id, key) do update
        set fingerprint = excluded.fingerprint, status_code = null, response_type = null, response_body = null, response_body_enc = null, created_at = excluded.created_at
      where idempotency_keys.created_at < $5
         or (idempotency_keys.status_code is null and idempotency_keys.fingerprint = excluded.fingerprint and idempotency_keys.created_at < $6)
     returning 1 as claimed`,
);

// The answer replayed carries what the request created (a message, answers): sealed at rest
// (response_body_enc, src/lib/sealed.ts); response_body only holds answers stored before that.
export async function findAnswer(q: Queryable, userId: string, key: string): Promise<StoredAnswer | undefined> {
  const [row] = await FIND.query<StoredAnswer & { response_body_enc: string | null }>(q, userId, [key]);
  if (!row) return undefined;
  const { response_body_enc, ...answer } = row;
  return { ...answer, response_body: answer.response_body === null && response_body_enc === null ? null : readText(q, answer.response_body, response_body_enc) };
}

const FIND = accountSql(
  (owner) => `select fingerprint, status_code, response_type, response_body, response_body_enc from idempotency_keys where user_id = ${owner} and key = $2`,
);

export async function storeAnswer(q: Queryable, userId: string, key: string, fingerprint: string, status: number, type: string | null, body: string): Promise<void> {
  await STORE.query(q, userId, [key, fingerprint, status, type, sealText(q, body)]);
}

const STORE = accountSql(
  (owner) =>
    `update idempotency_keys set status_code = $4, response_type = $5, response_body = null, response_body_enc = $6 where user_id = ${owner} and key = $2 and fingerprint = $3 and status_code is null`,
);

/** Gives the key back (the request failed on the server's side: a retry must run it again). */
export async function releaseKey(q: Queryable, userId: string, key: string, fingerprint: string): Promise<void> {
  await RELEASE.query(q, userId, [key, fingerprint]);
}

const RELEASE = accountSql((owner) => `delete from idempotency_keys where user_id = ${owner} and key = $2 and fingerprint = $3 and status_code is null`);

/** Erasure: the account's stored answers (sealed copies of what it was answered) go at once, not a day later. */
export async function deleteAnswersOfAccount(q: Queryable, userId: string): Promise<void> {
  await ERASE.query(q, userId, []);
}

const ERASE = accountSql((owner) => `delete from idempotency_keys where user_id = ${owner}`);

/** Scheduler: deletes answers older than `before`, of every account; the number deleted. */
export async function expireAnswersForScheduler(q: Queryable, before: Date): Promise<number> {
  const { rowCount } = await q.execute('delete from idempotency_keys where created_at < $1', [before]);
  return rowCount;
}
