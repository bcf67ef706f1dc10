// What other modules (the review desk, renewals, the MCP connector) may use of the journal.
// Only this module writes weight_entries, injections, injection_plans, journal_notes and
// side_effect_reports.
export { weightSummary, WEIGHT_TREND_DAYS } from './service.ts';
