// What other modules may use of the compliance module (docs/compliance.md): the account's erasure
// removes the reasons of its extraordinary cancellations (src/modules/privacy); the receipts stay.
export { eraseCancellationReasons } from './service.ts';
