// Supply pieces of the patient's app (docs/pharmacy.md): the delivery-or-collection choice at
// checkout and renewal (nearby partner pharmacies from GET /v1/users/pharmacies/), where to collect
// an order, and prescription reissue requests (the list and the request form).
import { useState, type FormEvent } from 'react';
import { api, errorText, type Schemas } from '../api/client';
import { Alert, Loading, StatusBadge, TextArea, useLoad } from './ui';
import { useI18n } from '../i18n';

export type FulfilmentChoice = Schemas['FulfilmentChoiceInput'];
type Pharmacy = Schemas['Pharmacy'];
type ReissueRequest = Schemas['PrescriptionReissueRequest'];
type Prescription = Schemas['Prescription'];

export const pharmacyAddress = (p: Pharmacy) => [p.address_line, `${p.postal_code} ${p.city}`].join(', ');

/**
 * Delivery (the default) or collection at a nearby partner pharmacy offering click-and-collect.
 * `value` undefined means delivery; a collection without a chosen pharmacy is not a choice yet.
 */
export function FulfilmentPicker({ value, onChange }: { value: FulfilmentChoice | undefined; onChange: (v: FulfilmentChoice | undefined) => void }) {
  const { t } = useI18n();
  const collecting = value?.method === 'collection';
  const [open, setOpen] = useState(collecting);
  return (
    <fieldset>
      <legend>{t('supply.fulfilment')}</legend>
      <label className="choice">
        <input
          type="radio"
          name="fulfilment"
          value="delivery"
          checked={!open}
          onChange={() => {
            setOpen(false);
            onChange(undefined);
          }}
        />
        <span>{t('supply.delivery')}</span>
      </label>
      <label className="choice">
        <input type="radio" name="fulfilment" value="collection" checked={open} onChange={() => setOpen(true)} />
        <span>{t('supply.collection')}</span>
      </label>
      {open ? <PharmacyChoices chosen={collecting ? value.pharmacy_id : undefined} onChoose={(id) => onChange({ method: 'collection', pharmacy_id: id })} /> : null}
    </fieldset>
  );
}

function PharmacyChoices({ chosen, onChoose }: { chosen: string | undefined; onChoose: (id: string) => void }) {
  const { t } = useI18n();
  const list = useLoad(() => api.GET('/v1/users/pharmacies/', { params: { query: { near: 'profile', service: 'click_and_collect', limit: 10 } } }));
  if (list.loading && !list.data) return <Loading />;
  // 400 {near}: the profile has no postal code or city to rank by.
  if (list.error) return <Alert kind="info">{(list.error as { near?: unknown }).near ? t('supply.needLocation') : t('app.error')}</Alert>;
  const results = list.data?.results ?? [];
  if (!results.length) return <p>{t('supply.noPharmacies')}</p>;
  return (
    <div role="radiogroup" aria-label={t('supply.choosePharmacy')}>
      {chosen ? null : <p className="hint">{t('supply.choosePharmacy')}</p>}
      {results.map((p) => (
        <label key={p.id} className="choice">
          <input type="radio" name="pharmacy" value={p.id} checked={chosen === p.id} onChange={() => onChoose(p.id)} />
          <span>
            <strong>{p.name}</strong> · {pharmacyAddress(p)}
          </span>
        </label>
      ))}
    </div>
  );
}

/** Where a collection order is collected (nothing for a delivery). */
export function CollectAt({ fulfilment }: { fulfilment: Schemas['OrderFulfilment'] | undefined }) {
  const { t } = useI18n();
  const p = fulfilment?.method === 'collection' ? fulfilment.pharmacy : null;
  if (!p) return null;
  return <p className="order-collect">{t('orders.collectAt', { name: p.name, address: pharmacyAddress(p) })}</p>;
}

/** The account's reissue requests, newest first. */
export function ReissueRequests({ requests, prescriptions }: { requests: ReissueRequest[]; prescriptions: Prescription[] }) {
  const { t, date } = useI18n();
  if (!requests.length) return null;
  const name = (id: string) => {
    const p = prescriptions.find((x) => x.id === id);
    return p ? `${p.treatment_name} ${p.dosage}` : id.slice(0, 8);
  };
  return (
    <>
      <h2>{t('reissue.title')}</h2>
      <ul className="list">
        {requests.map((r) => (
          <li key={r.id}>
            {date(r.created_at)} · {t('reissue.for', { name: name(r.prescription_id) })}{' '}
            {r.status === 'pending' ? <span className="badge badge-pending">{t('reissue.pending')}</span> : <StatusBadge status={r.status === 'declined' ? 'rejected' : r.status} />}
            {r.status === 'declined' && r.decision_reason ? <p className="hint">{t('reissue.declined', { reason: r.decision_reason })}</p> : null}
          </li>
        ))}
      </ul>
    </>
  );
}

/**
 * "Request a reissue" for one prescription: shown while it is still valid, replaced by the pending
 * state while a request waits for a doctor.
 */
export function ReissueButton({ prescription, pending, now: nowProp, onDone }: { prescription: Prescription; pending: boolean; now?: number; onDone: () => void }) {
  const { t } = useI18n();
  // The clock is read once, when the button is first shown (rendering stays pure).
  const [shownAt] = useState(() => Date.now());
  const now = nowProp ?? shownAt;
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  if (pending) return <span className="badge badge-pending">{t('reissue.pending')}</span>;
  if (!prescription.valid_until || new Date(prescription.valid_until).getTime() <= now) return null;
  if (!open) {
    return (
      <button type="button" className="link" onClick={() => setOpen(true)}>
        {t('reissue.request')}
      </button>
    );
  }
  async function send(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError('');
    const r = await api.POST('/v1/users/prescriptions/{id}/reissue-requests/', { params: { path: { id: prescription.id } }, body: { reason } });
    setBusy(false);
    if (r.data) {
      setOpen(false);
      onDone();
      return;
    }
    const code = (r.error as { code?: string } | undefined)?.code;
    setError(code === 'reissue_request_pending' ? t('reissue.alreadyPending') : code === 'prescription_not_reissuable' ? t('reissue.notReissuable') : errorText(r.error, t('app.error')));
  }
  return (
    <form onSubmit={send} aria-label={t('reissue.request')}>
      {error ? <Alert kind="error">{error}</Alert> : null}
      <TextArea label={t('reissue.reason')} name={`reissue-${prescription.id.slice(0, 8)}`} value={reason} onChange={(e) => setReason(e.target.value)} required maxLength={2000} />
      <button type="submit" disabled={busy}>
        {t('reissue.send')}
      </button>
    </form>
  );
}

/** The prescriptions page's reissue part: requests loaded once, reloaded after a new one. */
export function useReissueRequests() {
  return useLoad(() => api.GET('/v1/users/prescriptions/reissue-requests/', { params: { query: { limit: 50 } } }));
}

