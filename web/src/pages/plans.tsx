// Renewal (options, the dose ladder, the confirm screen with its required answers) and plan
// management (postpone, cancel, resume, billing portal, early order; skip, pause, delivery date and
// dose-change requests: docs/plan-management.md).
import { useMemo, useState, type FormEvent } from 'react';
import { api, errorText, type Schemas } from '../api/client';
import { useCatalogue } from '../components/catalogue';
import { FulfilmentPicker, type FulfilmentChoice } from '../components/Supply';
import { Alert, Field, LoadError, Loading, PageTitle, Select, StatusBadge, TextArea, useLoad } from '../components/ui';
import { useI18n } from '../i18n';
import type { Answers, AnswerValue, Question } from '../questionnaire/model';
import { isVisible } from '../questionnaire/model';
import { QuestionField } from '../questionnaire/QuestionField';
import { Link } from '../router';

type Options = Schemas['RenewalOptions'];

export function Renewal() {
  const { t } = useI18n();
  const subs = useLoad(() => api.GET('/v1/users/subscriptions/', { params: { query: { limit: 20 } } }));
  const categories = useMemo(() => [...new Set((subs.data?.results ?? []).map((s) => s.category))], [subs.data]);
  const [chosen, setCategory] = useState('');
  // Until the patient picks one, the first category is shown.
  const category = chosen || categories[0] || '';
  const cat = useCatalogue(categories);
  return (
    <section>
      <PageTitle>{t('renewal.title')}</PageTitle>
      <LoadError error={subs.error} />
      {subs.loading && !subs.data ? <Loading /> : null}
      {subs.data && !categories.length ? <p>{t('renewal.none')}</p> : null}
      {categories.length > 1 ? (
        <Select label={t('renewal.category')} name="category" value={category} options={categories.map((c) => ({ value: c, label: cat.category(c) }))} onChange={(e) => setCategory(e.target.value)} />
      ) : null}
      {category ? <RenewalOptions category={category} /> : null}
    </section>
  );
}

function RenewalOptions({ category }: { category: string }) {
  const { t, money } = useI18n();
  const opts = useLoad<Options>(() => api.GET('/v1/users/subscriptions/renewal-options/', { params: { query: { category } } }), [category]);
  const cat = useCatalogue([category]);
  const profile = useLoad(() => api.GET('/v1/users/profile/'));
  const [dosage, setDosage] = useState('');
  const [changed, setChanged] = useState(false);
  const [note, setNote] = useState('');
  const [answers, setAnswers] = useState<Answers>({});
  const [missing, setMissing] = useState<string[]>([]);
  const [fulfilment, setFulfilment] = useState<FulfilmentChoice | undefined>(undefined);
  const [message, setMessage] = useState<{ kind: 'error' | 'success'; text: string } | null>(null);
  // New options reset the dose and the reusable answers (adjusted while rendering, not in an effect).
  const [prefilledFrom, setPrefilledFrom] = useState<Options | undefined>(undefined);
  if (opts.data && opts.data !== prefilledFrom) {
    setPrefilledFrom(opts.data);
    setDosage(opts.data.ladder?.current ?? opts.data.current?.dosage ?? '');
    const pre: Answers = {};
    for (const a of (opts.data.reusable_prefill ?? []) as { question_key: string; value?: AnswerValue; values?: Record<string, boolean> }[]) {
      if (a.value !== undefined) pre[a.question_key] = a.value;
      else if (a.values) pre[a.question_key] = Object.keys(a.values).filter((k) => a.values![k]);
    }
    setAnswers(pre);
  }
  if (opts.error) return <Alert kind="error">{errorText(opts.error, t('app.error'))}</Alert>;
  if (!opts.data) return <Loading />;
  const o = opts.data;
  const facts = { gender: profile.data?.gender, country_of_residence: profile.data?.country_of_residence, date_of_birth: profile.data?.date_of_birth };
  const steps: { step_id: number; title: string; questions: Question[] }[] = [...(o.required_steps ?? []), ...(changed ? (o.review_steps ?? []) : [])];

  async function confirm(e: FormEvent) {
    e.preventDefault();
    setMessage(null);
    // The answers of the questions on screen: a multiple choice as {option: true}, anything else as {value}.
    const list = steps
      .flatMap((st) => st.questions)
      .filter((q) => answers[q.question_key] !== undefined && answers[q.question_key] !== '' && isVisible(q, answers, facts))
      .map((q) => {
        const v = answers[q.question_key];
        return { question_key: q.question_key, values: q.type === 'multiple_choice' && Array.isArray(v) ? Object.fromEntries(v.map((k) => [k, true])) : { value: v } };
      });
    const { data, error } = await api.POST('/v1/users/subscriptions/pending-choice/confirm/', {
      body: { consultation_id: o.pending_consultation_id!, treatment_id: o.current?.treatment_id, dosage, changed, answers: list, change_note: note, ...(fulfilment ? { fulfilment } : {}) },
    });
    if (data) {
      setMissing([]);
      setMessage({ kind: 'success', text: t('renewal.confirmed') });
      opts.reload();
      return;
    }
    const err = error as { code?: string; missing_keys?: string[]; errors?: Record<string, string[]> } | undefined;
    if (err?.code === 'renewal_answers_required' && err.missing_keys?.length) {
      // The banner asking for them shows while any question is marked (below); an earlier answer's
      // message must not come back once they are answered.
      setMissing(err.missing_keys);
      setMessage(null);
      return;
    }
    setMissing([]);
    const first = err?.code === 'invalid_renewal_answers' ? Object.values(err.errors ?? {})[0]?.[0] : undefined;
    setMessage({ kind: 'error', text: first ?? errorText(err, t('app.error')) });
  }

  const ladder = o.ladder?.dosages ?? [];
  return (
    <div>
      <p>
        {t('consultations.treatment')}: <strong>{o.current?.treatment_id ? cat.treatment(category, o.current.treatment_id) : ''}</strong> {o.current?.dosage}
        {o.price ? ` · ${t('plan.price', { price: money(o.price.amount_cents, o.price.currency), days: o.price.cycle_days ?? o.price.supply_days ?? '' })}` : ''}
      </p>
      {missing.length ? <Alert kind="error">{t('renewal.answersMissing')}</Alert> : message ? <Alert kind={message.kind}>{message.text}</Alert> : null}
      {o.mode === 'blocked' ? <Alert>{t('renewal.blocked', { reason: (o.blocked_code ?? '').replace(/_/g, ' ') })}</Alert> : null}
      {o.mode === 'early_order' || o.mode === 'express_reorder' ? (
        <p>
          <Link to="/plan">{t('renewal.early')}</Link>
        </p>
      ) : null}
      {o.mode === 'pending_choice' && o.pending_consultation_id ? (
        <form onSubmit={confirm} noValidate>
          <Alert>{t('renewal.pending')}</Alert>
          {ladder.length ? (
            <>
              <h2>{t('renewal.ladder')}</h2>
              <ol className="ladder">
                {ladder.map((d) => (
                  <li key={d} aria-current={d === o.ladder?.current ? 'step' : undefined}>
                    {d} {d === o.ladder?.current ? `(${t('renewal.current')})` : d === o.ladder?.next ? `(${t('renewal.nextStep')})` : ''}
                  </li>
                ))}
              </ol>
              <Select label={t('renewal.dose')} name="dosage" value={dosage} options={ladder.map((d) => ({ value: d, label: d }))} onChange={(e) => setDosage(e.target.value)} />
            </>
          ) : null}
          {steps.map((s) => (
            <fieldset key={`${s.step_id}-${s.title}`}>
              <legend>{s.title}</legend>
              {s.questions
                .filter((q) => isVisible(q, answers, facts))
                .map((q) => (
                  <QuestionField
                    key={q.question_key}
                    question={q}
                    answers={answers}
                    error={missing.includes(q.question_key) ? 'required' : undefined}
                    onChange={(k: string, v: AnswerValue | undefined) => {
                      const next = { ...answers };
                      if (v === undefined) delete next[k];
                      else next[k] = v;
                      setAnswers(next);
                      // An answered question is no longer marked as missing (as on the questionnaire page);
                      // once none is, the banner asking for them goes too.
                      if (v !== undefined && missing.includes(k)) setMissing(missing.filter((m) => m !== k));
                    }}
                  />
                ))}
            </fieldset>
          ))}
          <label className="choice">
            <input type="checkbox" name="changed" checked={changed} onChange={(e) => setChanged(e.target.checked)} /> <span>{t('renewal.changed')}</span>
          </label>
          {changed ? <TextArea label={t('renewal.changeNote')} name="change_note" maxLength={1000} value={note} onChange={(e) => setNote(e.target.value)} /> : null}
          <FulfilmentPicker value={fulfilment} onChange={setFulfilment} />
          <button type="submit">{t('renewal.confirm')}</button>
        </form>
      ) : null}
    </div>
  );
}

export function PlanPage() {
  const { t, money, date } = useI18n();
  const subs = useLoad(() => api.GET('/v1/users/subscriptions/', { params: { query: { limit: 20 } } }));
  const [days, setDays] = useState('7');
  const [message, setMessage] = useState<{ kind: 'error' | 'success'; text: string } | null>(null);
  const list = subs.data?.results ?? [];
  const cat = useCatalogue(list.map((s) => s.category));
  async function run(p: Promise<{ data?: unknown; error?: unknown }>) {
    const r = await p;
    setMessage(r.data ? { kind: 'success', text: t('app.saved') } : { kind: 'error', text: errorText(r.error, t('app.error')) });
    subs.reload();
  }
  async function portal() {
    const { data, error } = await api.POST('/v1/users/billing-portal/', { body: { return_url: `${window.location.origin}/plan` } });
    if (data?.url) window.location.assign(data.url);
    else setMessage({ kind: 'error', text: errorText(error, t('plan.none')) });
  }
  return (
    <section>
      <PageTitle>{t('plan.title')}</PageTitle>
      <LoadError error={subs.error} />
      {subs.loading && !subs.data ? <Loading /> : null}
      {subs.data && !list.length ? <p>{t('plan.none')}</p> : null}
      {message ? <Alert kind={message.kind}>{message.text}</Alert> : null}
      {list.map((s) => (
        <article key={s.id} className="card">
          <h2>
            {cat.category(s.category)}: {cat.treatment(s.category, s.treatment_id)} <StatusBadge status={s.status} />
          </h2>
          <p>{t('plan.price', { price: money(s.price_cents, s.currency), days: s.cycle_days })}</p>
          <p>{s.cancel_at_period_end ? t('plan.endsThen', { date: date(s.current_period_end) }) : t('plan.periodEnd', { date: date(s.current_period_end) })}</p>
          {s.payment_method_last4 ? (
            <p>
              {t('plan.card')}: {s.payment_method_brand} •••• {s.payment_method_last4}
            </p>
          ) : null}
          {s.status !== 'canceled' ? (
            <div className="actions">
              {s.cancel_at_period_end ? (
                <button type="button" onClick={() => run(api.POST('/v1/users/subscriptions/{id}/resume/', { params: { path: { id: s.id } } }))}>
                  {t('plan.resume')}
                </button>
              ) : (
                <button type="button" className="danger" onClick={() => run(api.POST('/v1/users/subscriptions/{id}/cancel/', { params: { path: { id: s.id } } }))}>
                  {t('plan.cancel')}
                </button>
              )}
              <button type="button" className="secondary" onClick={portal}>
                {t('plan.portal')}
              </button>
              {!s.early_order_locked ? (
                <button type="button" className="secondary" onClick={() => run(api.POST('/v1/users/subscriptions/{id}/early-order/', { params: { path: { id: s.id } } }))}>
                  {t('renewal.early')}
                </button>
              ) : null}
            </div>
          ) : null}
          <PlanManagement plan={s} onChanged={() => subs.reload()} />
          {s.status === 'active' ? (
            <form
              className="inline-form"
              onSubmit={(e) => {
                e.preventDefault();
                void run(api.POST('/v1/users/subscriptions/{id}/postpone/', { params: { path: { id: s.id } }, body: { days: Number(days) } }));
              }}
            >
              <Field label={t('plan.days')} name="days" type="number" min={1} max={14} value={days} onChange={(e) => setDays(e.target.value)} />
              <button type="submit" className="secondary">
                {t('plan.postpone')}
              </button>
            </form>
          ) : null}
        </article>
      ))}
    </section>
  );
}

type Plan = Schemas['Subscription'];
type Restart = Schemas['PlanRestart'];
type DoseRequest = Schemas['DoseChangeRequest'];

/**
 * Skip the next delivery, pause (for some deliveries or until resumed), move the next delivery date,
 * and ask the doctor for another dose. After a change the page says what the break means for the
 * dose (the server's `restart`: a lower restart dose after more than 14 days without doses).
 */
export function PlanManagement({ plan: s, onChanged }: { plan: Plan; onChanged: () => void }) {
  const { t, date } = useI18n();
  const [cycles, setCycles] = useState('1');
  const [when, setWhen] = useState('');
  const [restart, setRestart] = useState<Restart | null>(null);
  const [message, setMessage] = useState<{ kind: 'error' | 'success'; text: string } | null>(null);
  const live = s.status !== 'canceled';
  const manageable = s.status === 'active' && !s.cancel_at_period_end;
  async function change(p: Promise<{ data?: { restart: Restart | null }; error?: unknown }>) {
    setMessage(null);
    const r = await p;
    if (r.data) {
      setRestart(r.data.restart);
      setMessage({ kind: 'success', text: t('app.saved') });
      onChanged();
    } else setMessage({ kind: 'error', text: errorText(r.error, t('app.error')) });
  }
  const path = { params: { path: { id: s.id } } };
  return (
    <div className="plan-management">
      {live ? (
        <p>
          {s.paused_by_patient
            ? s.resumes_at
              ? t('plan.pausedUntil', { date: date(s.resumes_at) })
              : t('plan.pausedOpen')
            : s.next_delivery_at
              ? t('plan.nextDelivery', { date: date(s.next_delivery_at) })
              : null}
          {s.delivery_skipped ? ` ${t('plan.skipped')}` : ''}
          {s.next_cycle_dosage ? ` ${t('plan.doseDecided', { dose: s.next_cycle_dosage })}` : ''}
        </p>
      ) : null}
      {message ? <Alert kind={message.kind}>{message.text}</Alert> : null}
      {restart?.dose_lowered && restart.resume_dosage ? <Alert>{t('plan.restartLower', { dose: restart.resume_dosage })}</Alert> : null}
      {restart && !restart.at ? <Alert>{t('plan.restartWarn', { date: date(restart.last_day_at_current_dose) })}</Alert> : null}
      {s.paused_by_patient ? (
        <div className="actions">
          <button type="button" onClick={() => change(api.POST('/v1/users/subscriptions/{id}/unpause/', path))}>
            {t('plan.unpause')}
          </button>
        </div>
      ) : null}
      {manageable ? (
        <>
          <div className="actions">
            {!s.delivery_skipped ? (
              <button type="button" className="secondary" onClick={() => change(api.POST('/v1/users/subscriptions/{id}/skip/', path))}>
                {t('plan.skip')}
              </button>
            ) : null}
          </div>
          <form
            className="inline-form"
            onSubmit={(e) => {
              e.preventDefault();
              void change(api.POST('/v1/users/subscriptions/{id}/pause/', { ...path, body: cycles === 'open' ? {} : { cycles: Number(cycles) } }));
            }}
          >
            <Select
              label={t('plan.pauseFor')}
              name={`pause-${s.id}`}
              value={cycles}
              options={[
                { value: '1', label: t('plan.pauseOne') },
                ...[2, 3, 4, 5, 6].map((n) => ({ value: String(n), label: t('plan.pauseMany', { n }) })),
                { value: 'open', label: t('plan.pauseOpen') },
              ]}
              onChange={(e) => setCycles(e.target.value)}
            />
            <button type="submit" className="secondary">
              {t('plan.pause')}
            </button>
          </form>
          {s.delivery_date_window ? (
            <form
              className="inline-form"
              onSubmit={(e) => {
                e.preventDefault();
                if (when) void change(api.POST('/v1/users/subscriptions/{id}/delivery-date/', { ...path, body: { date: when } }));
              }}
            >
              <Field
                label={t('plan.deliveryDate')}
                hint={t('plan.dateWindow', { from: date(s.delivery_date_window.earliest), to: date(s.delivery_date_window.latest) })}
                name={`date-${s.id}`}
                type="date"
                min={s.delivery_date_window.earliest}
                max={s.delivery_date_window.latest}
                value={when}
                onChange={(e) => setWhen(e.target.value)}
              />
              <button type="submit" className="secondary">
                {t('plan.changeDate')}
              </button>
            </form>
          ) : null}
        </>
      ) : null}
      {live && !s.cancel_at_period_end ? <DoseChange plan={s} onChanged={onChanged} /> : null}
      {s.status === 'active' && !s.cancel_at_period_end ? <TreatmentSwitch plan={s} onChanged={onChanged} /> : null}
    </div>
  );
}

const SWITCH_REASONS = ['price', 'shortage', 'side_effects', 'other'] as const;
type SwitchReason = (typeof SWITCH_REASONS)[number];
const SWITCH_REASON_KEY = { price: 'plan.switchReasonPrice', shortage: 'plan.switchReasonShortage', side_effects: 'plan.switchReasonSideEffects', other: 'plan.switchReasonOther' } as const;

/**
 * Ask for another treatment of the plan's category (after a price rise, a shortage, side effects):
 * the service opens the plan's next renewal on it at its starting dose; the patient confirms it on the
 * renewal screen and a doctor decides (docs/compliance.md, "Switching treatment").
 */
function TreatmentSwitch({ plan: s, onChanged }: { plan: Plan; onChanged: () => void }) {
  const { t, locale } = useI18n();
  const schema = useLoad(() => api.GET('/v1/users/questionnaires/{slug}/schema/', { params: { path: { slug: s.category }, query: { locale } } }), [s.category, locale]);
  const others = (schema.data?.treatments ?? []).filter((x) => x.treatment_id !== s.treatment_id);
  const [treatment, setTreatment] = useState('');
  const [reason, setReason] = useState<SwitchReason>('price');
  const [message, setMessage] = useState<{ kind: 'error' | 'success'; text: string } | null>(null);
  if (!others.length) return null;
  async function send(e: FormEvent) {
    e.preventDefault();
    setMessage(null);
    const { data, error } = await api.POST('/v1/users/subscriptions/{id}/treatment-switch/', { params: { path: { id: s.id } }, body: { treatment_id: treatment || others[0]!.treatment_id, reason } });
    if (data) {
      setMessage({ kind: 'success', text: t('plan.switchSent') });
      onChanged();
    } else setMessage({ kind: 'error', text: errorText(error, t('app.error')) });
  }
  return (
    <div className="treatment-switch">
      <h3>{t('plan.switchTitle')}</h3>
      <p>{t('plan.switchIntro')}</p>
      {message ? (
        <Alert kind={message.kind}>
          {message.text} {message.kind === 'success' ? <Link to="/renewal">{t('plan.switchGo')}</Link> : null}
        </Alert>
      ) : null}
      {message?.kind === 'success' ? null : (
        <form onSubmit={send} noValidate>
          <Select label={t('plan.switchTreatment')} name={`switch-${s.id}`} value={treatment || others[0]!.treatment_id} options={others.map((x) => ({ value: x.treatment_id, label: x.name }))} onChange={(e) => setTreatment(e.target.value)} />
          <Select label={t('plan.switchReason')} name={`switch-reason-${s.id}`} value={reason} options={SWITCH_REASONS.map((r) => ({ value: r, label: t(SWITCH_REASON_KEY[r]) }))} onChange={(e) => setReason(e.target.value as SwitchReason)} />
          <button type="submit" className="secondary">
            {t('plan.switchSend')}
          </button>
        </form>
      )}
    </div>
  );
}

/** Ask the doctor for another dose between renewals; the latest request and the doctor's answer. */
function DoseChange({ plan: s, onChanged }: { plan: Plan; onChanged: () => void }) {
  const { t, date } = useI18n();
  const path = { params: { path: { id: s.id } } };
  const requests = useLoad<DoseRequest[]>(() => api.GET('/v1/users/subscriptions/{id}/dose-change-requests/', path), [s.id]);
  const opts = useLoad<Options>(() => api.GET('/v1/users/subscriptions/renewal-options/', { params: { query: { category: s.category } } }), [s.category]);
  const doses = (opts.data?.ladder?.dosages ?? []).filter((d) => d !== s.dosage);
  const [dosage, setDosage] = useState('');
  const [note, setNote] = useState('');
  const [message, setMessage] = useState<{ kind: 'error' | 'success'; text: string } | null>(null);
  const latest = requests.data?.[0];
  async function send(e: FormEvent) {
    e.preventDefault();
    setMessage(null);
    const { data, error } = await api.POST('/v1/users/subscriptions/{id}/dose-change-requests/', { ...path, body: { dosage: dosage || doses[0], note } });
    if (data) {
      setMessage({ kind: 'success', text: t('plan.doseSent') });
      setNote('');
      requests.reload();
      onChanged();
    } else setMessage({ kind: 'error', text: errorText(error, t('app.error')) });
  }
  return (
    <div className="dose-change">
      <h3>{t('plan.doseTitle')}</h3>
      {latest ? (
        <p>
          {t('plan.doseStatus', { from: latest.from_dosage, to: latest.requested_dosage, status: t(latest.status === 'approved' ? 'plan.doseApproved' : latest.status === 'declined' ? 'plan.doseDeclined' : 'plan.dosePending') })}
          {latest.decided_at ? ` (${date(latest.decided_at)})` : ''}
          {latest.decision_note ? ` ${t('plan.doctorNote')}: ${latest.decision_note}` : ''}
        </p>
      ) : null}
      {message ? <Alert kind={message.kind}>{message.text}</Alert> : null}
      {doses.length && latest?.status !== 'pending' ? (
        <form onSubmit={send} noValidate>
          <Select label={t('plan.doseLabel')} name={`dose-${s.id}`} value={dosage || doses[0]} options={doses.map((d) => ({ value: d, label: d }))} onChange={(e) => setDosage(e.target.value)} />
          <TextArea label={t('plan.doseNote')} name={`dose-note-${s.id}`} maxLength={1000} value={note} onChange={(e) => setNote(e.target.value)} />
          <button type="submit" className="secondary">
            {t('plan.doseSend')}
          </button>
        </form>
      ) : null}
    </div>
  );
}
