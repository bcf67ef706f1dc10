// What other modules may use of the MCP connector: the account's connector grants as its privacy
// page and data export list them, their revocation when the account is erased, and the revocation of
// every grant when the account's credentials change or it is disabled.
export { endGrantsWithSessions, grantsOfAccount, toolCallsOfAccount, revokeAccountConnectors, revokeAllGrantsForUser, type AccountGrantRow } from './service.ts';
