// What other modules may use of the messages module: the patient-side services (the MCP connector
// lists, reads and sends on the patient's behalf), and the account's messages for its data export
// and erasure (the privacy module). Everything else in this folder is internal.
export { listForPatient, readAsPatient, sendAsPatient, removeStoredFiles, type Upload } from './service.ts';
export { conversationsOfAccount, deleteAccountMessages } from './repository.ts';
