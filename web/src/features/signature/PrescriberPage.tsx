// The doctor's prescriber details (docs/prescriptions.md): what every prescription they sign prints
// and their signing certificate names. Only the professional telephone is theirs to change; the
// qualification and the licence number are changed by the back office, which rotates the certificate.
import { useState, type FormEvent } from 'react';
import { api, errorText, fieldErrors } from '../../api/client';
import { Alert, Field, LoadError, Loading, PageTitle, useLoad } from '../../components/ui';
import { useI18n } from '../../i18n';
import { useSignatureStrings } from './strings';
import './signature.css';

export function PrescriberPage() {
  const s = useSignatureStrings();
  const { t, date } = useI18n();
  const r = useLoad(() => api.GET('/v1/clinician/prescriber/'));
  const [phone, setPhone] = useState<string | null>(null);
  const [error, setError] = useState('');
  const [saved, setSaved] = useState(false);
  if (r.error) return <LoadError error={r.error} />;
  if (!r.data) return <Loading />;
  const p = r.data;
  const value = phone ?? p.phone ?? '';
  async function save(e: FormEvent) {
    e.preventDefault();
    setSaved(false);
    setError('');
    const res = await api.PATCH('/v1/clinician/prescriber/', { body: { phone: value.trim() ? value.trim() : null } });
    if (res.data) {
      setPhone(null);
      setSaved(true);
      r.reload();
      return;
    }
    setError(fieldErrors(res.error).phone ?? errorText(res.error, t('app.error')));
  }
  return (
    <section>
      <PageTitle>{s('prescriberTitle')}</PageTitle>
      <p>{s('prescriberIntro')}</p>
      <dl className="rx-signature-facts" data-testid="prescriber-details">
        <dt>{s('name')}</dt>
        <dd>
          {p.first_name} {p.last_name}
        </dd>
        <dt>{s('email')}</dt>
        <dd>{p.email}</dd>
        <dt>{s('qualification')}</dt>
        <dd>
          {p.qualification} {p.qualification_is_default ? <span className="hint">{s('defaultNote')}</span> : null}
        </dd>
        <dt>{s('licence')}</dt>
        <dd>{p.licence_number ?? '—'}</dd>
        <dt>{s('certificate')}</dt>
        <dd>
          {p.certificate ? (
            <>
              {s(`cert_${p.certificate.status}`)}, {s('validUntil', { date: date(p.certificate.not_after) })}
              <br />
              {s('serial')}: <code>{p.certificate.serial_number}</code>
              <br />
              {s('fingerprint')}: <code className="fingerprint">{p.certificate.sha256}</code>
            </>
          ) : (
            s('noCertificate')
          )}
        </dd>
      </dl>
      <p className="hint">{s('backOffice')}</p>
      <form className="card" onSubmit={save}>
        <Field label={s('phone')} name="phone" type="tel" value={value} hint={s('phoneHint')} error={error || undefined} onChange={(e) => setPhone(e.target.value)} maxLength={32} />
        <p className="hint">{s('printed', { phone: p.phone_printed ?? '—' })}</p>
        <button type="submit">{s('save')}</button>
        {saved ? <Alert kind="success">{s('saved')}</Alert> : null}
      </form>
    </section>
  );
}

export default PrescriberPage;
