// A consultation's `images` (spec 2.3): clinical photos, stored in the consultation as {id, created_at}
// and served by the photos module at the address made here.

/** Where a consultation image's bytes are served to its patient (src/modules/photos). */
export const patientImageUrl = (base: string, id: string) => `${base}/v1/users/photos/${id}/`;
