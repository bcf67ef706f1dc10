// What other modules (checkout finalisation, refunds, subscriptions, messages, the review desk)
// may use of consultations. Only this module writes the consultations table; every status change
// goes through the machine in status.ts.
export {
  insertConsultation as createConsultation,
  transitionConsultation,
  transitionConsultationIfAllowed,
  transitionConsultationForClinician,
  resumeReview,
  findConsultationForUser,
  updateRenewalFields,
  type ConsultationRow,
  type ConsultationFields,
  type NewConsultation,
  type RenewalFields,
} from './records.repository.ts';
export {
  CONSULTATION_STATUSES,
  TRANSITIONS,
  REVIEWABLE,
  OPEN_STATUSES,
  assertTransition,
  canTransition,
  isConsultationStatus,
  type ConsultationStatus,
} from './status.ts';
// TODO(merge h-plans): the same lines as h-plans' index; checkout needs them now.
export { verdictFor, defaultDosage, submissionVerdict } from './prescribing.ts';
