// What other modules may use of the MCP connector: the account's connector grants as its privacy
// page and data export list them, and their revocation when the account is erased.
export { grantsOfAccount, toolCallsOfAccount, revokeAccountConnectors, type AccountGrantRow } from './repository.ts';
