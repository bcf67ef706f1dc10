// The patient's data-protection rights (docs/privacy.md): consent records, the log of staff
// access to their record, the export of every record of the account (Art. 15, 20) and erasure (Art. 17).
import type { Deps } from '../../deps.ts';
import { isStaff } from '../../http/access.ts';
import { fail, fieldErrors } from '../../http/errors.ts';
import { deleteIdempotentAnswersOfAccount } from '../../http/idempotency.ts';
import { deleteMailTo, enqueueMail } from '../../mail/outbox.ts';
import { providerFor } from '../../payment-providers/index.ts';
import { confirmOwnPassword, eraseSecondFactors, findUserById, pseudonymiseUser, revokeAllSessions, sessionStartedAt } from '../accounts/index.ts';
import { allAccessForPatient, countAccessForPatient, pageAccessForPatient, type AccessLogRow, type AccessResource } from '../audit/index.ts';
import { checkoutSessionsOfAccount, deleteUnfinishedSessionsOfAccount } from '../checkout/index.ts';
import { openConsultationsOfAccount, pageForUser, serialiseConsultations, transitionConsultationIfAllowed } from '../consultations/index.ts';
import { eraseAccountFulfilment, listOrders, listReissueRequests, pagePrescriptions, toPrescription } from '../fulfilment/index.ts';
import { deleteAccountJournal, journalOfAccount } from '../journal/index.ts';
import { eraseAccountNotifications, notificationsOfAccount } from '../notifications/index.ts';
import { appointmentsOfAccount, eraseAccountAppointments } from '../appointments/index.ts';
import { grantsOfAccount, revokeAccountConnectors, toolCallsOfAccount } from '../mcp/index.ts';
import { conversationsOfAccount, deleteAccountMessages, removeStoredFiles } from '../messages/index.ts';
import { deleteAccountPhotos, photosOfAccountForExport, removePhotoBytes } from '../photos/index.ts';
import { pagePayments, paymentOrder, refundConsultationCharges, toPayment } from '../payments/index.ts';
import { getProfile } from '../profile/index.ts';
import { referralSummary, referredByOf } from '../referrals/index.ts';
import { deleteAccountVerification, removeVerificationImages, verificationOfAccount } from '../verification/index.ts';
import { eraseRedFlagsOfAccount, redFlagsOfAccount } from '../redflags/index.ts';
import { deletePendingDoseChangesOfAccount, doseChangesOfAccount, livePlansOfAccount, plansOfAccount, transitionPlan, type PlanStatus } from '../subscriptions/index.ts';
import { eraseAccountGpLetters, eraseAccountShareLinks, gpLettersForExport } from '../interop/index.ts';
import { eraseCancellationReasons } from '../compliance/index.ts';
import { eraseQuestionnaireData } from '../questionnaires/index.ts';
import { accountErasedMail } from './mail.ts';
import * as repo from './repository.ts';
import type { ConsentKind } from './repository.ts';

const ALL = 100_000;
/** How recent the sign-in of an account without a password must be for it to erase itself. */
export const RECENT_SIGN_IN_MINUTES = 10;

// ---------------------------------------------------------------- consents

const consentOut = (r: { id: string; kind: string; version: string; granted: boolean; created_at: Date }) => ({
  id: r.id,
  kind: r.kind as ConsentKind,
  version: r.version,
  granted: r.granted,
  at: r.created_at.toISOString(),
});

export async function recordConsent(deps: Deps, userId: string, c: { kind: ConsentKind; version: string; granted: boolean }) {
  return consentOut(await repo.insertConsent(deps.db, userId, { ...c, at: deps.clock.now() }));
}

export async function consents(deps: Deps, userId: string) {
  const history = (await repo.consentsOf(deps.db, userId)).map(consentOut);
  const seen = new Set<string>();
  const current = history.filter((c) => !seen.has(c.kind) && seen.add(c.kind));
  const connectors = (await grantsOfAccount(deps.db, userId)).map((g) => ({
    id: g.id,
    client_id: g.client_id,
    client_name: g.client_name || g.client_id,
    scopes: g.scopes.split(' ').filter(Boolean),
    granted_at: new Date(g.created_at).toISOString(),
    revoked_at: g.revoked_at ? new Date(g.revoked_at).toISOString() : null,
  }));
  return { current, history, connectors };
}

/**
 * Whether marketing mail may be sent to the account: only with a marketing consent granted and not
 * withdrawn since. The service sends no marketing mail today; anything that does must ask this first.
 */
export async function mayReceiveMarketing(deps: Pick<Deps, 'db'>, userId: string): Promise<boolean> {
  return (await repo.currentConsent(deps.db, userId, 'marketing')) === true;
}

// ---------------------------------------------------------------- access log

const accessOut = (r: AccessLogRow) => ({
  id: r.id,
  at: new Date(r.at).toISOString(),
  actor_role: r.actor_role as 'doctor' | 'backoffice_admin' | 'pharmacist' | 'link_recipient',
  actor_name: r.actor_name,
  action: r.action as 'read' | 'write',
  resource_type: r.resource_type as AccessResource,
  resource_id: r.resource_id,
});

export async function accessLog(deps: Deps, userId: string, limit: number, offset: number, order?: Parameters<typeof pageAccessForPatient>[4]) {
  const count = await countAccessForPatient(deps.db, userId);
  const rows = await pageAccessForPatient(deps.db, userId, limit, offset, order);
  return { count, results: rows.map(accessOut) };
}

// ---------------------------------------------------------------- export

/** JSON-safe copy: timestamps as ISO 8601 text, nothing that JSON cannot hold. */
const plain = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

/** Every record of the account, read from the primary (an export must not miss the newest writes). */
export async function exportAccount(deps: Deps, userId: string) {
  const q = deps.db;
  const base = deps.config.PUBLIC_BASE_URL;
  const profile = await getProfile(deps, userId);
  const consultations = await serialiseConsultations(q, deps, await pageForUser(q, userId, ALL, 0));
  const payments = (await pagePayments(q, userId, paymentOrder('created_at'), ALL, 0)).map((p) => toPayment(p, profile.email, base));
  const prescriptions = (await pagePrescriptions(q, userId, ALL, 0)).map((r) => toPrescription(r, base));
  const conversations = (await conversationsOfAccount(q, userId)).map((c) => ({
    ...c,
    messages: c.messages.map((m) => ({ ...m, file_url: m.file_id ? `${base}/v1/users/conversations/${c.id}/messages/${m.id}/file/` : null })),
  }));
  const { user_id: _u, ...referralsOut } = { user_id: null, ...(await referralSummary(deps, userId)) };
  const journal = await journalOfAccount(q, userId);
  return plain({
    exported_at: deps.clock.now().toISOString(),
    profile,
    consultations,
    questionnaire_progress: await repo.questionnaireProgressOf(q, userId),
    payments,
    checkout_sessions: await checkoutSessionsOfAccount(q, userId),
    orders: await listOrders(q, userId),
    prescriptions,
    prescription_reissue_requests: await listReissueRequests(q, userId),
    subscriptions: await plansOfAccount(q, userId),
    plan_dose_change_requests: await doseChangesOfAccount(q, userId),
    conversations,
    clinical_photos: await clinicalPhotosOf(deps, userId),
    journal,
    red_flags: await redFlagsOfAccount(q, userId),
    referrals: { ...referralsOut, referred_by: await referredByOf(q, userId) },
    consents: (await repo.consentsOf(q, userId)).map(consentOut),
    access_log: (await allAccessForPatient(q, userId)).map(accessOut),
    connected_apps: (await grantsOfAccount(q, userId)).map((g) => ({
      id: g.id,
      client_id: g.client_id,
      client_name: g.client_name,
      scopes: g.scopes,
      resource: g.resource,
      created_at: g.created_at,
      last_used_at: g.last_used_at,
      revoked_at: g.revoked_at,
      revoke_reason: g.revoke_reason,
    })),
    connector_tool_calls: await toolCallsOfAccount(q, userId),
    verification: await verificationOfAccount(deps, userId),
    notifications: await notificationsOfAccount(q, userId),
    appointments: await appointmentsOfAccount(q, userId),
    gp_letters: await gpLettersForExport(deps, q, userId),
  });
}

/** The account's clinical photos (what each is and its address; the zip holds the bytes). */
async function clinicalPhotosOf(deps: Deps, userId: string) {
  return (await photosOfAccountForExport(deps, userId)).map((p) => p.record);
}

// ---------------------------------------------------------------- erasure

export interface EraseInput {
  password?: string;
  confirm?: 'DELETE';
}

/**
 * Erases the signed-in account (docs/privacy.md lists each table's rule): the password confirms it
 * (an account without one: `confirm: "DELETE"` from a sign-in of the last 10 minutes); live plans are
 * canceled (at the payment provider too), open consultations cancelled, sessions and connector tokens
 * revoked, personal data deleted or pseudonymised in one transaction, and a mail confirms it to the
 * old address. Staff accounts are not erased here (operators handle them).
 */
export async function eraseAccount(deps: Deps, userId: string, sessionId: string, input: EraseInput): Promise<void> {
  const user = await findUserById(deps.db, userId);
  if (!user) throw fail('permission_denied');
  if (isStaff(user)) throw fail('permission_denied');
  const hasPassword = await confirmOwnPassword(deps, userId, input.password);
  if (!hasPassword) {
    if (input.confirm !== 'DELETE') throw fieldErrors({ confirm: ['Type DELETE to confirm.'] });
    const started = await sessionStartedAt(deps.db, userId, sessionId);
    if (!started || deps.clock.now().getTime() - started.getTime() > RECENT_SIGN_IN_MINUTES * 60_000) {
      throw fail('recent_sign_in_required');
    }
  }

  // Plans end at the provider first (a charge must not follow an erasure); a provider failure is
  // logged and the local plan is canceled all the same, so no renewal is charged from here.
  const plans = await livePlansOfAccount(deps.db, userId);
  for (const p of plans) {
    if (!p.provider_subscription_id) continue;
    const provider = providerFor(deps, p.provider);
    await provider.cancelSubscription?.(p.provider_subscription_id).catch((err: unknown) => deps.log.error({ err, subscription: p.id }, 'erasure: the provider did not cancel a plan'));
  }

  const now = deps.clock.now();
  let verificationImages: string[] = [];
  const storedFiles = await deps.db.tx(async (q) => {
    for (const p of plans) await transitionPlan(q, userId, p.id, p.status as PlanStatus, 'canceled', { canceled_at: now, cancel_at_period_end: false });
    await deletePendingDoseChangesOfAccount(q, userId);
    // A review still waiting for a doctor will never be decided: its payment goes back in full
    // (as on a rejection, docs/consultations.md) and it ends `refunded`, else `cancelled`.
    for (const id of await openConsultationsOfAccount(q, userId)) {
      const refunds = await refundConsultationCharges(deps, q, userId, id, 'account_erased');
      await transitionConsultationIfAllowed(q, userId, id, refunds.length ? 'refunded' : 'cancelled');
    }
    await revokeAccountConnectors(q, userId);
    await eraseAccountShareLinks(q, userId);
    await eraseAccountGpLetters(q, userId);
    await eraseCancellationReasons(q, userId);
    await revokeAllSessions(q, userId, 'account_disabled');
    await eraseSecondFactors(q, userId);
    const keys = await deleteAccountMessages(q, userId);
    const photoKeys = await deleteAccountPhotos(q, userId);
    await deleteAccountJournal(q, userId);
    verificationImages = await eraseVerification(q, userId);
    await eraseAccountNotifications(q, userId);
    await deleteIdempotentAnswersOfAccount(q, userId);
    await eraseAccountAppointments(q, userId, now);
    await eraseRedFlagsOfAccount(q, userId, now);
    // What no retention rule keeps (docs/privacy.md): unfinished checkouts, then the questionnaire
    // data they no longer hold, the orders' addresses and pending reissue requests, queued mail.
    await deleteUnfinishedSessionsOfAccount(q, userId);
    await eraseQuestionnaireData(q, userId);
    await eraseAccountFulfilment(q, userId);
    await deleteMailTo(q, user.email);
    await pseudonymiseUser(q, userId, now);
    await enqueueMail(q, user.email, accountErasedMail, user.locale, {});
    return { keys, photoKeys };
  });
  await removeStoredFiles(deps, storedFiles.keys);
  await removePhotoBytes(deps, storedFiles.photoKeys);
  await removeVerificationImages(deps, verificationImages);
}

/**
 * Erasure of identity and weight verification (docs/verification.md, docs/privacy.md): the records,
 * the keyed document hashes and the images in the database go in the erasure's transaction; the
 * images in a bucket after it commits (the keys answered here).
 */
function eraseVerification(trx: Parameters<typeof deleteAccountVerification>[0], userId: string): Promise<string[]> {
  return deleteAccountVerification(trx, userId);
}
