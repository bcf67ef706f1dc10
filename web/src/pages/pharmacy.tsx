// The pharmacy desk (docs/pharmacy.md): the queue of orders awaiting fulfilment, oldest first, with
// what dispensing needs, and a dispatch form per order (carrier, tracking number, tracking link).
import { useState, type FormEvent } from 'react';
import { api, errorText, fieldErrors, type Schemas } from '../api/client';
import { Alert, Field, LoadError, Loading, PageTitle, useLoad } from '../components/ui';
import { useI18n } from '../i18n';

type Order = Schemas['PharmacyOrder'];

function address(a: Order['shipping_address']): string {
  if (!a) return '—';
  return ['street', 'line1', 'line2', 'postal_code', 'city', 'country']
    .map((k) => a[k])
    .filter((v): v is string => typeof v === 'string' && v.length > 0)
    .join(', ');
}

function DispatchForm({ order, onDone }: { order: Order; onDone: (message: string) => void }) {
  const { t } = useI18n();
  const [carrier, setCarrier] = useState('');
  const [tracking, setTracking] = useState('');
  const [url, setUrl] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError('');
    const r = await api.POST('/v1/pharmacy/orders/{id}/dispatch/', {
      params: { path: { id: order.id } },
      body: { carrier, tracking_number: tracking, tracking_url: url.trim() ? url.trim() : null },
    });
    setBusy(false);
    if (r.data) return onDone(t('pharmacy.dispatched'));
    const code = (r.error as { code?: string } | undefined)?.code;
    if (code === 'delivery_too_late') return onDone(t('pharmacy.tooLate'));
    setErrors(fieldErrors(r.error));
    setError(errorText(r.error, t('app.error')));
  }
  const id = order.id.slice(0, 8);
  return (
    <form onSubmit={submit} aria-label={t('pharmacy.dispatchFor', { id })}>
      {error ? <Alert kind="error">{error}</Alert> : null}
      <Field label={t('pharmacy.carrier')} name={`carrier-${id}`} value={carrier} error={errors.carrier} onChange={(e) => setCarrier(e.target.value)} required />
      <Field label={t('pharmacy.trackingNumber')} name={`tracking-${id}`} value={tracking} error={errors.tracking_number} onChange={(e) => setTracking(e.target.value)} required />
      <Field label={t('pharmacy.trackingUrl')} name={`url-${id}`} type="url" value={url} error={errors.tracking_url} onChange={(e) => setUrl(e.target.value)} />
      <button type="submit" disabled={busy}>
        {t('pharmacy.dispatch')}
      </button>
    </form>
  );
}

export function PharmacyDesk() {
  const { t, date } = useI18n();
  const queue = useLoad(() => api.GET('/v1/pharmacy/orders/', { params: { query: { limit: 50 } } }));
  const [done, setDone] = useState('');
  return (
    <section>
      <PageTitle>{t('pharmacy.title')}</PageTitle>
      <p>{t('pharmacy.intro')}</p>
      {done ? <Alert kind="success">{done}</Alert> : null}
      <LoadError error={queue.error} />
      {queue.loading && !queue.data ? <Loading /> : null}
      {queue.data && !queue.data.results.length ? <p>{t('pharmacy.empty')}</p> : null}
      <ul className="list">
        {queue.data?.results.map((o) => (
          <li key={o.id} className="card">
            <h2>
              {o.patient.first_name} {o.patient.last_name}
            </h2>
            <dl>
              <dt>{t('pharmacy.ordered')}</dt>
              <dd>{date(o.created_at)}</dd>
              <dt>{t('pharmacy.prescription')}</dt>
              <dd>{o.prescription ? `${o.prescription.treatment_name} ${o.prescription.dosage}` : '—'}</dd>
              <dt>{t('pharmacy.items')}</dt>
              <dd>{o.items.map((i) => `${i.quantity} × ${i.name} ${i.dosage}`).join(', ')}</dd>
              <dt>{t('pharmacy.address')}</dt>
              <dd>{address(o.shipping_address)}</dd>
            </dl>
            <DispatchForm
              order={o}
              onDone={(m) => {
                setDone(m);
                queue.reload();
              }}
            />
          </li>
        ))}
      </ul>
    </section>
  );
}
