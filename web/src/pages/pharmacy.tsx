// The pharmacy desk (docs/pharmacy.md): the queue of orders awaiting fulfilment, oldest first, with
// what dispensing needs, and a dispatch form per order (carrier, tracking number, tracking link).
// An order is also opened by its id (a shipped or undeliverable one is no longer in the queue) and
// shows the moves its status allows: deliver, undeliverable (with a reason), reship.
import { useState, type FormEvent } from 'react';
import { api, errorText, fieldErrors, type Schemas } from '../api/client';
import { pharmacyAddress } from '../components/Supply';
import { Alert, Field, LoadError, Loading, PageTitle, StatusBadge, useLoad } from '../components/ui';
import { useI18n } from '../i18n';

type Order = Schemas['PharmacyOrder'];

function address(a: Order['shipping_address']): string {
  if (!a) return '—';
  return ['street', 'line1', 'line2', 'postal_code', 'city', 'country']
    .map((k) => a[k])
    .filter((v): v is string => typeof v === 'string' && v.length > 0)
    .join(', ');
}

function DispatchForm({ order, onDone }: { order: Order; onDone: (message: string, order?: Order) => void }) {
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
    if (r.data) return onDone(t('pharmacy.dispatched'), r.data);
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

/** The moves an order's status allows, besides dispatch: deliver, undeliverable, reship. */
export function OrderActions({ order, onDone }: { order: Order; onDone: (message: string, order?: Order) => void }) {
  const { t } = useI18n();
  const [reason, setReason] = useState('');
  const [asking, setAsking] = useState(false);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const path = { params: { path: { id: order.id } } };
  async function run(move: () => Promise<{ data?: Order; error?: unknown }>, message: string) {
    setBusy(true);
    setError('');
    const r = await move();
    setBusy(false);
    if (r.data) {
      setAsking(false);
      return onDone(message, r.data);
    }
    setError(errorText(r.error, t('app.error')));
  }
  const deliver = () => run(() => api.POST('/v1/pharmacy/orders/{id}/deliver/', path), t('pharmacy.delivered'));
  const undeliverable = (e: FormEvent) => {
    e.preventDefault();
    void run(() => api.POST('/v1/pharmacy/orders/{id}/undeliverable/', { ...path, body: { reason } }), t('pharmacy.markedUndeliverable'));
  };
  const reship = () => run(() => api.POST('/v1/pharmacy/orders/{id}/reship/', path), t('pharmacy.reshipped'));
  const canUndeliver = order.status === 'awaiting_fulfilment' || order.status === 'shipped';
  const canReship = order.status === 'undeliverable' && !order.refunded_at && !order.undeliverable_reason?.startsWith('delivery_too_late');
  const id = order.id.slice(0, 8);
  return (
    <div className="actions">
      {error ? <Alert kind="error">{error}</Alert> : null}
      {order.status === 'shipped' ? (
        <button type="button" disabled={busy} onClick={() => void deliver()}>
          {t('pharmacy.deliver')}
        </button>
      ) : null}
      {canUndeliver && !asking ? (
        <button type="button" disabled={busy} onClick={() => setAsking(true)}>
          {t('pharmacy.undeliverable')}
        </button>
      ) : null}
      {canUndeliver && asking ? (
        <form onSubmit={undeliverable} aria-label={`${t('pharmacy.undeliverable')} ${id}`}>
          <Field label={t('pharmacy.undeliverableReason')} name={`reason-${id}`} value={reason} onChange={(e) => setReason(e.target.value)} required maxLength={1000} />
          <button type="submit" disabled={busy}>
            {t('pharmacy.undeliverable')}
          </button>
        </form>
      ) : null}
      {canReship ? (
        <button type="button" disabled={busy} onClick={() => void reship()}>
          {t('pharmacy.reship')}
        </button>
      ) : null}
      {order.status === 'undeliverable' && order.refunded_at ? <p className="hint">{t('pharmacy.refunded')}</p> : null}
    </div>
  );
}

function OrderFacts({ o }: { o: Order }) {
  const { t, date } = useI18n();
  const collect = o.fulfilment.method === 'collection' ? o.fulfilment.pharmacy : null;
  return (
    <dl>
      <dt>{t('pharmacy.status')}</dt>
      <dd>
        <StatusBadge status={o.status} />
        {o.attempt > 1 ? ` · ${t('orders.attempt', { n: o.attempt })}` : ''}
      </dd>
      <dt>{t('pharmacy.ordered')}</dt>
      <dd>{date(o.created_at)}</dd>
      <dt>{t('pharmacy.prescription')}</dt>
      <dd>{o.prescription ? `${o.prescription.treatment_name} ${o.prescription.dosage}` : '—'}</dd>
      <dt>{t('pharmacy.items')}</dt>
      <dd>{o.items.map((i) => `${i.quantity} × ${i.name} ${i.dosage}`).join(', ')}</dd>
      {collect ? (
        <>
          <dt>{t('pharmacy.collectAt')}</dt>
          <dd>
            {collect.name}, {pharmacyAddress(collect)}
          </dd>
        </>
      ) : (
        <>
          <dt>{t('pharmacy.address')}</dt>
          <dd>{address(o.shipping_address)}</dd>
        </>
      )}
      {o.tracking_number ? (
        <>
          <dt>{t('pharmacy.trackingNumber')}</dt>
          <dd>
            {o.carrier} {o.tracking_number}
          </dd>
        </>
      ) : null}
    </dl>
  );
}

/** Opens one order by its id (any status) and keeps the orders handled in this session. */
function OrderLookup({ handled, onHandled }: { handled: Order[]; onHandled: (message: string, order?: Order) => void }) {
  const { t } = useI18n();
  const [id, setId] = useState('');
  const [error, setError] = useState('');
  async function open(e: FormEvent) {
    e.preventDefault();
    setError('');
    const r = await api.GET('/v1/pharmacy/orders/{id}/', { params: { path: { id: id.trim() } } });
    if (r.data) return onHandled('', r.data);
    setError(errorText(r.error, t('app.error')));
  }
  return (
    <section>
      <h2>{t('pharmacy.lookup')}</h2>
      <form onSubmit={open} aria-label={t('pharmacy.lookup')}>
        {error ? <Alert kind="error">{error}</Alert> : null}
        <Field label={t('pharmacy.orderId')} name="order-id" value={id} onChange={(e) => setId(e.target.value)} required pattern="[0-9a-fA-F-]{36}" />
        <button type="submit">{t('pharmacy.open')}</button>
      </form>
      {handled.length ? (
        <>
          <h2>{t('pharmacy.recent')}</h2>
          <ul className="list">
            {handled.map((o) => (
              <li key={o.id} className="card" aria-label={`${o.patient.first_name} ${o.patient.last_name} ${o.id.slice(0, 8)}`}>
                <h3>
                  {o.patient.first_name} {o.patient.last_name}
                </h3>
                <OrderFacts o={o} />
                <OrderActions order={o} onDone={onHandled} />
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
  );
}

export function PharmacyDesk() {
  const { t } = useI18n();
  const queue = useLoad(() => api.GET('/v1/pharmacy/orders/', { params: { query: { limit: 50 } } }));
  const [done, setDone] = useState('');
  const [handled, setHandled] = useState<Order[]>([]);
  // A move's answer replaces the order in the session's list; the queue is read again.
  const moved = (message: string, order?: Order) => {
    if (message) setDone(message);
    if (order) setHandled((list) => [order, ...list.filter((x) => x.id !== order.id)]);
    queue.reload();
  };
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
            <OrderFacts o={o} />
            <DispatchForm order={o} onDone={moved} />
            <OrderActions order={o} onDone={moved} />
          </li>
        ))}
      </ul>
      <OrderLookup handled={handled} onHandled={moved} />
    </section>
  );
}
