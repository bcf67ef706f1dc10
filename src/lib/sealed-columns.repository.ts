// Every column sealed with the data-encryption key ring, and the two passes over them:
//
// - sealPlaintextRows: rows written before encryption at rest (migration 1010) still hold their
//   plaintext column; each is sealed into its `*_enc` column and the plaintext set to null. Runs at
//   every start (src/runtime.ts; a partial index makes "nothing left" one index probe per table) and
//   in `npm run cli -- reencrypt`. Idempotent, in batches of its own transactions, FOR UPDATE SKIP
//   LOCKED so that several processes starting together share the work.
// - resealRows: every sealed value whose key is not the active one (the first DATA_ENCRYPTION_KEYS
//   entry) is decrypted and sealed again with it, so that an old key can then be dropped
//   (docs/operations.md, "Key rotation"). `npm run cli -- reencrypt`. Attachments (file_blobs) are
//   re-sealed by the messages module's resealStoredFiles, clinical photos (clinical_photo_blobs) by the
//   photos module's resealPhotos, identity and scale images (verification_blobs) by the verification
//   module's resealVerificationImages: one loop over each table (resealBlobTable), the same command.
//
// This is the one place that knows the sealed columns of every module (as src/db/ holds the schema).
import type { Db, Queryable } from '../db/index.ts';
import { dataKeysOf, keyedTextHash, sealedKeyIdOf, sealJson, sealText } from './sealed.ts';

/** The purpose of the keyed hash of a red-flag excerpt (the desk's duplicate check). */
export const RED_FLAG_EXCERPT_HASH = 'red_flag_excerpt';
import { decrypt, encrypt } from './crypto.ts';

interface SealedColumn {
  /** The plaintext column a row may still hold (none for columns sealed from the start). */
  plain?: string;
  sealed: string;
  kind: 'text' | 'json';
  /** A column holding the keyed hash of the text (src/lib/sealed.ts, keyedTextHash), and its purpose. */
  hash?: { column: string; purpose: string };
}

interface SealedTable {
  table: string;
  /** The primary key (keyset pages) and its SQL type. */
  key: string;
  keyType: 'uuid' | 'text';
  columns: SealedColumn[];
}

export const SEALED_TABLES: readonly SealedTable[] = [
  { table: 'users', key: 'id', keyType: 'uuid', columns: [{ sealed: 'document_number_enc', kind: 'text' }] },
  { table: 'mfa_totp', key: 'user_id', keyType: 'uuid', columns: [{ sealed: 'secret_enc', kind: 'text' }] },
  { table: 'questionnaire_drafts', key: 'id', keyType: 'uuid', columns: [{ plain: 'data', sealed: 'data_enc', kind: 'json' }] },
  { table: 'questionnaire_submissions', key: 'id', keyType: 'uuid', columns: [{ plain: 'answers', sealed: 'answers_enc', kind: 'json' }] },
  {
    table: 'consultations',
    key: 'id',
    keyType: 'uuid',
    columns: [
      { plain: 'form_snapshot', sealed: 'form_snapshot_enc', kind: 'json' },
      { plain: 'renewal_details', sealed: 'renewal_details_enc', kind: 'json' },
    ],
  },
  { table: 'messages', key: 'id', keyType: 'uuid', columns: [{ plain: 'content', sealed: 'content_enc', kind: 'text' }] },
  { table: 'message_files', key: 'id', keyType: 'uuid', columns: [{ sealed: 'name_enc', kind: 'text' }] },
  { table: 'journal_notes', key: 'id', keyType: 'uuid', columns: [{ plain: 'content', sealed: 'content_enc', kind: 'text' }] },
  { table: 'side_effect_reports', key: 'id', keyType: 'uuid', columns: [{ plain: 'note', sealed: 'note_enc', kind: 'text' }] },
  { table: 'prescription_signed_documents', key: 'prescription_id', keyType: 'uuid', columns: [{ sealed: 'pdf_sealed', kind: 'text' }] },
  { table: 'prescriber_signing_identities', key: 'id', keyType: 'uuid', columns: [{ sealed: 'private_key_sealed', kind: 'text' }] },
  {
    table: 'plan_cancel_requests',
    key: 'id',
    keyType: 'uuid',
    columns: [
      { sealed: 'reason_enc', kind: 'text' },
      { sealed: 'review_note_enc', kind: 'text' },
    ],
  },
  // Issue 43 (migrations 1230, 1231): the patient's words that raised a red flag, the reasons of
  // prescription reissues, the doctors' decision notes, and the dose-change notes (sealed from the start).
  {
    table: 'red_flags',
    key: 'id',
    keyType: 'uuid',
    columns: [
      { plain: 'excerpt', sealed: 'excerpt_enc', kind: 'text', hash: { column: 'excerpt_hash', purpose: RED_FLAG_EXCERPT_HASH } },
      { plain: 'evidence', sealed: 'evidence_enc', kind: 'json' },
    ],
  },
  {
    table: 'prescription_reissue_requests',
    key: 'id',
    keyType: 'uuid',
    columns: [
      { plain: 'reason', sealed: 'reason_enc', kind: 'text' },
      { plain: 'decision_reason', sealed: 'decision_reason_enc', kind: 'text' },
    ],
  },
  { table: 'consultations', key: 'id', keyType: 'uuid', columns: [{ plain: 'decision_reason', sealed: 'decision_reason_enc', kind: 'text' }] },
  // Migration 1261: the doctor's note on a call, and the doctor's reason for cancelling or moving it.
  {
    table: 'appointments',
    key: 'id',
    keyType: 'uuid',
    columns: [
      { plain: 'outcome_note', sealed: 'outcome_note_enc', kind: 'text' },
      { sealed: 'doctor_reason_enc', kind: 'text' },
    ],
  },
  {
    table: 'plan_dose_change_requests',
    key: 'id',
    keyType: 'uuid',
    columns: [
      { sealed: 'note_enc', kind: 'text' },
      { sealed: 'decision_note_enc', kind: 'text' },
    ],
  },
  // Migration 1240: the letters to the patient's own doctor and the doctors' reasons for approving without one (sealed from the start).
  { table: 'gp_letters', key: 'id', keyType: 'uuid', columns: [{ sealed: 'content_enc', kind: 'json' }] },
  { table: 'gp_sharing_overrides', key: 'id', keyType: 'uuid', columns: [{ sealed: 'reason_enc', kind: 'text' }] },
];

const BATCH = 200;

export interface SealReport {
  /** Per table: values sealed (plaintext moved) or re-sealed (another key). */
  [table: string]: number;
}

/** Seals the plaintext columns left from before migration 1010; answers how many rows per table. */
export async function sealPlaintextRows(db: Db): Promise<SealReport> {
  const report: SealReport = {};
  for (const t of SEALED_TABLES) {
    const cols = t.columns.filter((c): c is SealedColumn & { plain: string } => c.plain !== undefined);
    if (cols.length === 0) continue;
    const pending = cols.map((c) => `${c.plain} is not null`).join(' or ');
    for (;;) {
      const n = await db.tx(async (q) => {
        const rows = await q.query<Record<string, unknown>>(
          `select ${t.key} as k, ${cols.map((c) => `${c.plain}, ${c.sealed}`).join(', ')} from ${t.table} where ${pending} limit ${BATCH} for update skip locked`,
        );
        for (const row of rows) {
          const sets: string[] = [];
          const params: unknown[] = [row.k];
          for (const c of cols) {
            const value = row[c.plain];
            if (value === null || value === undefined) continue;
            const text = typeof value === 'string' ? value : JSON.stringify(value);
            params.push(c.kind === 'json' ? sealJson(q, value) : sealText(q, text));
            sets.push(`${c.sealed} = $${params.length}, ${c.plain} = null`);
            if (c.hash) {
              params.push(keyedTextHash(q, c.hash.purpose, text));
              sets.push(`${c.hash.column} = $${params.length}`);
            }
          }
          if (sets.length) await q.query(`update ${t.table} set ${sets.join(', ')} where ${t.key} = $1::${t.keyType}`, params);
        }
        return rows.length;
      });
      if (n > 0) report[t.table] = (report[t.table] ?? 0) + n;
      if (n < BATCH) break;
    }
  }
  return report;
}

/** Re-seals every sealed value whose key is not the active one; answers how many values per table. */
export async function resealRows(db: Db): Promise<SealReport> {
  const report: SealReport = {};
  const keys = dataKeysOf(db);
  const active = keys.active.id;
  for (const t of SEALED_TABLES) {
    // Keyset pages over the whole table: the key id sits inside each value (`v2.<key id>.…`).
    const stale = t.columns.map((c) => `(${c.sealed} is not null and not (split_part(${c.sealed}, '.', 1) = 'v2' and split_part(${c.sealed}, '.', 2) = $2))`).join(' or ');
    let after: string | null = null;
    for (;;) {
      const last: string | null = after;
      const rows: Record<string, unknown>[] = await db.tx(async (q) => {
        const page: Record<string, unknown>[] = await q.query<Record<string, unknown>>(
          `select ${t.key}::text as k, ${t.columns.map((c) => c.sealed).join(', ')} from ${t.table}
            where ($1::${t.keyType} is null or ${t.key} > $1::${t.keyType}) and (${stale})
            order by ${t.key} limit ${BATCH} for update skip locked`,
          [last, active],
        );
        for (const row of page) {
          const sets: string[] = [];
          const params: unknown[] = [row.k];
          for (const c of t.columns) {
            const value = row[c.sealed];
            if (typeof value !== 'string' || sealedKeyIdOf(value) === active) continue;
            const plain = decrypt(keys, value);
            params.push(encrypt(keys, plain));
            // Only when the value is still the one read (a writer in between sealed it with the active key).
            params.push(value);
            sets.push(`${c.sealed} = case when ${c.sealed} = $${params.length} then $${params.length - 1} else ${c.sealed} end`);
            if (c.hash) {
              // The keyed hash follows the key: rewritten under the active one with the value.
              params.push(keyedTextHash(q, c.hash.purpose, plain));
              sets.push(`${c.hash.column} = case when ${c.sealed} = $${params.length - 1} then $${params.length} else ${c.hash.column} end`);
            }
          }
          if (sets.length) {
            await q.query(`update ${t.table} set ${sets.join(', ')} where ${t.key} = $1::${t.keyType}`, params);
            report[t.table] = (report[t.table] ?? 0) + sets.length;
          }
        }
        return page;
      });
      if (rows.length < BATCH) break;
      after = String(rows[rows.length - 1]!.k);
    }
  }
  return report;
}

/** How many sealed values each key holds, per table (the rotation's progress; docs/operations.md). */
export async function sealedKeyCounts(q: Queryable): Promise<Record<string, Record<string, number>>> {
  const out: Record<string, Record<string, number>> = {};
  for (const t of SEALED_TABLES) {
    for (const c of t.columns) {
      const rows = await q.query<{ key_id: string; n: number }>(
        `select case when ${c.sealed} like 'v2.%' then split_part(${c.sealed}, '.', 2) else 'db' end as key_id, count(*)::int as n
           from ${t.table} where ${c.sealed} is not null group by 1 order by 1`,
      );
      for (const r of rows) {
        const bucket = (out[`${t.table}.${c.sealed}`] ??= {});
        bucket[r.key_id] = r.n;
      }
    }
  }
  return out;
}
