// Prescription reissue requests (docs/pharmacy.md): the patient asks, a doctor approves (a
// new prescription naming the original) or declines with a reason; the patient is mailed either way.
// Only a prescription that is still valid (valid_until in the future) may be reissued: a lapsed one
// needs a new consultation, since the doctor's assessment behind it has expired.
import type { Deps } from '../../deps.ts';
import { fail, notFound } from '../../http/errors.ts';
import { appLinks } from '../../mail/links.ts';
import { enqueueMail } from '../../mail/outbox.ts';
import { reissueDecidedMail } from './mail.ts';
import type { SigningSession } from '../signing/index.ts';
import { cancelPrescriptionForClinician, dispensingsForPharmacy, lockPrescriptionForPharmacy, moveOpenOrdersForClinician } from './signed.repository.ts';
import { issueSignedPrescription } from './signing.ts';
import {
  decideReissueForClinician,
  insertReissueRequest,
  lockOwnPrescription,
  lockReissueForClinician,
  pendingRequestFor,
  setReissuedFromForClinician,
  type ReissueRow,
} from './reissue.repository.ts';

const stillValid = (validUntil: Date | null, now: Date) => validUntil === null || new Date(validUntil).getTime() > now.getTime();

export async function requestReissue(deps: Deps, userId: string, prescriptionId: string, reason: string): Promise<ReissueRow> {
  return deps.db.tx(async (q) => {
    // The lock serialises two requests for one prescription; the partial unique index backs it.
    const rx = await lockOwnPrescription(q, userId, prescriptionId);
    if (!rx) throw notFound();
    const now = deps.clock.now();
    if (!stillValid(rx.valid_until, now)) throw fail('prescription_not_reissuable');
    if (await pendingRequestFor(q, userId, rx.id)) throw fail('reissue_request_pending');
    return insertReissueRequest(q, { userId, prescriptionId: rx.id, reason, at: now });
  });
}

/**
 * Approval issues a new signed prescription and cancels the original (verification reports it
 * cancelled); orders of the original not dispensed yet carry the new one. A reissue never adds
 * supplies: the new one allows what the original had left (its repeats: the original's minus those
 * used, and the same interval), and a fully dispensed original is 409 `already_dispensed`.
 */
export async function approveReissue(deps: Deps, input: { requestId: string; doctorId: string; note: string | null; session: SigningSession }): Promise<ReissueRow> {
  return deps.db.tx(async (q) => {
    const r = await lockReissueForClinician(q, input.requestId);
    if (!r) throw notFound();
    if (r.status !== 'pending') throw fail('invalid_status_transition', { message: `A reissue request in status "${r.status}" cannot be approved.` });
    const now = deps.clock.now();
    if (!stillValid(r.valid_until, now)) throw fail('prescription_not_reissuable');
    const original = await lockPrescriptionForPharmacy(q, r.prescription_id);
    if (!original) throw notFound();
    if (original.status === 'cancelled') throw fail('prescription_cancelled');
    const supplied = new Set((await dispensingsForPharmacy(q, original.id)).map((d) => d.order_id)).size;
    const left = 1 + original.repeats - supplied;
    if (left <= 0) throw fail('already_dispensed');
    // The new prescription carries the original's treatment, dose and validity end (a reissue is a
    // new document of the same decision, not a new course).
    const rx = await issueSignedPrescription(deps, q, {
      userId: r.user_id,
      consultationId: r.consultation_id,
      doctorId: input.doctorId,
      category: r.category,
      treatmentId: r.treatment_id,
      treatmentName: r.treatment_name,
      dosage: r.dosage,
      instructions: r.instructions,
      supplyDays: r.supply_days,
      issuedAt: now,
      validUntil: r.valid_until,
      repeats: left - 1,
      // The stated interval stays, counted from the original's last dispensing (the new one's first
      // supply may itself be a repeat), even when no repeat is left after it.
      repeatIntervalDays: original.repeat_interval_days,
    }, input.session);
    await setReissuedFromForClinician(q, rx.id, r.prescription_id);
    await cancelPrescriptionForClinician(q, r.prescription_id, now);
    await moveOpenOrdersForClinician(q, r.prescription_id, rx.id, now);
    const decided = await decideReissueForClinician(q, r.id, { status: 'approved', by: input.doctorId, at: now, decisionReason: input.note, newPrescriptionId: rx.id });
    if (!decided) throw fail('invalid_status_transition', { message: 'The reissue request is no longer pending.' });
    await enqueueMail(q, r.email, reissueDecidedMail, r.locale, { first_name: r.first_name, link: appLinks.prescriptions(deps.config) });
    return decided;
  });
}

export async function declineReissue(deps: Deps, input: { requestId: string; doctorId: string; reason: string }): Promise<ReissueRow> {
  return deps.db.tx(async (q) => {
    const r = await lockReissueForClinician(q, input.requestId);
    if (!r) throw notFound();
    if (r.status !== 'pending') throw fail('invalid_status_transition', { message: `A reissue request in status "${r.status}" cannot be declined.` });
    const decided = await decideReissueForClinician(q, r.id, { status: 'declined', by: input.doctorId, at: deps.clock.now(), decisionReason: input.reason, newPrescriptionId: null });
    if (!decided) throw fail('invalid_status_transition', { message: 'The reissue request is no longer pending.' });
    await enqueueMail(q, r.email, reissueDecidedMail, r.locale, { first_name: r.first_name, link: appLinks.prescriptions(deps.config) });
    return decided;
  });
}
