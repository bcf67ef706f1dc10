// Signing (docs/prescriptions.md): prescribers' signing identities (sandbox CA or a CSC provider),
// PAdES signatures of prescriptions and their verification. Owner of prescriber_signing_identities.
export {
  signPrescriptionPdf,
  checkPdfSignature,
  publishedCaPem,
  rotateSigningIdentity,
  revokeSigningIdentity,
  type Prescriber,
  type PrescriptionSignature,
  type SignatureCheck,
  type SigningSession,
} from './service.ts';
export { certificateSummary, prescriberDetails, setPrescriberCredentials, subjectAttribute, type CertificateSummary, type PrescriberDetails } from './prescriber.ts';
export { SigningCertificateSchema } from './routes.ts';
