// Referral rules (docs/referrals.md): 10 % commission on the referred person's net captured
// payments (amount minus refunds), earned when a payment succeeds and reduced by refunds.
import type { Deps } from '../../deps.ts';
import { notFound } from '../../http/errors.ts';
import { keyedHash } from '../../lib/crypto.ts';
import * as repo from './repository.ts';
import { appLinks } from '../../mail/links.ts';
import { iso } from '../../lib/iso.ts';

const COMMISSION_RATE_PERCENT = 10;
export const commission = (netCents: number) => Math.floor((Math.max(0, netCents) * COMMISSION_RATE_PERCENT) / 100);

/** Initials only: never the referred person's name or email. */
export function initials(first: string, last: string): string {
  const letter = (s: string) => (s.trim()[0] ?? '').toUpperCase();
  return `${letter(first)}${letter(last)}` || '?';
}

/**
 * Why a referred account earns nothing (null: it earns). `self_referral`: the referred address is
 * the referrer's own mailbox (+tags, and dots at Google's domains, are the same mailbox);
 * `same_payment_card`: it paid with a card the referrer paid with too.
 */
const withheld = (r: { withheld: 'self_referral' | 'same_payment_card' | null }) => r.withheld ?? null;

export async function referred(deps: Deps, userId: string, limit: number, offset: number, order?: Parameters<typeof repo.referredPage>[4]) {
  const [count, rows] = await Promise.all([repo.countReferred(deps.db, userId), repo.referredPage(deps.db, userId, limit, offset, order)]);
  return {
    count,
    results: rows.map((r) => ({
      referred_user_id: r.id,
      initials: initials(r.first_name, r.last_name),
      joined_at: iso(r.email_verified_at)!,
      referred_at: iso(r.created_at)!,
      gross_cents: r.gross_cents,
      commission_cents: r.withheld ? 0 : commission(r.net_cents),
      tx_count: r.tx_count,
      commission_withheld_reason: withheld(r),
    })),
  };
}

export async function summary(deps: Deps, userId: string) {
  const [code, count, t] = await Promise.all([repo.ownReferralCode(deps.db, userId), repo.countReferred(deps.db, userId), repo.totals(deps.db, userId)]);
  // The caller's own account: the access check found it a moment ago.
  if (code === undefined) throw notFound();
  return {
    referral_code: code,
    share_url: appLinks.referral(deps.config, code),
    referred_count: count,
    tx_count: t.tx_count,
    gross_cents: t.gross_cents,
    net_cents: t.net_cents,
    commission_rate_percent: COMMISSION_RATE_PERCENT,
    commission_cents: commission(t.net_cents),
    currency: 'EUR',
  };
}

export async function transactions(deps: Deps, userId: string, limit: number, offset: number, order?: Parameters<typeof repo.transactionsPage>[4]) {
  const [count, rows] = await Promise.all([repo.countTransactions(deps.db, userId), repo.transactionsPage(deps.db, userId, limit, offset, order)]);
  return {
    count,
    results: rows.map((r) => {
      const net = r.amount_cents - r.refunded_amount_cents;
      return {
        payment_id: r.id,
        referred_user_id: r.user_id,
        initials: initials(r.first_name, r.last_name),
        amount_cents: r.amount_cents,
        refunded_amount_cents: r.refunded_amount_cents,
        net_cents: net,
        commission_cents: r.withheld ? 0 : commission(net),
        commission_withheld_reason: withheld(r),
        currency: r.currency,
        status: r.status,
        created_at: iso(r.created_at)!,
      };
    }),
  };
}

export interface AttributionInput {
  event: string;
  referral_code?: string;
  utm_source?: string;
  utm_medium?: string;
  utm_campaign?: string;
  landing_path?: string;
}

export async function recordAttribution(deps: Deps, input: AttributionInput, ip: string): Promise<string> {
  const referrerId = input.referral_code ? await repo.referrerByCode(deps.db, input.referral_code) : null;
  return repo.insertEvent(deps.db, {
    referral_code: input.referral_code?.toUpperCase() ?? null,
    referrer_id: referrerId,
    event: input.event,
    utm_source: input.utm_source ?? null,
    utm_medium: input.utm_medium ?? null,
    utm_campaign: input.utm_campaign ?? null,
    landing_path: input.landing_path ?? null,
    client_hash: keyedHash(deps.secrets.codeKey, `attribution:${ip}`),
    created_at: deps.clock.now(),
  });
}

// The list orderings its routes validate `ordering` against (pagination contracts, not SQL).
export { REFERRAL_TX_ORDERING, REFERRED_ORDERING } from './repository.ts';

/** Who referred the account (null: nobody). */
export function referredByOf(...args: Parameters<typeof repo.referredByOf>): Promise<string | null> {
  return repo.referredByOf(...args);
}
