// What other modules may use of the messages module: the patient-side services (the MCP connector
// lists, reads and sends on the patient's behalf), the account's messages for its data export and
// erasure (the privacy module), and the start-up move of attachments from DATA_DIR/uploads into the
// file store (runtime.ts), and the sealed file store itself (clinical photos). Everything else in this
// folder is internal.
export { listForPatient, readAsPatient, sendAsPatient, removeStoredFiles, patientFile, type Upload } from './service.ts';
export { conversationsOfAccount, deleteAccountMessages } from './service.ts';
export { importDiskUploads, resealBlobTable, resealStoredFiles, sealedStoreWith, type SealedBlobTable } from './file-stores.ts';
// The sealing and the S3 bucket of the file store, for other patient files kept the same way (clinical
// photos: src/modules/photos, with their own table of database blobs; verification images).
export { sealedFileStore, s3Objects, StoredFileMissingError, type FileStore, type ObjectStore } from './file-stores.ts';
