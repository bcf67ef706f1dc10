// Home, consultations, prescriptions (PDF, reissue requests), payments with invoices, orders.
import { api, download, type Schemas } from '../api/client';
import { CollectAt, ReissueButton, ReissueRequests, useReissueRequests } from '../components/Supply';
import { Alert, LoadError, Loading, PageTitle, StatusBadge, useLoad } from '../components/ui';
import { useCatalogue } from '../components/catalogue';
import { useI18n } from '../i18n';
import { Link } from '../router';
import { MissingVerification, missingVerification } from '../features/verification/MissingCard';
import { loadVerification } from '../features/verification/api';
import { ConsultationPhotos } from '../features/photos/AddConsultationPhoto';
import { PrescriptionSignatureLine } from '../features/signature/PrescriptionSignatureLine';
import { BookCallCard } from '../features/appointments/pages';

type Consultation = Schemas['Consultation'];
type Order = Schemas['Order'];
type SubmissionSummary = Schemas['QuestionnaireSubmissionSummary'];
type Subscription = Schemas['Subscription'];

/** What the patient does next about a consultation (null: nothing, the doctor or pharmacy acts). */
export function consultationStep(c: Pick<Consultation, 'id' | 'status'>, order: Order | undefined): { key: 'answer' | 'track' | 'order' | 'why' | 'review'; to: string; external?: boolean } | null {
  if (c.status === 'needs_information') return { key: 'answer', to: '/messages' };
  if (c.status === 'pending_review') return { key: 'review', to: `/consultations/${c.id}` };
  if (c.status === 'approved') {
    if (order?.status === 'delivered') return null;
    if (order?.tracking_url && /^https?:\/\//i.test(order.tracking_url)) return { key: 'track', to: order.tracking_url, external: true };
    return { key: 'order', to: '/orders' };
  }
  return { key: 'why', to: `/consultations/${c.id}` };
}

/** What the patient does next about a plan. */
export function planStep(plan: Pick<Subscription, 'status' | 'cancel_at_period_end'>): { key: 'payPlan' | 'renew' | 'resume' | 'restart'; to: string } | null {
  if (plan.status === 'past_due') return { key: 'payPlan', to: '/plan' };
  if (plan.status === 'paused') return { key: 'resume', to: '/plan' };
  if (plan.status === 'active' && plan.cancel_at_period_end) return { key: 'restart', to: '/plan' };
  if (plan.status === 'active') return { key: 'renew', to: '/renewal' };
  return null;
}

/**
 * A questionnaire outcome still waiting for payment: eligible (or held for a doctor) and no
 * consultation of its category started since.
 */
export function unpaidOutcomes(submissions: SubmissionSummary[], consultations: Pick<Consultation, 'category' | 'created_at'>[]): SubmissionSummary[] {
  const latest = new Map<string, SubmissionSummary>();
  for (const s of submissions) if (!latest.has(s.category)) latest.set(s.category, s); // newest first
  return [...latest.values()].filter(
    (s) => (s.outcome === 'eligible' || s.outcome === 'held_for_review') && !consultations.some((c) => c.category === s.category && Date.parse(c.created_at) >= Date.parse(s.created_at)),
  );
}

function StepLink({ step }: { step: { key: string; to: string; external?: boolean } }) {
  const { t } = useI18n();
  const text = t(`home.step.${step.key}` as 'home.step.pay');
  if (step.external)
    return (
      <a href={step.to} rel="noopener noreferrer" target="_blank">
        {text}
      </a>
    );
  return <Link to={step.to}>{text}</Link>;
}

export function Home() {
  const { t, date, money, locale } = useI18n();
  const profile = useLoad(() => api.GET('/v1/users/profile/'));
  const consultations = useLoad(() => api.GET('/v1/users/consultations/', { params: { query: { limit: 50 } } }));
  const submissions = useLoad(() => api.GET('/v1/users/questionnaires/submissions/', { params: { query: { limit: 50, locale } } }), [locale]);
  const subs = useLoad(() => api.GET('/v1/users/subscriptions/', { params: { query: { limit: 50 } } }));
  const orders = useLoad(() => api.GET('/v1/users/orders/'));
  const convs = useLoad(() => api.GET('/v1/users/conversations/'));
  const p = profile.data;
  // Every plan that still supplies (or will once paid or confirmed): a patient may have several.
  const plans = subs.data?.results.filter((s) => s.status !== 'canceled') ?? [];
  const list = (consultations.data?.results ?? []) as Consultation[];
  const unpaid = unpaidOutcomes(submissions.data?.results ?? [], list);
  const cat = useCatalogue([...plans.map((x) => x.category), ...list.map((c) => c.category), ...unpaid.map((s) => s.category)]);
  const orderOf = (id: string) => orders.data?.find((o) => o.consultation_id === id);
  const verification = useLoad(loadVerification);
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
        <MissingVerification missing={missingVerification(verification.data, [...plans.map((x) => x.category), ...list.map((c) => c.category), ...unpaid.map((x) => x.category)])} />
        <article className="card">
          <h2>{plans.length > 1 ? t('home.plans') : t('home.plan')}</h2>
          {subs.loading && !subs.data ? <Loading /> : null}
          {plans.length ? (
            <ul className="list" data-testid="home-plans">
              {plans.map((plan) => {
                const step = planStep(plan);
                return (
                  <li key={plan.id}>
                    <p>
                      <strong>{cat.category(plan.category)}</strong>: {cat.treatment(plan.category, plan.treatment_id, plan.dosage)} <StatusBadge status={plan.status} />
                    </p>
                    <p>{t('plan.price', { price: money(plan.price_cents, plan.currency), days: plan.cycle_days })}</p>
                    {plan.status === 'active' && !plan.cancel_at_period_end ? <p>{t('home.nextRenewal', { date: date(plan.current_period_end) })}</p> : null}
                    {plan.status === 'active' && plan.cancel_at_period_end ? <p>{t('home.endsOn', { date: date(plan.current_period_end) })}</p> : null}
                    {step ? (
                      <p className="next-step">
                        <StepLink step={step} />
                      </p>
                    ) : null}
                  </li>
                );
              })}
            </ul>
          ) : subs.data ? (
            <p>{t('home.noPlan')}</p>
          ) : null}
        </article>
        <article className="card">
          <h2>{t('home.consultations')}</h2>
          {consultations.loading && !consultations.data ? <Loading /> : null}
          {list.length || unpaid.length ? (
            <ul className="list" data-testid="home-consultations">
              {unpaid.map((s) => (
                <li key={s.id}>
                  <p>
                    <strong>{cat.category(s.category)}</strong> <StatusBadge status={s.outcome} /> · {date(s.created_at)}
                  </p>
                  <p className="next-step">
                    <Link to={`/questionnaire/${s.category}?pay=${s.id}`}>{t('home.step.pay')}</Link>
                  </p>
                </li>
              ))}
              {list.map((c) => {
                const step = consultationStep(c, orderOf(c.id));
                return (
                  <li key={c.id}>
                    <p>
                      <Link to={`/consultations/${c.id}`}>
                        <strong>{cat.category(c.category)}</strong>
                      </Link>{' '}
                      <StatusBadge status={c.status} /> <RefundNote payments={c.payments} /> · {date(c.created_at)}
                    </p>
                    {c.treatment_id ? <p>{cat.treatment(c.category, c.treatment_id, c.dosage)}</p> : null}
                    {step ? (
                      <p className="next-step">
                        {step.key !== 'review' ? (
                          <StepLink step={step} />
                        ) : missingVerification(verification.data, [c.category]).size ? (
                          // The doctor cannot decide before the verification: say what to do, not "nothing".
                          <Link to="/verification">{t('home.step.verify')}</Link>
                        ) : (
                          t('home.step.review')
                        )}
                      </p>
                    ) : null}
                  </li>
                );
              })}
            </ul>
          ) : consultations.data ? (
            <p>{t('app.none')}</p>
          ) : null}
          <p>
            <Link to="/consultations">{t('home.history')}</Link>
          </p>
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
            {plans.length ? (
              <li>
                <Link to="/plan">{t('nav.plan')}</Link>
              </li>
            ) : null}
          </ul>
        </article>
      </div>
    </section>
  );
}

/** The consultation history: consultations and the questionnaire outcomes that never became one ("not suitable"). */
export function Consultations() {
  const { t, locale } = useI18n();
  const list = useLoad(() => api.GET('/v1/users/consultations/', { params: { query: { limit: 50 } } }));
  const subs = useLoad(() => api.GET('/v1/users/questionnaires/submissions/', { params: { query: { limit: 50, locale } } }), [locale]);
  const consultations = (list.data?.results ?? []) as Consultation[];
  // Outcomes with no consultation: ineligible and emergency (never paid), shown with their reasons.
  const outcomes = (subs.data?.results ?? []).filter((s) => s.outcome === 'ineligible' || s.outcome === 'emergency');
  const cat = useCatalogue([...consultations.map((c) => c.category), ...outcomes.map((s) => s.category)]);
  const rows = [
    ...consultations.map((c) => ({ at: c.created_at, key: c.id, node: <ConsultationRow c={c} label={cat.category(c.category)} /> })),
    ...outcomes.map((s) => ({ at: s.created_at, key: s.id, node: <OutcomeRow s={s} label={cat.category(s.category)} /> })),
  ].sort((a, b) => b.at.localeCompare(a.at));
  return (
    <section>
      <PageTitle>{t('consultations.title')}</PageTitle>
      <LoadError error={list.error ?? subs.error} />
      {list.loading && !list.data ? <Loading /> : null}
      {list.data && subs.data && !rows.length ? <p>{t('app.none')}</p> : null}
      <ul className="list" data-testid="consultation-history">
        {rows.map((r) => (
          <li key={r.key}>{r.node}</li>
        ))}
      </ul>
    </section>
  );
}

function ConsultationRow({ c, label }: { c: Consultation; label: string }) {
  const { date } = useI18n();
  return (
    <>
      <Link to={`/consultations/${c.id}`}>
        {label} · {date(c.created_at)}
      </Link>{' '}
      <StatusBadge status={c.status} /> <RefundNote payments={c.payments} />
    </>
  );
}

function OutcomeRow({ s, label }: { s: SubmissionSummary; label: string }) {
  const { t, date } = useI18n();
  return (
    <>
      <strong>{label}</strong> · {date(s.created_at)} <StatusBadge status={s.outcome} />
      {s.reasons.length ? (
        <ul className="compact">
          {s.reasons.map((r) => (
            <li key={r.code}>{r.message}</li>
          ))}
        </ul>
      ) : null}
      {s.alternative ? <p className="hint">{s.alternative.message}</p> : null}
      <p className="hint">{t('history.notSuitableNote')}</p>
    </>
  );
}

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

/**
 * The consultation's path with the dates the API gives: submitted (the questionnaire), paid (the
 * captured payment; a plan-covered one says so), with the doctor (the consultation opens in the
 * review queue once paid), decided, dispatched and delivered (its order).
 */
export function timeline(x: Consultation, order: Order | undefined): { key: 'submitted' | 'paid' | 'review' | 'decided' | 'dispatched' | 'delivered'; at: string | null; note?: 'covered' }[] {
  const paid = x.payments.find((p) => p.captured_at)?.captured_at ?? null;
  const covered = !x.payments.length && x.origin !== 'checkout';
  return [
    { key: 'submitted', at: x.questionnaire_submission?.submitted_at ?? x.created_at },
    covered ? { key: 'paid', at: x.created_at, note: 'covered' } : { key: 'paid', at: paid },
    { key: 'review', at: x.created_at },
    { key: 'decided', at: x.decided_at },
    { key: 'dispatched', at: order?.shipped_at ?? null },
    { key: 'delivered', at: order?.delivered_at ?? null },
  ];
}

export function ConsultationDetail({ id }: { id: string }) {
  const { t, date } = useI18n();
  const c = useLoad<Consultation>(() => api.GET('/v1/users/consultations/{id}/', { params: { path: { id } } }), [id]);
  const orders = useLoad(() => api.GET('/v1/users/orders/'), [id]);
  const cat = useCatalogue(c.data ? [c.data.category] : []);
  if (c.error) return <Alert kind="error">{t('app.notFound')}</Alert>;
  if (!c.data) return <Loading />;
  const x = c.data;
  const order = orders.data?.find((o) => o.consultation_id === x.id);
  const steps = timeline(x, order);
  const decidedLabel = x.status === 'approved' ? t('timeline.approved') : x.status === 'rejected' || x.status === 'refunded' ? t('timeline.rejected') : x.status === 'cancelled' ? t('status.cancelled') : t('timeline.decided');
  return (
    <section>
      <PageTitle>{`${t('consultations.title')}: ${cat.category(x.category)}`}</PageTitle>
      <dl className="facts">
        <dt>{t('consultations.status')}</dt>
        <dd>
          <StatusBadge status={x.status} /> <RefundNote payments={x.payments} />
        </dd>
        <dt>{t('consultations.doctor')}</dt>
        <dd data-testid="doctor">{x.doctor ? `${x.doctor.first_name} ${x.doctor.last_name}`.trim() : t('consultations.doctorPending')}</dd>
        {x.treatment_id ? (
          <>
            <dt>{t('consultations.treatment')}</dt>
            <dd>{cat.treatment(x.category, x.treatment_id, x.dosage)}</dd>
          </>
        ) : null}
        {x.decision_reason ? (
          <>
            <dt>{t('consultations.reason')}</dt>
            <dd>{x.decision_reason}</dd>
          </>
        ) : null}
      </dl>
      {x.status === 'needs_information' ? (
        <Alert>
          <Link to="/messages">{t('home.step.answer')}</Link>
        </Alert>
      ) : null}
      {x.status === 'awaiting_call' ? <BookCallCard consultationId={x.id} /> : null}
      <ConsultationPhotos consultationId={x.id} status={x.status} images={x.images} onAdded={c.reload} />
      <h2>{t('timeline.title')}</h2>
      <ol className="timeline" data-testid="timeline">
        {steps.map((s) => (
          <li key={s.key} className={s.at ? 'done' : 'todo'}>
            <span className="timeline-label">{s.key === 'decided' ? decidedLabel : t(`timeline.${s.key}`)}</span>{' '}
            <span className="timeline-date">{s.note === 'covered' ? t('timeline.covered') : s.at ? date(s.at) : t('timeline.pending')}</span>
          </li>
        ))}
      </ol>
      {order?.tracking_url && /^https?:\/\//i.test(order.tracking_url) ? (
        <p>
          <a href={order.tracking_url} rel="noopener noreferrer" target="_blank">
            {t('orders.trackingLink', { number: order.tracking_number ?? '' })}
          </a>
        </p>
      ) : null}
      {x.prescriptions.length ? (
        <>
          <h2>{t('prescriptions.title')}</h2>
          <PrescriptionList items={x.prescriptions} />
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
          <PrescriptionSignatureLine id={p.id} />
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
            {o.items.map((i) => (i.instructions ? <p key={`${i.treatment_id}-${i.dosage}`} className="hint">{i.instructions}</p> : null))}
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
