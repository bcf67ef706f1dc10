// "Verify a prescription" (docs/prescriptions.md). Public (/verify): anyone uploads the PDF and sees
// the verify endpoint's verdict (valid, by whom, when, status). The pharmacy desk (/pharmacy/verify):
// the pharmacist uploads the PDF or enters the code printed on it, sees the verdict with the patient,
// the signature and the dispensings, and records the dispensing of a waiting order (once: a second
// dispense is refused by the API with already_dispensed).
import { useState, type FormEvent } from 'react';
import { api, API_BASE, authFetch, errorText, fieldErrors, type Schemas } from '../../api/client';
import { Alert, Field, PageTitle } from '../../components/ui';
import { useI18n } from '../../i18n';
import { SignatureDetails, useVerdict, type StaffPrescription } from './DeskSignature';
import { RepeatsLine } from './RepeatsLine';
import { useSignatureStrings } from './strings';
import { useLocation } from '../../router';
import './signature.css';

type Verification = Schemas['PrescriptionVerification'];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

async function verifyFile(file: File, desk: boolean): Promise<{ data?: Verification; error?: unknown }> {
  const fd = new FormData();
  fd.append('file', file);
  const r = desk ? await authFetch('/v1/prescriptions/verify/', { method: 'POST', body: fd }) : await fetch(`${API_BASE}/v1/prescriptions/verify/`, { method: 'POST', body: fd });
  const body: unknown = await r.json().catch(() => ({}));
  return r.ok ? { data: body as Verification } : { error: body };
}

export function VerdictView({ v }: { v: Verification }) {
  const s = useSignatureStrings();
  const { dateTime } = useI18n();
  const verdict = useVerdict()(v);
  return (
    <div className="verify-result" data-testid="verify-result" role="status">
      <Alert kind={v.valid ? 'success' : 'error'}>
        <strong>{v.valid ? s('valid') : s('invalid')}</strong>
        {!v.valid && verdict ? ` — ${verdict.text}` : null}
      </Alert>
      <dl className="rx-signature-facts">
        {v.prescription_id ? (
          <>
            <dt>{s('code')}</dt>
            <dd>
              <code>{v.prescription_id}</code>
            </dd>
          </>
        ) : null}
        {v.signer ? (
          <>
            <dt>{s('signer')}</dt>
            <dd>{v.signer}</dd>
          </>
        ) : null}
        {v.signed_at ? (
          <>
            <dt>{s('signedAt')}</dt>
            <dd>{dateTime(v.signed_at)}</dd>
          </>
        ) : null}
        {v.status ? (
          <>
            <dt>{s('status')}</dt>
            <dd data-testid="verify-status">{s(`rx_${v.status}`)}</dd>
          </>
        ) : null}
      </dl>
      {v.dispensing && v.status === 'active' ? <RepeatsLine d={v.dispensing} /> : null}
    </div>
  );
}

function DispenseForm({ orderId, onDone }: { orderId: string; onDone: (message: string, ok: boolean) => void }) {
  const s = useSignatureStrings();
  const { t, dateTime } = useI18n();
  const [batch, setBatch] = useState('');
  const [expiry, setExpiry] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const short = orderId.slice(0, 8);
  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    const r = await api.POST('/v1/pharmacy/orders/{id}/dispense/', { params: { path: { id: orderId } }, body: { batch, expiry } });
    setBusy(false);
    if (r.data) return onDone(s('dispensed'), true);
    const code = (r.error as { code?: string } | undefined)?.code;
    if (code === 'already_dispensed') return onDone(s('alreadyDispensed'), false);
    const earliest = (r.error as { earliest_at?: string } | undefined)?.earliest_at;
    if (code === 'repeat_too_early' && earliest) return onDone(s('repeatTooEarly', { date: dateTime(earliest) }), false);
    setErrors(fieldErrors(r.error));
    if (!Object.keys(fieldErrors(r.error)).length) onDone(errorText(r.error, t('app.error')), false);
  }
  return (
    <form onSubmit={submit} aria-label={s('order', { id: short })} className="card">
      <h3>{s('order', { id: short })}</h3>
      <Field label={s('batch')} name={`batch-${short}`} value={batch} error={errors.batch} onChange={(e) => setBatch(e.target.value)} required maxLength={64} />
      <Field label={s('expiry')} name={`expiry-${short}`} type="date" value={expiry} error={errors.expiry} onChange={(e) => setExpiry(e.target.value)} required />
      <button type="submit" disabled={busy}>
        {s('dispense')}
      </button>
    </form>
  );
}

/** The pharmacist's view of one prescription: verdict, patient, signature, dispensings, and the dispense action. */
function DeskPrescription({ rx, onChanged }: { rx: StaffPrescription; onChanged: () => void }) {
  const s = useSignatureStrings();
  const { date } = useI18n();
  const [message, setMessage] = useState<{ text: string; ok: boolean } | null>(null);
  const d = rx.dispensing;
  return (
    <div data-testid="pharmacy-prescription">
      {rx.verification ? <VerdictView v={rx.verification} /> : <Alert kind="error">{s('unsigned')}</Alert>}
      <dl className="rx-signature-facts">
        <dt>{s('patient')}</dt>
        <dd>
          {rx.patient.first_name} {rx.patient.last_name}
          {rx.patient.date_of_birth ? `, ${s('born', { date: date(rx.patient.date_of_birth) })}` : ''}
        </dd>
        <dt>{rx.treatment_name}</dt>
        <dd>{rx.dosage}</dd>
      </dl>
      <SignatureDetails rx={rx} />
      <p data-testid="dispensing">
        {d.status === 'not_dispensed'
          ? s('disp_not_dispensed')
          : d.status === 'dispensed'
            ? s('disp_dispensed', { pharmacy: d.pharmacy?.name ?? '—', date: date(d.dispensed_at) })
            : s('disp_partly_dispensed', { count: d.dispensed_count, allowed: d.dispensings_allowed, pharmacy: d.pharmacy?.name ?? '—', date: date(d.dispensed_at) })}
      </p>
      {rx.status === 'cancelled' ? null : <RepeatsLine d={d} />}
      {message ? <Alert kind={message.ok ? 'success' : 'error'}>{message.text}</Alert> : null}
      {rx.verification?.valid && rx.verification.status === 'active' ? (
        <>
          <h2>{s('dispenseTitle')}</h2>
          {rx.orders_to_dispense.length ? (
            rx.orders_to_dispense.map((o) => (
              <DispenseForm
                key={o.id}
                orderId={o.id}
                onDone={(text, ok) => {
                  setMessage({ text, ok });
                  onChanged();
                }}
              />
            ))
          ) : (
            <p className="hint">{s('noOrders')}</p>
          )}
        </>
      ) : null}
    </div>
  );
}

/** The prescription code a printed link names (`/verify?code=<id>`), when it is one. */
function codeOfLink(query: URLSearchParams): string {
  const code = query.get('code')?.trim() ?? '';
  return UUID.test(code) ? code.toLowerCase() : '';
}

export function VerifyPrescriptionPage({ desk = false }: { desk?: boolean }) {
  const s = useSignatureStrings();
  const expected = codeOfLink(useLocation().query);
  const [file, setFile] = useState<File | null>(null);
  const [code, setCode] = useState(expected);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const [verdict, setVerdict] = useState<Verification | null>(null);
  const [rx, setRx] = useState<StaffPrescription | null>(null);

  async function lookUp(id: string): Promise<boolean> {
    const r = await api.GET('/v1/pharmacy/prescriptions/{id}/', { params: { path: { id } } });
    if (r.data) {
      setRx(r.data);
      return true;
    }
    return false;
  }

  async function checkFile(e: FormEvent) {
    e.preventDefault();
    if (!file) return;
    setBusy(true);
    setError('');
    setRx(null);
    setVerdict(null);
    const r = await verifyFile(file, desk).catch((err: unknown) => ({ error: err, data: undefined }));
    if (r.data) {
      setVerdict(r.data);
      // A valid file on the desk: the prescription its signature names (patient, dispensings, orders to dispense).
      if (desk && r.data.valid && r.data.prescription_id) await lookUp(r.data.prescription_id);
    } else setError(errorText(r.error, s('failed')));
    setBusy(false);
  }

  async function checkCode(e: FormEvent) {
    e.preventDefault();
    const id = code.trim().replace(/^prescription\s+/i, '');
    setError('');
    setRx(null);
    setVerdict(null);
    if (!UUID.test(id)) return setError(s('notFound'));
    setBusy(true);
    if (!(await lookUp(id))) setError(s('notFound'));
    setBusy(false);
  }

  return (
    <section>
      <PageTitle>{s('verifyTitle')}</PageTitle>
      <p>{desk ? s('pharmacyIntro') : s('verifyIntro')}</p>
      {expected && !desk ? (
        <p className="hint" data-testid="verify-expected">
          {s('expectedCode', { code: expected })}
        </p>
      ) : null}
      <div className="grid">
        <form className="card" onSubmit={checkFile} aria-label={s('file')}>
          <label>
            {s('file')}
            <input type="file" name="file" accept="application/pdf,.pdf" required onChange={(e) => setFile(e.target.files?.[0] ?? null)} />
          </label>
          <button type="submit" disabled={busy || !file}>
            {busy ? s('checking') : s('check')}
          </button>
        </form>
        {desk ? (
          <form className="card" onSubmit={checkCode} aria-label={s('code')}>
            <Field label={s('code')} name="code" value={code} onChange={(e) => setCode(e.target.value)} required placeholder="xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" />
            <button type="submit" disabled={busy || !code.trim()}>
              {busy ? s('checking') : s('check')}
            </button>
          </form>
        ) : null}
      </div>
      {error ? <Alert kind="error">{error}</Alert> : null}
      {verdict && expected && verdict.prescription_id && verdict.prescription_id !== expected ? <Alert kind="error">{s('codeMismatch', { code: expected })}</Alert> : null}
      {rx ? (
        <DeskPrescription rx={rx} onChanged={() => void lookUp(rx.id)} />
      ) : verdict ? (
        <VerdictView v={verdict} />
      ) : null}
    </section>
  );
}

export default VerifyPrescriptionPage;
