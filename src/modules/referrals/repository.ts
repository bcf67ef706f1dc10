// SQL of referrals. A referrer sees only people whose referred_by is the referrer's id, and of them
// only initials and money figures.
import { listOrdering, orderBy, type Order } from '../../http/pagination.ts';
import type { Queryable } from '../../db/index.ts';
import { sqlOf } from '../../db/kysely.ts';
import { accountSql } from '../../db/scope.ts';
import type { PaymentsRow, UsersRow } from '../../db/schema.ts';

/** A referred person: initials and money figures only (bigint sums arrive as numbers). */
export type ReferredRow = Pick<UsersRow, 'id' | 'first_name' | 'last_name' | 'created_at' | 'email_verified_at'> & {
  withheld: 'self_referral' | 'same_payment_card' | null;
  gross_cents: number;
  net_cents: number;
  tx_count: number;
};
export type ReferralTransactionRow = Pick<PaymentsRow, 'id' | 'user_id' | 'amount_cents' | 'refunded_amount_cents' | 'currency' | 'status' | 'created_at'> &
  Pick<UsersRow, 'first_name' | 'last_name'> & { withheld: 'self_referral' | 'same_payment_card' | null };
export interface ReferralTotals {
  gross_cents: number;
  net_cents: number;
  tx_count: number;
}

/** Payments that count: captured ones (failed attempts earn nothing); refunds are subtracted. */
const COUNTED = "p.status in ('succeeded', 'partially_refunded', 'refunded')";
/**
 * The referred account is the referrer's own: it is listed, marked, and earns nothing.
 * `u` is the referred account, `r` the referrer. Same mailbox: migration 0901's referral_mailbox
 * (+tags, and dots at Google's domains). Same card: a payment of each with one card fingerprint
 * (migration 0903), where the provider gives one.
 */
const SAME_MAILBOX = 'referral_mailbox(u.email) = referral_mailbox(r.email)';
const SAME_CARD = `exists (select 1 from payments pu join payments pr on pr.payment_method_fingerprint = pu.payment_method_fingerprint
                    where pu.user_id = u.id and pr.user_id = r.id and pu.payment_method_fingerprint is not null)`;
const SELF = `(${SAME_MAILBOX} or ${SAME_CARD})`;
/** Why the referred account earns nothing, or null (its SQL). */
const WITHHELD = `case when ${SAME_MAILBOX} then 'self_referral' when ${SAME_CARD} then 'same_payment_card' end`;

export async function countReferred(q: Queryable, referrerId: string): Promise<number> {
  const [row] = await q.query<{ n: number }>('select count(*)::int as n from users where referred_by = $1 and email_verified_at is not null', [referrerId]);
  return row?.n ?? 0;
}

/** The referred people list's `ordering` whitelist (default: newest first; `created_at` is the sign-up). */
export const REFERRED_ORDERING = listOrdering(['joined_at'], '-created_at');
/** The commission payments list's `ordering` whitelist (default: newest first). */
export const REFERRAL_TX_ORDERING = listOrdering(['amount_cents'], '-created_at');
const REFERRED_COLUMNS = { created_at: 'u.created_at', joined_at: 'u.email_verified_at' } as const;

export async function referredPage(
  q: Queryable,
  referrerId: string,
  limit: number,
  offset: number,
  order: Order<(typeof REFERRED_ORDERING.fields)[number]> = orderBy({}, REFERRED_ORDERING),
): Promise<ReferredRow[]> {
  return REFERRED_PAGE.get(`${order.field} ${order.direction}`)!.query<ReferredRow>(q, referrerId, [limit, offset]);
}

// The referrer is the statements' owner: only accounts whose referred_by is the referrer are read.
// One statement per whitelisted order (field and direction only).
const REFERRED_PAGE = new Map(
  REFERRED_ORDERING.fields.flatMap((field) =>
    (['asc', 'desc'] as const).map((direction) => {
      const by = `${REFERRED_COLUMNS[field]} ${direction}, u.id ${direction}`;
      const statement = accountSql(
        (owner) => `select u.id, u.first_name, u.last_name, u.created_at, u.email_verified_at, ${WITHHELD} as withheld,
            coalesce(sum(p.amount_cents) filter (where ${COUNTED}), 0)::bigint as gross_cents,
            coalesce(sum(p.amount_cents - p.refunded_amount_cents) filter (where ${COUNTED}), 0)::bigint as net_cents,
            (count(p.id) filter (where ${COUNTED}))::int as tx_count
       from users u join users r on r.id = u.referred_by left join payments p on p.user_id = u.id
      where u.referred_by = ${owner} and u.email_verified_at is not null
      group by u.id, r.id, r.email order by ${by} limit $2 offset $3`,
      );
      return [`${field} ${direction}`, statement] as const;
    }),
  ),
);

/** The referrer's commission-earning totals: a self-referral's payments are left out. */
export async function totals(q: Queryable, referrerId: string): Promise<ReferralTotals> {
  const [row] = await TOTALS.query<ReferralTotals>(q, referrerId);
  return row ?? { gross_cents: 0, net_cents: 0, tx_count: 0 };
}

const TOTALS = accountSql(
  (owner) => `select coalesce(sum(p.amount_cents), 0)::bigint as gross_cents,
            coalesce(sum(p.amount_cents - p.refunded_amount_cents), 0)::bigint as net_cents,
            count(p.id)::int as tx_count
       from payments p join users u on u.id = p.user_id join users r on r.id = u.referred_by
      where u.referred_by = ${owner} and u.email_verified_at is not null and ${COUNTED} and not ${SELF}`,
);

/** Every captured payment of the referrer's referred accounts, self-referrals included (they are listed, marked). */
export async function countTransactions(q: Queryable, referrerId: string): Promise<number> {
  const [row] = await COUNT_TRANSACTIONS.query<{ n: number }>(q, referrerId);
  return row?.n ?? 0;
}

const COUNT_TRANSACTIONS = accountSql(
  (owner) => `select count(p.id)::int as n from payments p join users u on u.id = p.user_id where u.referred_by = ${owner} and u.email_verified_at is not null and ${COUNTED}`,
);

export async function transactionsPage(
  q: Queryable,
  referrerId: string,
  limit: number,
  offset: number,
  order: Order<(typeof REFERRAL_TX_ORDERING.fields)[number]> = orderBy({}, REFERRAL_TX_ORDERING),
): Promise<ReferralTransactionRow[]> {
  return TRANSACTIONS_PAGE.get(`${order.field} ${order.direction}`)!.query<ReferralTransactionRow>(q, referrerId, [limit, offset]);
}

const TRANSACTIONS_PAGE = new Map(
  REFERRAL_TX_ORDERING.fields.flatMap((field) =>
    (['asc', 'desc'] as const).map((direction) => {
      const by = `p.${field} ${direction}, p.id ${direction}`;
      const statement = accountSql(
        (owner) => `select p.id, p.user_id, u.first_name, u.last_name, p.amount_cents, p.refunded_amount_cents, p.currency, p.status, p.created_at, ${WITHHELD} as withheld
       from payments p join users u on u.id = p.user_id join users r on r.id = u.referred_by
      where u.referred_by = ${owner} and u.email_verified_at is not null and ${COUNTED}
      order by ${by} limit $2 offset $3`,
      );
      return [`${field} ${direction}`, statement] as const;
    }),
  ),
);

export async function referrerByCode(q: Queryable, code: string): Promise<string | null> {
  const [row] = await q.query<{ id: string }>('select id from users where referral_code = upper($1) and disabled_at is null', [code]);
  return row?.id ?? null;
}

export async function insertEvent(q: Queryable, e: Record<string, unknown>): Promise<string> {
  const keys = Object.keys(e);
  const [row] = await q.query<{ id: string }>(
    `insert into attribution_events (${keys.join(', ')}) values (${keys.map((_, i) => `$${i + 1}`).join(', ')}) returning id`,
    keys.map((k) => e[k]),
  );
  if (!row) throw new Error('insert into attribution_events returned no row');
  return row.id;
}

/** The account's own referral code (the share link is built from it). */
export async function ownReferralCode(q: Queryable, userId: string): Promise<string | undefined> {
  const row = await sqlOf(q).selectFrom('users').select('referral_code').where('id', '=', userId).executeTakeFirst();
  return row?.referral_code;
}

/** Who referred the account (its referrer's id only: nothing else of another account). */
export async function referredByOf(q: Queryable, userId: string): Promise<string | null> {
  const row = await sqlOf(q).selectFrom('users').select('referred_by').where('id', '=', userId).executeTakeFirst();
  return row?.referred_by ?? null;
}
