// What other modules may use of the questionnaires module: the catalogue (categories, versions,
// treatments, locales), the pure eligibility engine and prescribing rules, and the few services that
// checkout, consultations and renewals call. Everything else in this folder is internal.
export {
  // The one list of treatment categories (slugs) of the service; other modules use this, not a copy.
  CATEGORY_SLUGS as CATEGORIES,
  type CategorySlug,
  TIME_CRITICAL_CATEGORIES,
  currentVersion,
  findTreatment,
  getCategory,
  getCategoryById,
  getVersion,
  listCategories,
  localisedSteps,
  pickLocale,
  renewalScreen,
  type Category,
  type Locale,
  type Question,
  type Rule,
  type RuleSet,
  type Step,
  type Treatment,
  type Version,
} from './catalogue.ts';
export {
  emergencyNotice,
  evaluate,
  evaluateAt,
  missingAnswers,
  redFlags,
  type AnswerItem,
  type EmergencyNotice,
  type EngineProfile,
  type Outcome,
  type Reason,
} from './engine.ts';
export { gpSharingFor, prescribingFor, prescriptionInstructions, ruleFacts, GP_SHARING_LEVELS, type GpSharing, type GpSharingLevel, type InstructionLine, type PrescribingCategory, type RuleFacts } from './prescribing-catalogue.ts';
export {
  doseVerdict,
  exclusionCodes,
  lastDayAtCurrentDose,
  prescribingVerdict,
  renewalRuleSet,
  strengthLimits,
  type DoseOptions,
  type DoseVerdict,
  type EngineVerdict,
  type PrescribingVerdict,
  type SupplyHistory,
  type VerdictReason,
} from './prescribing.ts';
export { profileFacts, submissionWithEarlier } from './answers.ts';
export type { StoredAnswer } from './repository.ts';
export { StepOut } from './schemas.ts';
export { assertCountryServed, latestEligibleSubmission, timeWindowRecheck } from './service.ts';
// The connector (src/modules/mcp) reads, saves and submits the patient's draft like the API does.
export { getProgress, patchProgress, submit as submitQuestionnaire } from './service.ts';
// Retention sweep of abandoned drafts (src/modules/privacy/retention.ts, docs/privacy.md).
export { deleteAbandonedDraftsForScheduler } from './answers.ts';
// What a signed-out visitor may read about a category (no medicine names: docs/compliance.md).
export { publicCategoryText, advertisingFound } from './advertising.ts';
export { DELIVERY_MARGIN_HOURS, ecDeliveryVerdict, estimateArrival, submissionDeliveryVerdicts, type EcDeliveryVerdict } from './ec-delivery.ts';
export { EcDeliverySchema } from './schemas.ts';
// The account's erasure (src/modules/privacy): drafts, draft red flags, submissions no record refers to.
export { eraseQuestionnaireData } from './answers.ts';
