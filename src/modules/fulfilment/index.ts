// Fulfilment (owner of prescriptions and orders): what a doctor's approval issues and the pharmacy
// ships. Consultation approval calls issuePrescription and createOrder inside its transaction.
export { issuePrescription, createOrder, type PrescriptionInput, type OrderInput, type OrderItem } from './repository.ts';
