// What other modules may use of verification: the approval gate and the desk's view (the review
// desk), what a category still needs (renewal options, the connector's status), and the account's
// verification data for its export and erasure (the privacy module).
export { assertVerifiedForApproval, verificationForDesk, verificationFor, verificationStatus } from './service.ts';
export { verificationOfAccount, verificationFilesOfAccount, deleteAccountVerification, removeVerificationImages } from './service.ts';
export { CategoryVerification, DeskVerification, VerificationRequiredSchema } from './schemas.ts';
export { requirementsOf } from './catalogue.ts';
// A weight the doctor saw on the scales during a video call (the appointments module's outcome).
export { recordWeightSeenOnCall } from './service.ts';
// The operator's key rotation (reencrypt).
export { resealVerificationImages } from './service.ts';
// The scheduler's notice that a plan's verified weight is about to expire (registered by the routes).
export { raiseVerificationDue } from './service.ts';
