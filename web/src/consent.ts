// The version of the terms, privacy notice and health-data consent text the app shows (docs/privacy.md).
export const CONSENT_VERSION = '2025-01';
