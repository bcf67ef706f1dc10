// Partner pharmacies (docs/pharmacy.md): what other modules use. Checkout and renewal confirm check
// a collection choice; fulfilment shows the collection pharmacy of an order.
export { FulfilmentChoiceSchema, PharmacyPublicSchema, toPharmacyPublic, type PharmacyPublic, type PharmacyPublicRow } from './schemas.ts';
export { collectionPharmacyFor, type FulfilmentChoice } from './service.ts';
export { pharmacyById } from './service.ts';
export type { PartnerPharmacyRow } from './repository.ts';
export { assignPharmacistToPharmacy, pharmacistAssignment, pharmacistIdByEmail, type PharmacistAssignment } from './service.ts';
