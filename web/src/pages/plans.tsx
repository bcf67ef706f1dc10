// Renewal (options, the dose ladder, the confirm screen with its required answers) and plan
// management (postpone, cancel, resume, billing portal, early order).
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { api, errorText, type Schemas } from '../api/client';
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
  const subs = useLoad(() => api.GET('/v1/users/subscriptions/', { params: { query: { limit: '20' } as any } }));
  const categories = useMemo(() => [...new Set((subs.data?.results ?? []).map((s) => s.category))], [subs.data]);
  const [category, setCategory] = useState('');
  useEffect(() => {
    if (!category && categories.length) setCategory(categories[0]);
  }, [categories, category]);
  return (
    <section>
      <PageTitle>{t('renewal.title')}</PageTitle>
      <LoadError error={subs.error} />
      {subs.loading && !subs.data ? <Loading /> : null}
      {subs.data && !categories.length ? <p>{t('renewal.none')}</p> : null}
      {categories.length > 1 ? (
        <Select label={t('renewal.category')} name="category" value={category} options={categories.map((c) => ({ value: c, label: c.replace(/_/g, ' ') }))} onChange={(e) => setCategory(e.target.value)} />
      ) : null}
      {category ? <RenewalOptions category={category} /> : null}
    </section>
  );
}

function RenewalOptions({ category }: { category: string }) {
  const { t, money } = useI18n();
  const opts = useLoad<Options>(() => api.GET('/v1/users/subscriptions/renewal-options/', { params: { query: { category } } }), [category]);
  const profile = useLoad(() => api.GET('/v1/users/profile/'));
  const [dosage, setDosage] = useState('');
  const [changed, setChanged] = useState(false);
  const [note, setNote] = useState('');
  const [answers, setAnswers] = useState<Answers>({});
  const [missing, setMissing] = useState<string[]>([]);
  const [fulfilment, setFulfilment] = useState<FulfilmentChoice | undefined>(undefined);
  const [message, setMessage] = useState<{ kind: 'error' | 'success'; text: string } | null>(null);
  useEffect(() => {
    if (opts.data) {
      setDosage(opts.data.ladder?.current ?? opts.data.current?.dosage ?? '');
      const pre: Answers = {};
      for (const a of (opts.data.reusable_prefill ?? []) as { question_key: string; value?: AnswerValue; values?: Record<string, boolean> }[]) {
        if (a.value !== undefined) pre[a.question_key] = a.value;
        else if (a.values) pre[a.question_key] = Object.keys(a.values).filter((k) => a.values![k]);
      }
      setAnswers(pre);
    }
  }, [opts.data]);
  if (opts.error) return <Alert kind="error">{errorText(opts.error, t('app.error'))}</Alert>;
  if (!opts.data) return <Loading />;
  const o = opts.data;
  const facts = { gender: profile.data?.gender, country_of_residence: profile.data?.country_of_residence, date_of_birth: profile.data?.date_of_birth };
  const steps = [...((o.required_steps ?? []) as any[]), ...(changed ? ((o.review_steps ?? []) as any[]) : [])] as { step_id: number; title: string; questions: Question[] }[];

  async function confirm(e: FormEvent) {
    e.preventDefault();
    setMessage(null);
    // The answers of the questions on screen: a multiple choice as {option: true}, anything else as {value}.
    const list = steps
      .flatMap((st) => st.questions)
      .filter((q) => answers[q.question_key] !== undefined && answers[q.question_key] !== '' && isVisible(q as any, answers, facts))
      .map((q) => {
        const v = answers[q.question_key];
        return { question_key: q.question_key, values: q.type === 'multiple_choice' && Array.isArray(v) ? Object.fromEntries(v.map((k) => [k, true])) : { value: v } };
      });
    const { data, error } = await api.POST('/v1/users/subscriptions/pending-choice/confirm/', {
      body: { consultation_id: o.pending_consultation_id!, treatment_id: o.current?.treatment_id, dosage, changed, answers: list, change_note: note, ...(fulfilment ? { fulfilment } : {}) },
    });
    if (data) {
      setMessage({ kind: 'success', text: t('renewal.confirmed') });
      opts.reload();
      return;
    }
    const err = error as { code?: string; missing_keys?: string[]; errors?: Record<string, string[]> } | undefined;
    if (err?.code === 'renewal_answers_required') {
      setMissing(err.missing_keys ?? []);
      setMessage({ kind: 'error', text: t('renewal.answersMissing') });
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
        {t('consultations.treatment')}: <strong>{o.current?.treatment_id}</strong> {o.current?.dosage}
        {o.price ? ` · ${t('plan.price', { price: money(o.price.amount_cents, o.price.currency), days: o.price.cycle_days ?? o.price.supply_days ?? '' })}` : ''}
      </p>
      {message ? <Alert kind={message.kind}>{message.text}</Alert> : null}
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
                .filter((q) => isVisible(q as any, answers, facts))
                .map((q) => (
                  <QuestionField
                    key={q.question_key}
                    question={q as any}
                    answers={answers}
                    error={missing.includes(q.question_key) ? 'required' : undefined}
                    onChange={(k: string, v: AnswerValue | undefined) => {
                      const next = { ...answers };
                      if (v === undefined) delete next[k];
                      else next[k] = v;
                      setAnswers(next);
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
  const subs = useLoad(() => api.GET('/v1/users/subscriptions/', { params: { query: { limit: '20' } as any } }));
  const [days, setDays] = useState('7');
  const [message, setMessage] = useState<{ kind: 'error' | 'success'; text: string } | null>(null);
  const list = subs.data?.results ?? [];
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
            {s.category.replace(/_/g, ' ')}: {s.treatment_id} <StatusBadge status={s.status} />
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
