// What other modules may do with an account's row (accounts owns the users table): read it, change
// its own fields, erase it, and the retention sweeps. The statements stay in repository.ts, private
// to this folder; each function here names the behaviour a caller relies on.
import * as repo from './repository.ts';

/** The account by id (optionally locked FOR UPDATE in the caller's transaction). */
export function findUserById(...args: Parameters<typeof repo.findUserById>) {
  return repo.findUserById(...args);
}

/** Sets an account's own fields (and updated_at); false when there is no such account. */
export function updateUserFields(...args: Parameters<typeof repo.updateUserFields>) {
  return repo.updateUserFields(...args);
}

/**
 * The one update of an account's own fields as a statement the caller finishes with the columns it
 * answers with (the profile's PATCH): the write itself stays with accounts.
 */
export function userFieldsUpdate(...args: Parameters<typeof repo.userFieldsUpdate>) {
  return repo.userFieldsUpdate(...args);
}

/** When the session an access token belongs to began (the erasure's recent sign-in check). */
export function sessionStartedAt(...args: Parameters<typeof repo.sessionStartedAt>) {
  return repo.sessionStartedAt(...args);
}

/** Erasure: the account's row keeps its id for retained records and loses everything identifying. */
export function pseudonymiseUser(...args: Parameters<typeof repo.pseudonymiseUser>) {
  return repo.pseudonymiseUser(...args);
}

// ---- retention sweeps (src/modules/privacy/retention.ts, docs/privacy.md): at most `batch` rows a call.

/** Deletes registrations never verified, created before `before`. */
export function deleteUnverifiedAccounts(...args: Parameters<typeof repo.deleteUnverifiedAccounts>) {
  return repo.deleteUnverifiedAccounts(...args);
}

/** Deletes expired refresh tokens and the sign-in sessions (refresh families) over before `before`. */
export function deleteExpiredSessions(...args: Parameters<typeof repo.deleteExpiredSessions>) {
  return repo.deleteExpiredSessions(...args);
}

/** Deletes one-time tokens (password reset, second-factor tickets) that expired before `before`. */
export function deleteExpiredOneTimeTokens(...args: Parameters<typeof repo.deleteExpiredOneTimeTokens>) {
  return repo.deleteExpiredOneTimeTokens(...args);
}
