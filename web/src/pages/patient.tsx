// Home, consultations, prescriptions (PDF, reissue requests), payments with invoices, orders.
import { api, download, type Schemas } from '../api/client';
import { CollectAt, ReissueButton, ReissueRequests, useReissueRequests } from '../components/Supply';
import { Alert, LoadError, Loading, PageTitle, StatusBadge, useLoad } from '../components/ui';
import { useI18n } from '../i18n';
import { Link } from '../router';

export function Home() {
  const { t, date, money } = useI18n();
  const profile = useLoad(() => api.GET('/v1/users/profile/'));
  const consultations = useLoad(() => api.GET('/v1/users/consultations/', { params: { query: { limit: 3 } } }));
  const subs = useLoad(() => api.GET('/v1/users/subscriptions/', { params: { query: { limit: 50 } } }));
  const convs = useLoad(() => api.GET('/v1/users/conversations/'));
  const p = profile.data;
  // Every plan that still supplies (or will once paid or confirmed): a patient may have several.
  const plans = subs.data?.results.filter((s) => s.status !== 'canceled') ?? [];
  const latest = consultations.data?.results[0];
  const unread = convs.data?.results.reduce((n, c) => n + c.unread_count, 0) ?? 0;
  return (
    <section>
      <PageTitle>{p?.first_name ? t('home.hello', { name: p.first_name }) : t('home.title')}</PageTitle>
      <LoadError error={profile.error} />
      {unread > 0 ? (
        <Alert>
          <Link to="/messages">{t('home.unread', { n: unread })}</Link>
        </Alert>
      ) : null}
      <div className="grid">
        <article className="card">
          <h2>{plans.length > 1 ? t('home.plans') : t('home.plan')}</h2>
          {subs.loading && !subs.data ? <Loading /> : null}
          {plans.length ? (
            <ul className="list" data-testid="home-plans">
              {plans.map((plan) => (
                <li key={plan.id}>
                  <p>
                    <StatusBadge status={plan.status} /> {plan.category.replace(/_/g, ' ')}: {plan.treatment_id} {plan.dosage}
                  </p>
                  <p>{t('plan.price', { price: money(plan.price_cents, plan.currency), days: plan.cycle_days })}</p>
                  {plan.status === 'active' && !plan.cancel_at_period_end ? <p>{t('home.nextRenewal', { date: date(plan.current_period_end) })}</p> : null}
                </li>
              ))}
            </ul>
          ) : subs.data ? (
            <p>{t('home.noPlan')}</p>
          ) : null}
          {plans.length ? (
            <p>
              <Link to="/plan">{t('nav.plan')}</Link> · <Link to="/renewal">{t('nav.renewal')}</Link>
            </p>
          ) : null}
        </article>
        <article className="card">
          <h2>{t('home.latest')}</h2>
          {latest ? (
            <>
              <p>
                <StatusBadge status={latest.status} /> <RefundNote payments={latest.payments} /> {latest.treatment_id} {latest.dosage}
              </p>
              <p>{date(latest.created_at)}</p>
              <Link to={`/consultations/${latest.id}`}>{t('consultations.open')}</Link>
            </>
          ) : consultations.data ? (
            <p>{t('app.none')}</p>
          ) : null}
        </article>
        <article className="card">
          <h2>{t('home.next')}</h2>
          <ul>
            {p && (!p.date_of_birth || !p.country_of_residence) ? (
              <li>
                <Link to="/profile">{t('home.completeProfile')}</Link>
              </li>
            ) : null}
            <li>
              <Link to="/treatments">{t('home.start')}</Link>
            </li>
            {plans.length ? (
              <li>
                <Link to="/journal">{t('nav.journal')}</Link>
              </li>
            ) : null}
          </ul>
        </article>
      </div>
    </section>
  );
}

export function Consultations() {
  const { t, date } = useI18n();
  const list = useLoad(() => api.GET('/v1/users/consultations/', { params: { query: { limit: 50 } } }));
  return (
    <section>
      <PageTitle>{t('consultations.title')}</PageTitle>
      <LoadError error={list.error} />
      {list.loading && !list.data ? <Loading /> : null}
      {list.data && !list.data.results.length ? <p>{t('app.none')}</p> : null}
      <ul className="list">
        {list.data?.results.map((c) => (
          <li key={c.id}>
            <Link to={`/consultations/${c.id}`}>
              {c.category.replace(/_/g, ' ')} · {date(c.created_at)}
            </Link>{' '}
            <StatusBadge status={c.status} /> <RefundNote payments={c.payments} />
          </li>
        ))}
      </ul>
    </section>
  );
}

type Consultation = Schemas['Consultation'];

/**
 * What happened to the money of a consultation: a rejected or expired review is refunded, and the
 * patient reads that next to the status ("Not approved · refunded in full (25,00 €)").
 */
function RefundNote({ payments }: { payments: Consultation['payments'] }) {
  const { t, money } = useI18n();
  const refunded = payments.filter((p) => p.refunded_amount_cents > 0);
  if (!refunded.length) return null;
  const full = refunded.every((p) => p.refunded_amount_cents >= p.amount_cents);
  const total = refunded.reduce((n, p) => n + p.refunded_amount_cents, 0);
  const amount = money(total, refunded[0]!.currency);
  return <span className="badge badge-refunded" data-testid="refund-note">{full ? t('consultations.refundedFull', { amount }) : t('consultations.refundedPart', { amount })}</span>;
}

export function ConsultationDetail({ id }: { id: string }) {
  const { t, date } = useI18n();
  const c = useLoad<Consultation>(() => api.GET('/v1/users/consultations/{id}/', { params: { path: { id } } }), [id]);
  if (c.error) return <Alert kind="error">{t('app.notFound')}</Alert>;
  if (!c.data) return <Loading />;
  const x = c.data;
  return (
    <section>
      <PageTitle>{`${t('consultations.title')}: ${x.category.replace(/_/g, ' ')}`}</PageTitle>
      <dl className="facts">
        <dt>{t('consultations.status')}</dt>
        <dd>
          <StatusBadge status={x.status} /> <RefundNote payments={x.payments} />
        </dd>
        <dt>{t('consultations.created')}</dt>
        <dd>{date(x.created_at)}</dd>
        {x.decided_at ? (
          <>
            <dt>{t('consultations.decided')}</dt>
            <dd>{date(x.decided_at)}</dd>
          </>
        ) : null}
        <dt>{t('consultations.treatment')}</dt>
        <dd>
          {x.treatment_id} {x.dosage}
        </dd>
        {x.decision_reason ? (
          <>
            <dt>{t('consultations.reason')}</dt>
            <dd>{x.decision_reason}</dd>
          </>
        ) : null}
      </dl>
      {x.status === 'needs_information' ? (
        <Alert>
          <Link to="/messages">{t('nav.messages')}</Link>
        </Alert>
      ) : null}
      {x.prescriptions.length ? (
        <>
          <h2>{t('prescriptions.title')}</h2>
          <PrescriptionList items={x.prescriptions as any} />
        </>
      ) : null}
    </section>
  );
}

type Prescription = Schemas['Prescription'];

function PrescriptionList({ items, reissue }: { items: Prescription[]; reissue?: { pending: Set<string>; onDone: () => void } }) {
  const { t, date } = useI18n();
  return (
    <ul className="list">
      {items.map((p) => (
        <li key={p.id}>
          <strong>
            {p.treatment_name} {p.dosage}
          </strong>{' '}
          · {t('prescriptions.issued', { date: date(p.issued_at) })}{' '}
          <button type="button" className="link" onClick={() => void download(`/v1/users/prescriptions/${p.id}/pdf/`, `prescription-${p.id}.pdf`)}>
            {t('prescriptions.pdf')}
          </button>
          {reissue ? (
            <>
              {' '}
              <ReissueButton prescription={p} pending={reissue.pending.has(p.id)} onDone={reissue.onDone} />
            </>
          ) : null}
          {p.instructions ? <p className="hint">{p.instructions}</p> : null}
        </li>
      ))}
    </ul>
  );
}

export function Prescriptions() {
  const { t } = useI18n();
  const list = useLoad(() => api.GET('/v1/users/prescriptions/', { params: { query: { limit: 50 } } }));
  const requests = useReissueRequests();
  const pending = new Set((requests.data?.results ?? []).filter((r) => r.status === 'pending').map((r) => r.prescription_id));
  return (
    <section>
      <PageTitle>{t('prescriptions.title')}</PageTitle>
      <LoadError error={list.error} />
      {list.loading && !list.data ? <Loading /> : null}
      {list.data && !list.data.results.length ? <p>{t('app.none')}</p> : null}
      {list.data ? <PrescriptionList items={list.data.results as Prescription[]} reissue={{ pending, onDone: requests.reload }} /> : null}
      <ReissueRequests requests={requests.data?.results ?? []} prescriptions={(list.data?.results ?? []) as Prescription[]} />
    </section>
  );
}

export function Payments() {
  const { t, date, money } = useI18n();
  const list = useLoad(() => api.GET('/v1/users/payments/', { params: { query: { limit: 50 } } }));
  return (
    <section>
      <PageTitle>{t('payments.title')}</PageTitle>
      <LoadError error={list.error} />
      {list.loading && !list.data ? <Loading /> : null}
      {list.data && !list.data.results.length ? <p>{t('app.none')}</p> : null}
      {list.data?.results.length ? (
        <table>
          <thead>
            <tr>
              <th scope="col">{t('payments.date')}</th>
              <th scope="col">{t('payments.amount')}</th>
              <th scope="col">{t('consultations.status')}</th>
              <th scope="col">{t('payments.invoice')}</th>
            </tr>
          </thead>
          <tbody>
            {list.data.results.map((p) => (
              <tr key={p.id}>
                <td>{date(p.captured_at ?? p.created_at)}</td>
                <td>{money(p.amount_cents, p.currency)}</td>
                <td>
                  <StatusBadge status={p.status} />
                </td>
                <td>
                  <button type="button" className="link" onClick={() => void download(new URL(p.invoice_url).pathname, `invoice-${p.id}.pdf`)}>
                    {t('app.download')}
                    <span className="visually-hidden"> {t('payments.invoice')} {date(p.created_at)}</span>
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}

export function Orders() {
  const { t, date } = useI18n();
  const list = useLoad(() => api.GET('/v1/users/orders/'));
  return (
    <section>
      <PageTitle>{t('orders.title')}</PageTitle>
      <LoadError error={list.error} />
      {list.loading && !list.data ? <Loading /> : null}
      {list.data && !list.data.length ? <p>{t('app.none')}</p> : null}
      <ul className="list">
        {list.data?.map((o) => (
          <li key={o.id}>
            {date(o.created_at)} · {o.items.map((i) => `${i.name} ${i.dosage}`).join(', ')} <StatusBadge status={o.status} />
            {o.attempt > 1 ? ` · ${t('orders.attempt', { n: o.attempt })}` : null}
            <CollectAt fulfilment={o.fulfilment} />
            {o.carrier || o.shipped_at || o.delivered_at ? (
              <p className="order-tracking">
                {[o.carrier ? t('orders.carrier', { carrier: o.carrier }) : '', o.shipped_at ? t('orders.shippedOn', { date: date(o.shipped_at) }) : '', o.delivered_at ? t('orders.deliveredOn', { date: date(o.delivered_at) }) : '']
                  .filter(Boolean)
                  .join(' · ')}
                {o.tracking_url && /^https?:\/\//i.test(o.tracking_url) ? (
                  <>
                    {' · '}
                    <a href={o.tracking_url} rel="noopener noreferrer" target="_blank">
                      {t('orders.trackingLink', { number: o.tracking_number ?? '' })}
                    </a>
                  </>
                ) : o.tracking_number ? (
                  ` · ${o.tracking_number}`
                ) : null}
              </p>
            ) : null}
          </li>
        ))}
      </ul>
    </section>
  );
}
