// What other modules read of a patient's questionnaire data (checkout, the prescribing rules, the
// review desk) and the retention sweep of abandoned drafts, each named for its behaviour. The
// statements stay in repository.ts, private to this folder.
import * as repo from './repository.ts';

/** The profile facts the engine and the country check read (date of birth, gender, country, locale). */
export function profileFacts(...args: Parameters<typeof repo.profileFacts>) {
  return repo.profileFacts(...args);
}

/**
 * For the clinician's consultation page: a submission and the same account's earlier submissions of
 * its category (newest first, at most `limit`); null when the submission is not the account's.
 */
export function submissionWithEarlier(...args: Parameters<typeof repo.submissionWithEarlier>) {
  return repo.submissionWithEarlier(...args);
}

/** Retention (docs/privacy.md): deletes drafts untouched since before `before`, at most `batch` a call. */
export function deleteAbandonedDraftsForScheduler(...args: Parameters<typeof repo.deleteAbandonedDraftsForScheduler>) {
  return repo.deleteAbandonedDraftsForScheduler(...args);
}

/** The account's erasure (src/modules/privacy): drafts, draft red flags, submissions no record refers to. */
export function eraseQuestionnaireData(...args: Parameters<typeof repo.eraseQuestionnaireData>) {
  return repo.eraseQuestionnaireData(...args);
}
