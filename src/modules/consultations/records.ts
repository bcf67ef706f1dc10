// What other modules (checkout, subscriptions, messages, privacy, the review desk, the connector) may
// do with consultation records, each named for its behaviour. The statements stay in
// records.repository.ts and repository.ts, private to this folder; every status change still goes
// through the machine in status.ts (the repository's transition functions apply it).
import * as records from './records.repository.ts';
import * as listRepo from './repository.ts';

// ---- status moves, inside the caller's transaction

/**
 * Moves one of the account's consultations through the status machine (locked FOR UPDATE in the
 * caller's transaction): null when it is not the account's; 409 for a move the machine forbids.
 */
export function transitionConsultation(...args: Parameters<typeof records.transitionConsultation>) {
  return records.transitionConsultation(...args);
}

/** Like transitionConsultation, but a move the machine forbids is skipped (null) instead of a 409. */
export function transitionConsultationIfAllowed(...args: Parameters<typeof records.transitionConsultationIfAllowed>) {
  return records.transitionConsultationIfAllowed(...args);
}

/**
 * Back to the review queue once the patient has answered: the account's `needs_information`
 * consultations (one, or all of them for a message) move to `pending_review`. Returns the ids moved.
 */
export function resumeReview(...args: Parameters<typeof records.resumeReview>) {
  return records.resumeReview(...args);
}

// ---- reads

/** One of the account's consultations (null when it is not the account's). */
export function findConsultationForUser(...args: Parameters<typeof records.findConsultationForUser>) {
  return records.findConsultationForUser(...args);
}

/** Any patient's consultation (the review desk). */
export function findConsultationForClinician(...args: Parameters<typeof records.findConsultationForClinician>) {
  return records.findConsultationForClinician(...args);
}

/** The doctor's prescribing override recorded with a consultation's approval, if any. */
export function overrideOf(...args: Parameters<typeof records.overrideOf>) {
  return records.overrideOf(...args);
}

/** The account's latest approved consultation in a category. */
export function lastApprovedOf(...args: Parameters<typeof records.lastApprovedOf>) {
  return records.lastApprovedOf(...args);
}

/** Whether the account has a consultation in the category waiting for a doctor (not a pending renewal choice). */
export function hasOpenReview(...args: Parameters<typeof records.hasOpenReview>) {
  return records.hasOpenReview(...args);
}

// ---- renewals (the subscriptions module's renewal flow)

/** The account's open renewal consultation of a plan whose choice is still pending. */
export function pendingRenewalOf(...args: Parameters<typeof records.pendingRenewalOf>) {
  return records.pendingRenewalOf(...args);
}

/** The account's renewal consultation locked with the patient's profile fields (the renewal confirm). */
export function lockRenewalForUser(...args: Parameters<typeof records.lockRenewalForUser>) {
  return records.lockRenewalForUser(...args);
}

/** Records the patient's renewal choice on one of the account's consultations (never its status). */
export function updateRenewalFields(...args: Parameters<typeof records.updateRenewalFields>) {
  return records.updateRenewalFields(...args);
}

/** A postponed plan period: the open renewal of that period moves with it. */
export function moveRenewalPeriod(...args: Parameters<typeof records.moveRenewalPeriod>) {
  return records.moveRenewalPeriod(...args);
}

// ---- the account as a whole (the privacy module's erasure)

/** The account's consultations still waiting for a doctor (cancelled or refunded on erasure). */
export function openConsultationsOfAccount(...args: Parameters<typeof records.openConsultationsOfAccount>) {
  return records.openConsultationsOfAccount(...args);
}

// ---- the patient's list and its API shape (the connector, the data export, the review desk)

/** The account's consultation count. */
export function countForUser(...args: Parameters<typeof listRepo.countForUser>) {
  return listRepo.countForUser(...args);
}

/** A page of the account's consultations, newest first. */
export function pageForUser(...args: Parameters<typeof listRepo.pageForUser>) {
  return listRepo.pageForUser(...args);
}

/** Consultation rows (any accounts) in their API shape, with doctor, payments and prescriptions. */
export function serialiseConsultations(...args: Parameters<typeof listRepo.serialiseConsultations>) {
  return listRepo.serialiseConsultations(...args);
}

// ---- images (clinical photos, the photos module): the consultation's `images` list

/** One of the account's consultations locked to add an image: {id, status, category}, or undefined. */
export function lockConsultationForImage(...args: Parameters<typeof records.lockConsultationForImage>) {
  return records.lockConsultationForImage(...args);
}

/** Appends an image ({id, created_at}) to a consultation locked by lockConsultationForImage. */
export function appendConsultationImage(...args: Parameters<typeof records.appendConsultationImage>) {
  return records.appendConsultationImage(...args);
}

/** Whether one of the account's consultations shows the photo. */
export function consultationShowsImage(...args: Parameters<typeof records.consultationShowsImage>) {
  return records.consultationShowsImage(...args);
}

/** The account's consultations of a category with images, newest first, with their answers. */
export function imagesOfCategory(...args: Parameters<typeof records.imagesOfCategory>) {
  return records.imagesOfCategory(...args);
}

/** Account erasure: empties the images lists of the account's consultations. */
export function clearConsultationImages(...args: Parameters<typeof records.clearConsultationImages>) {
  return records.clearConsultationImages(...args);
}
