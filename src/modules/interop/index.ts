// What other modules may use of the interoperability module (docs/interoperability.md): the
// account's FHIR patient summary (the export's `format=fhir`, the connector's get_health_summary)
// and its text form.
export { patientSummary } from './service.ts';
export { summarySections } from './fhir.ts';
// The account's erasure revokes its share links (src/modules/privacy).
export { eraseAccountShareLinks } from './share-links.ts';
// Letters to the patient's own doctor: the review desk's approval checks and records them; the
// privacy module exports and erases them.
export { assertGpSharingForApproval, eraseAccountGpLetters, gpLetterFilesForExport, gpLettersForExport, gpSharingForDesk, recordGpSharing } from './gp-letters.ts';
