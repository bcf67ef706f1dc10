// What other modules (checkout finalisation, refunds, subscriptions, messages, the review desk)
// may use of consultations. Only this module writes the consultations table; every status change
// goes through the machine in status.ts.
export {
  transitionConsultation,
  transitionConsultationIfAllowed,
  resumeReview,
  findConsultationForUser,
  findConsultationForClinician,
  overrideOf,
  updateRenewalFields,
  pendingRenewalOf,
  lastApprovedOf,
  hasOpenReview,
  lockRenewalForUser,
  moveRenewalPeriod,
} from './records.ts';
export type { ConsultationRow, ConsultationFields, NewConsultation, RenewalFields } from './records.repository.ts';
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
export {
  createConsultation,
  approveConsultation,
  planSupplies,
  rejectConsultation,
  requestInformation,
  requestCall,
  expireInformationRequests,
  INFORMATION_REQUEST_DAYS,
  type Approved,
  type ApproveInput,
  type Ended,
} from './service.ts';
export { verdictFor, defaultDosage, submissionVerdict, consultationVerdict, supplyHistory } from './prescribing.ts';
export { ConsultationSchema, PrescriptionSchema, type Consultation } from './schemas.ts';
// The patient's list and its serialisation (owned by the list path; re-exported, not changed here).
export { countForUser, pageForUser, serialiseConsultations } from './records.ts';
export { default as consultationRoutes } from './routes.ts';
// Clinical photos (the photos module): adding one to an open consultation, the desk's comparison, erasure.
export { lockConsultationForImage, appendConsultationImage, consultationShowsImage, imagesOfCategory, clearConsultationImages } from './records.ts';
export type { StoredImage } from './records.repository.ts';
export { patientImageUrl } from './images.ts';
// The account's open reviews, for its erasure (the privacy module).
export { openConsultationsOfAccount } from './records.ts';
