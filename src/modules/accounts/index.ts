// What other modules (and the CLI) may use of accounts, owner of the users table: every write of
// users from outside this folder goes through these functions.
export { findUserById, updateUserFields, userFieldsUpdate, pseudonymiseUser, sessionStartedAt } from './users.ts';
export type { UserFields, UserRow } from './repository.ts';
export { addSuppression, checkCredentials, confirmOwnPassword, createStaff, googleAccount, googleLogin, logout, setAccountDisabled, setDisabledByEmail, type StaffRole } from './service.ts';
export { onCredentialsRevoked, revokeAllSessions, type CredentialsListener } from './tokens.ts';
export { checkSecondFactor, eraseSecondFactors, parseTotpSecret, resetMfaByEmail } from './mfa.ts';
// Retention sweeps (src/modules/privacy/retention.ts, docs/privacy.md).
export { deleteUnverifiedAccounts, deleteExpiredSessions, deleteExpiredOneTimeTokens } from './users.ts';
