// The patient's view of a prescription's signature (docs/prescriptions.md): signed electronically by
// whom and when, cancelled by a reissue, where and when it was dispensed, and a link to the page that
// verifies a prescription PDF.
import { api } from '../../api/client';
import { useLoad } from '../../components/ui';
import { useI18n } from '../../i18n';
import { Link } from '../../router';
import { RepeatOrder } from './RepeatOrder';
import { RepeatsLine } from './RepeatsLine';
import { useSignatureStrings } from './strings';
import './signature.css';

export function PrescriptionSignatureLine({ id }: { id: string }) {
  const s = useSignatureStrings();
  const { dateTime, date } = useI18n();
  const r = useLoad(() => api.GET('/v1/users/prescriptions/{id}/', { params: { path: { id } } }), [id]);
  const rx = r.data;
  if (!rx) return null;
  const d = rx.dispensing;
  const where = d.pharmacy?.name ?? '—';
  return (
    <div className="rx-signature-line" data-testid="rx-patient-signature">
      {rx.signature ? (
        <p>
          <span className="badge badge-ok">✓</span> {s('patientSigned', { name: rx.signature.signer, date: dateTime(rx.signature.signed_at) })} (PAdES {rx.signature.level}){' '}
          <Link to={`/verify?code=${encodeURIComponent(rx.id)}`}>{s('verifyLink')}</Link>
        </p>
      ) : (
        <p className="hint">{s('patientUnsigned')}</p>
      )}
      {rx.status === 'cancelled' ? <p className="hint">{s('cancelled')}</p> : null}
      <p className="hint">
        {d.status === 'not_dispensed'
          ? s('disp_not_dispensed')
          : d.status === 'dispensed'
            ? s('disp_dispensed', { pharmacy: where, date: date(d.dispensed_at) })
            : s('disp_partly_dispensed', { count: d.dispensed_count, allowed: d.dispensings_allowed, pharmacy: where, date: date(d.dispensed_at) })}
      </p>
      {rx.status === 'cancelled' ? null : <RepeatsLine d={d} />}
      <RepeatOrder rx={rx} />
    </div>
  );
}
