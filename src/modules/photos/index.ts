// What other modules may use of the photos module: the review desk's view of a consultation's photos
// (clinician), the account's photos for its export and erasure (privacy), and the re-sealing of the
// stored bytes at key rotation (cli). Everything else in this folder is internal.
export { clinicianPhotoUrl, deskPhotos, deleteAccountPhotos, photosOfAccountForExport, removePhotoBytes } from './service.ts';
export { DeskPhotosSchema } from './schemas.ts';
export { resealPhotos } from './store.ts';
