// What the service publishes and honours to sell at a distance (docs/compliance.md): the public
// list of prescribing doctors, the site's legal settings (EU distance-selling logo, imprint,
// accessibility contact) and the public cancellation of a plan without signing in (§ 312k BGB).
import type { Config } from '../../config.ts';
import type { Queryable } from '../../db/index.ts';
import type { Deps } from '../../deps.ts';
import { fail } from '../../http/error-catalogue.ts';
import { notFound } from '../../http/errors.ts';
import { randomToken, sha256 } from '../../lib/crypto.ts';
import { isLocale, type Locale } from '../../lib/locales.ts';
import { appLinks } from '../../mail/links.ts';
import { enqueueMail } from '../../mail/outbox.ts';
import { publicCategoryText } from '../questionnaires/index.ts';
import { endPlanNow, plansOfAccount, setCancelAtPeriodEnd } from '../subscriptions/index.ts';
import { cancelConfirmedMail, cancelRequestMail, KIND_LABELS } from './mail.ts';
import { REGULATORS } from './regulators.ts';
import * as repo from './repository.ts';

const DAY_MS = 24 * 3600 * 1000;
/** How long the one-click cancellation link works. */
export const CANCEL_LINK_DAYS = 7;
/** Requests per address and hour: enough for a person, not for mail bombing someone's inbox. */
const CANCEL_REQUESTS_PER_EMAIL_PER_HOUR = 5;
const LIVE = new Set(['active', 'past_due', 'paused']);

// ------------------------------------------------------------------ our doctors

function registrationCountry(doctor: { country_of_residence: string | null }, config: Config): string | null {
  return doctor.country_of_residence ?? config.DISTANCE_SELLING_COUNTRY ?? config.SELLER_COUNTRY ?? null;
}

function regulatorOf(country: string | null) {
  const r = country ? REGULATORS[country] : undefined;
  return r ? { name: r.name, register_url: r.register_url } : null;
}

/** The prescribing doctors a visitor can identify and check, unless they opted out. */
export async function publicDoctors(deps: Deps) {
  const rows = await repo.listedDoctors(deps.reader);
  return {
    results: rows.map((d) => {
      const country = registrationCountry(d, deps.config);
      return { name: `${d.first_name} ${d.last_name}`.trim(), registration_number: d.doctor_license_number!, registration_country: country, regulator: regulatorOf(country) };
    }),
  };
}

export async function deskProfile(deps: Deps, staffId: string) {
  const d = await repo.doctorProfile(deps.db, staffId);
  if (!d) throw notFound();
  const country = registrationCountry(d, deps.config);
  return {
    name: `${d.first_name} ${d.last_name}`.trim(),
    registration_number: d.doctor_license_number,
    registration_country: country,
    regulator: regulatorOf(country),
    // No row: listed (the rule requires the prescriber to be identifiable; opting out is the exception).
    public_listing: d.public_listing ?? true,
  };
}

export async function setDeskListing(deps: Deps, staffId: string, listed: boolean) {
  await repo.setPublicListing(deps.db, staffId, listed, deps.clock.now());
  return deskProfile(deps, staffId);
}

// ------------------------------------------------------------------ the site's legal settings

/** The settings the public pages show: the distance-selling logo's target, the imprint, the accessibility contact. */
export function siteInfo(config: Config) {
  const c = config;
  const distance = c.DISTANCE_SELLING_REGISTER_URL && c.DISTANCE_SELLING_PHARMACY_NAME && c.DISTANCE_SELLING_COUNTRY
    ? { register_url: c.DISTANCE_SELLING_REGISTER_URL, pharmacy_name: c.DISTANCE_SELLING_PHARMACY_NAME, country: c.DISTANCE_SELLING_COUNTRY }
    : null;
  return {
    distance_selling: distance,
    imprint: {
      name: c.SELLER_NAME ?? null,
      address: c.SELLER_ADDRESS ? c.SELLER_ADDRESS.split('|').map((l) => l.trim()).filter(Boolean) : [],
      country: c.SELLER_COUNTRY ?? null,
      vat_id: c.SELLER_VAT_ID ?? null,
      email: c.SELLER_EMAIL ?? null,
      phone: c.IMPRINT_PHONE ?? null,
      representative: c.IMPRINT_REPRESENTATIVE ?? null,
      register: c.IMPRINT_REGISTER ?? null,
      supervisory_authority: c.IMPRINT_SUPERVISORY_AUTHORITY ?? null,
      professional_rules: c.IMPRINT_PROFESSIONAL_RULES ?? null,
    },
    accessibility: { contact_email: c.ACCESSIBILITY_CONTACT_EMAIL ?? c.SELLER_EMAIL ?? null },
    price_change_notice_days: c.PRICE_CHANGE_NOTICE_DAYS,
  };
}

// ------------------------------------------------------------------ cancelling without signing in

export interface CancelRequestInput {
  name: string;
  email: string;
  plan: string;
  kind: 'ordinary' | 'extraordinary';
  date: string;
  /** The good cause of an extraordinary cancellation (required for it by the route). */
  reason?: string;
  locale?: string;
}

const stamp = (d: Date) => `${d.toISOString().slice(0, 10)} ${d.toISOString().slice(11, 16)} UTC`;

/**
 * A cancellation declared on the public page. The answer is the same whatever the address (no
 * account enumeration); when the address is a verified account with a running plan matching the
 * form, the account's mailbox receives the receipt (date and time) and a one-click link that
 * cancels at the period end. Only the link's hash is stored.
 */
export async function requestCancellation(deps: Deps, input: CancelRequestInput): Promise<void> {
  await deps.limiters.budget('cancel-request-email', CANCEL_REQUESTS_PER_EMAIL_PER_HOUR, 3600).consume(sha256(input.email.trim().toLowerCase()));
  const now = deps.clock.now();
  const account = await repo.accountByEmail(deps.db, input.email.trim());
  if (!account) return;
  const live = (await plansOfAccount(deps.db, account.id)).filter((p) => LIVE.has(p.status));
  const chosen = input.plan === 'all' ? live : live.filter((p) => p.category === input.plan);
  if (!chosen.length) return;
  const token = randomToken();
  const locale: Locale = isLocale(account.locale) ? account.locale : 'en';
  const labels = KIND_LABELS[locale]!;
  await deps.db.tx(async (q) => {
    await repo.insertCancelRequest(q, {
      token_hash: sha256(token),
      user_id: account.id,
      subscription_id: input.plan === 'all' ? null : chosen[0]!.id,
      kind: input.kind,
      requested_date: input.date,
      reason: input.kind === 'extraordinary' ? (input.reason ?? '') : null,
      created_at: now,
      expires_at: new Date(now.getTime() + CANCEL_LINK_DAYS * DAY_MS),
    });
    await enqueueMail(q, account.email, cancelRequestMail, locale, {
      received: stamp(now),
      link: appLinks.cancelConfirm(deps.config, token),
      plans: input.plan === 'all' ? labels.all : publicCategoryText(input.plan, locale).title,
      kind: labels[input.kind],
      date: input.date,
    });
  });
}

/**
 * The one-click confirmation, once: every plan the request names ends. An ordinary cancellation ends
 * it at its period end. An extraordinary one (for good cause) takes effect on the date asked: a date
 * that has come ends the plan now (nothing more charged or supplied, the provider's subscription
 * cancelled), a later date at the period end (the plan is not renewed after it); it then waits for the
 * back office to review the reason and any refund of the period paid. A second click changes nothing
 * and answers the same (idempotent); an expired link is refused.
 */
export async function confirmCancellation(deps: Deps, token: string) {
  const now = deps.clock.now();
  return deps.db.tx(async (q) => {
    const req = await repo.lockCancelRequest(q, sha256(token));
    if (!req) throw fail('cancel_link_invalid');
    const plans = (await plansOfAccount(q, req.user_id)).filter((p) => (req.subscription_id ? p.id === req.subscription_id : true));
    const endOf = (p: (typeof plans)[number]) => new Date(p.status === 'canceled' && p.canceled_at ? p.canceled_at : p.current_period_end);
    const out = (rows: typeof plans) => rows.map((p) => ({ category: p.category, ends_at: endOf(p).toISOString(), status: p.status, cancel_at_period_end: p.cancel_at_period_end }));
    if (req.used_at) return { already_confirmed: true, received_at: new Date(req.created_at).toISOString(), plans: out(plans) };
    if (new Date(req.expires_at) <= now) throw fail('cancel_link_expired');
    const endsNow = req.kind === 'extraordinary' && String(req.requested_date).slice(0, 10) <= now.toISOString().slice(0, 10);
    const cancelled: typeof plans = [];
    for (const p of plans) {
      if (!LIVE.has(p.status)) {
        cancelled.push(p);
        continue;
      }
      if (endsNow) {
        await endPlanNow(deps, q, req.user_id, p.id);
        cancelled.push((await plansOfAccount(q, req.user_id)).find((x) => x.id === p.id) ?? p);
        continue;
      }
      const row = await setCancelAtPeriodEnd(q, req.user_id, p.id, true);
      cancelled.push(row && row !== 'ended' ? row : p);
    }
    await repo.markCancelRequestUsed(q, req.id, now);
    const contact = await repo.contactOf(q, req.user_id);
    if (contact) {
      const locale: Locale = isLocale(contact.locale) ? contact.locale : 'en';
      const ends = cancelled.map((p) => endOf(p).toISOString().slice(0, 10)).sort().join(', ');
      await enqueueMail(q, contact.email, cancelConfirmedMail, locale, { received: stamp(new Date(req.created_at)), ends: ends || '—', link: appLinks.plan(deps.config) });
    }
    return { already_confirmed: false, received_at: new Date(req.created_at).toISOString(), plans: out(cancelled) };
  });
}

// ------------------------------------------------------------------ the back office's review

/** Confirmed extraordinary cancellations with their reasons, for the back office. */
export async function listExtraordinaryCancellations(deps: Deps, reviewed: boolean | undefined, limit: number, offset: number) {
  const { count, rows } = await repo.extraordinaryCancellations(deps.db, reviewed, limit, offset);
  return {
    count,
    results: rows.map((r) => ({
      id: r.id,
      user_id: r.user_id,
      email: r.email,
      subscription_id: r.subscription_id,
      requested_date: String(r.requested_date).slice(0, 10),
      received_at: new Date(r.created_at).toISOString(),
      confirmed_at: new Date(r.used_at!).toISOString(),
      reason: r.reason,
      reviewed_at: r.reviewed_at ? new Date(r.reviewed_at).toISOString() : null,
      review_note: r.review_note,
    })),
  };
}

/** Marks one reviewed with a note (what was decided, e.g. a refund made from the payment). */
export async function reviewExtraordinaryCancellation(deps: Deps, staffId: string, id: string, note: string) {
  const done = await repo.markCancellationReviewed(deps.db, id, staffId, note, deps.clock.now());
  if (!done) {
    if (!(await repo.cancellationExists(deps.db, id))) throw notFound();
    throw fail('cancellation_already_reviewed');
  }
}

/** The account's erasure (src/modules/privacy): the reasons go, the receipts of the cancellations stay. */
export async function eraseCancellationReasons(q: Queryable, userId: string): Promise<void> {
  await repo.eraseCancellationReasons(q, userId);
}
