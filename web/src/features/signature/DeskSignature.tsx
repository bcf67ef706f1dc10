// A prescription's signature as the desks show it (docs/prescriptions.md): signed by whom (name,
// qualification and licence as the certificate names them), when, the certificate (serial number,
// SHA-256 fingerprint, expiry) and whether the stored file verifies now (a revoked certificate: no).
import { api, type Schemas } from '../../api/client';
import { LoadError, Loading, useLoad } from '../../components/ui';
import { useI18n } from '../../i18n';
import { Link } from '../../router';
import { useSignatureStrings, type SignatureKey } from './strings';
import './signature.css';

export type StaffPrescription = Schemas['StaffPrescription'];

/** "Valid", "Revoked" or "Not valid: <why>" for a verification (null: unsigned). */
export function useVerdict() {
  const s = useSignatureStrings();
  return (v: StaffPrescription['verification'] | Schemas['PrescriptionVerification'] | null | undefined): { ok: boolean; text: string } | null => {
    if (!v) return null;
    if (v.valid) return { ok: true, text: s('sigValid') };
    if (v.reason === 'certificate_revoked') return { ok: false, text: s('sigRevoked') };
    return { ok: false, text: s('sigInvalid', { reason: v.reason ? s(`reason_${v.reason}` as SignatureKey) : '—' }) };
  };
}

export function SignatureDetails({ rx }: { rx: StaffPrescription }) {
  const s = useSignatureStrings();
  const { dateTime, date } = useI18n();
  const verdict = useVerdict()(rx.verification);
  const sig = rx.signature;
  if (!sig) return <p className="hint" data-testid="rx-signature-none">{s('unsigned')}</p>;
  return (
    <div className="rx-signature" data-testid="rx-signature">
      <p className="rx-signed-by">
        <strong>{s('signedBy', { name: sig.signer, qualification: sig.qualification ?? '—', date: dateTime(sig.signed_at) })}</strong>{' '}
        {verdict ? (
          <span className={`badge ${verdict.ok ? 'badge-ok' : 'badge-bad'}`} data-testid="rx-signature-status">
            {verdict.text}
          </span>
        ) : null}
      </p>
      {rx.status === 'cancelled' ? <p className="hint">{s('cancelled')}</p> : null}
      <dl className="rx-signature-facts">
        {sig.licence_number ? (
          <>
            <dt>{s('licence')}</dt>
            <dd>{sig.licence_number}</dd>
          </>
        ) : null}
        <dt>{s('level')}</dt>
        <dd>PAdES {sig.level}</dd>
        <dt>{s('certificate')}</dt>
        <dd>
          {s(`cert_${sig.certificate.status}`)}, {s('validUntil', { date: date(sig.certificate.not_after) })}
        </dd>
        <dt>{s('serial')}</dt>
        <dd>
          <code>{sig.certificate.serial_number}</code>
        </dd>
        <dt>{s('fingerprint')}</dt>
        <dd>
          <code className="fingerprint">{sig.certificate.sha256}</code>
        </dd>
      </dl>
    </div>
  );
}

function DeskSignature({ id }: { id: string }) {
  const r = useLoad(() => api.GET('/v1/clinician/prescriptions/{id}/', { params: { path: { id } } }), [id]);
  if (r.error) return <LoadError error={r.error} />;
  if (!r.data) return <Loading />;
  return <SignatureDetails rx={r.data} />;
}

/** The consultation's prescriptions' signatures on the doctor's consultation page (nothing before approval). */
export function DeskSignatures({ prescriptionIds }: { prescriptionIds: string[] }) {
  const s = useSignatureStrings();
  if (!prescriptionIds.length) return null;
  return (
    <section aria-labelledby="rx-signature-title">
      <h2 id="rx-signature-title">{s('deskTitle')}</h2>
      {prescriptionIds.map((id) => (
        <DeskSignature key={id} id={id} />
      ))}
      <p className="hint">
        <Link to="/desk/prescriber">{s('prescriberTitle')}</Link>
      </p>
    </section>
  );
}
