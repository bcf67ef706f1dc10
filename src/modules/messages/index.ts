// What other modules may use of the messages module: the patient-side services (the MCP connector
// lists, reads and sends on the patient's behalf). Everything else in this folder is internal.
export { listForPatient, readAsPatient, sendAsPatient, type Upload } from './service.ts';
