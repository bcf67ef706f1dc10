// What other modules (the review desk, renewals, the MCP connector) may use of the journal.
// Only this module writes weight_entries, injections, injection_plans, journal_notes and
// side_effect_reports.
export { weightSummary, WEIGHT_TREND_DAYS, recordVerifiedWeight } from './service.ts';
// The patient's journal as the MCP connector acts on it (same rules as the routes).
export { list, getPlan, createWeight, createInjection, createNote, weightOut, injectionOut, noteOut, sideEffectOut, pastWeights, reportSideEffect } from './service.ts';
// The account's journal for its data export and erasure (the privacy module).
export { journalOfAccount, deleteAccountJournal } from './service.ts';
// Whether reminders may still go out (the notifications module).
export { hasActiveTreatment } from './service.ts';
