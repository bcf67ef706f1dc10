// What other modules may use of the messages module: the patient-side services (the MCP connector
// lists, reads and sends on the patient's behalf), the account's messages for its data export and
// erasure (the privacy module), and the start-up move of attachments from DATA_DIR/uploads into the
// file store (runtime.ts). Everything else in this folder is internal.
export { listForPatient, readAsPatient, sendAsPatient, removeStoredFiles, patientFile, type Upload } from './service.ts';
export { conversationsOfAccount, deleteAccountMessages } from './service.ts';
export { importDiskUploads, resealStoredFiles, sealedStoreWith, StoredFileMissingError, type FileStore, type ObjectStore } from './file-stores.ts';
