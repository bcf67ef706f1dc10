// The questionnaire catalogue, the wizard rendered from the public schema (draft autosave and resume),
// the eligibility result, the checkout redirect and the return from the provider's page.
import { useCallback, useEffect, useEffectEvent, useMemo, useRef, useState, type FormEvent } from 'react';
import { api, errorText, type Schemas } from '../api/client';
import { useSession } from '../auth';
import { CategoryCards } from '../components/CategoryCards';
import { useEmergency } from '../components/Emergency';
import { FulfilmentPicker, type FulfilmentChoice } from '../components/Supply';
import { DeliveryNotice } from '../features/ec-delivery/DeliveryNotice';
import { Alert, Field, LoadError, Loading, PageTitle, Select, useLoad } from '../components/ui';
import { useI18n } from '../i18n';
import { checkStep, fromItems, isVisible, toItems, visibleSteps, type Answers, type AnswerValue, type ProfileFacts, type QuestionnaireSchema, type StepErrors } from '../questionnaire/model';
import { HealthConsentGate } from '../questionnaire/HealthConsent';
import { QuestionField } from '../questionnaire/QuestionField';
import { Link, useLocation } from '../router';
import { countryOptions } from '../countries';
import { useSignatureStrings } from '../features/signature/strings';

export function Treatments() {
  const { t } = useI18n();
  return (
    <section>
      <PageTitle>{t('treatments.title')}</PageTitle>
      <p>{t('treatments.intro')}</p>
      <CategoryCards heading="h2" />
    </section>
  );
}

type Submission = Schemas['QuestionnaireSubmission'];
type Profile = Schemas['Profile'];

const PROFILE_FIELDS = ['first_name', 'last_name', 'date_of_birth', 'gender', 'country_of_residence'] as const;

/** The profile details the questionnaire and checkout need (age, sex for visibility, country). */
export function ProfileGate({ profile, onDone }: { profile: Profile; onDone: (p: Profile) => void }) {
  const { t, locale } = useI18n();
  const [form, setForm] = useState({ first_name: profile.first_name, last_name: profile.last_name, date_of_birth: profile.date_of_birth ?? '', gender: profile.gender ?? '', country_of_residence: profile.country_of_residence ?? '' });
  const [errors, setErrors] = useState<Record<string, string>>({});
  async function submit(e: FormEvent) {
    e.preventDefault();
    const { data, error } = await api.PATCH('/v1/users/profile/me/', { body: { first_name: form.first_name, last_name: form.last_name, date_of_birth: form.date_of_birth || null, gender: form.gender, country_of_residence: form.country_of_residence || null } });
    if (data) onDone(data);
    else setErrors(Object.fromEntries(Object.entries((error as Record<string, string[]>) ?? {}).map(([k, v]) => [k, Array.isArray(v) ? v[0] : String(v)])));
  }
  return (
    <form onSubmit={submit} noValidate className="narrow">
      <Alert>{t('q.profileFirst')}</Alert>
      <Field label={t('auth.firstName')} name="first_name" autoComplete="given-name" required maxLength={150} value={form.first_name} onChange={(e) => setForm({ ...form, first_name: e.target.value })} error={errors.first_name} />
      <Field label={t('auth.lastName')} name="last_name" autoComplete="family-name" required maxLength={150} value={form.last_name} onChange={(e) => setForm({ ...form, last_name: e.target.value })} error={errors.last_name} />
      <Field label={t('profile.dob')} type="date" name="date_of_birth" required value={form.date_of_birth} onChange={(e) => setForm({ ...form, date_of_birth: e.target.value })} error={errors.date_of_birth} />
      <Select
        label={t('profile.gender')}
        name="gender"
        required
        value={form.gender}
        placeholder={t('profile.choose')}
        options={['0', '1', '2', '3'].map((g) => ({ value: g, label: t(`profile.gender.${g}` as 'profile.gender.0') }))}
        onChange={(e) => setForm({ ...form, gender: e.target.value })}
        error={errors.gender}
      />
      <Select
        label={t('profile.country')}
        name="country_of_residence"
        required
        value={form.country_of_residence}
        placeholder={t('profile.choose')}
        options={countryOptions(locale)}
        onChange={(e) => setForm({ ...form, country_of_residence: e.target.value })}
        error={errors.country_of_residence}
      />
      <button type="submit">{t('app.continue')}</button>
    </form>
  );
}

export function Questionnaire({ slug }: { slug: string }) {
  const { t, locale } = useI18n();
  const session = useSession();
  const pay = useLocation().query.get('pay');
  const schema = useLoad(() => api.GET('/v1/users/questionnaires/{slug}/schema/', { params: { path: { slug }, query: { locale } } }), [slug, locale]);
  const profile = useLoad<Profile>(() => (session ? api.GET('/v1/users/profile/') : Promise.resolve({})), [Boolean(session)]);

  if (schema.error) return <Alert kind="error">{t('app.notFound')}</Alert>;
  if (!schema.data) return <Loading />;
  const s = schema.data;
  if (!session)
    return (
      <section className="narrow">
        <PageTitle>{s.title}</PageTitle>
        <p>{s.description}</p>
        <p>{t('q.signInToStart')}</p>
        <p className="actions">
          <Link className="button" to={`/sign-up?next=/questionnaire/${slug}`}>
            {t('nav.signUp')}
          </Link>
          <Link className="button secondary" to={`/sign-in?next=/questionnaire/${slug}`}>
            {t('nav.signIn')}
          </Link>
        </p>
      </section>
    );
  if (!profile.data) return profile.error ? <LoadError error={profile.error} /> : <Loading />;
  const p = profile.data;
  if (PROFILE_FIELDS.some((f) => !p[f]))
    return (
      <section>
        <PageTitle>{s.title}</PageTitle>
        <ProfileGate profile={p} onDone={(np) => profile.setData(np)} />
      </section>
    );
  if (pay) return <PayEarlier schema={s} submissionId={pay} />;
  // The health-data consent comes before the first answer (the wizard saves drafts as it goes).
  return (
    <HealthConsentGate>
      <Wizard schema={s} profile={{ gender: p.gender, country_of_residence: p.country_of_residence, date_of_birth: p.date_of_birth }} />
    </HealthConsentGate>
  );
}

function Wizard({ schema, profile }: { schema: QuestionnaireSchema; profile: ProfileFacts }) {
  const { t, locale } = useI18n();
  const showEmergency = useEmergency();
  const slug = schema.slug;
  const [answers, setAnswers] = useState<Answers | null>(null);
  const [index, setIndex] = useState(0);
  const [errors, setErrors] = useState<StepErrors>({});
  const [saveState, setSaveState] = useState<'' | 'saving' | 'saved'>('');
  const [resumed, setResumed] = useState(false);
  const [correcting, setCorrecting] = useState(false);
  const [result, setResult] = useState<Submission | null>(null);
  const [error, setError] = useState('');
  const dirty = useRef(false);
  const steps = useMemo(() => (answers ? visibleSteps(schema.steps, answers, profile) : []), [schema.steps, answers, profile]);

  // Resume: the saved draft fills the answers; the wizard opens at the first step not yet complete.
  // Loaded once per questionnaire and version: the language, the profile and the emergency notice are
  // read at their latest, without loading the draft again when they change.
  const loadDraft = useEffectEvent(() => api.GET('/v1/users/questionnaires/{slug}/progress/', { params: { path: { slug }, query: { locale } } }));
  const resume = useEffectEvent((data: Awaited<ReturnType<typeof loadDraft>>['data']) => {
    const a = data && data.progress.version === schema.version ? fromItems(schema.steps, data.progress.data) : {};
    setAnswers(a);
    if (Object.keys(a).length) {
      setResumed(true);
      const vs = visibleSteps(schema.steps, a, profile);
      const firstOpen = vs.findIndex((st) => Object.keys(checkStep(st, a, profile)).length > 0 || st.questions.every((q) => a[q.question_key] === undefined));
      setIndex(firstOpen === -1 ? Math.max(0, vs.length - 1) : firstOpen);
    }
    if (data?.emergency) showEmergency(data.emergency);
  });
  useEffect(() => {
    void loadDraft().then(({ data }) => resume(data));
  }, [slug, schema.version]);

  const save = useCallback(
    async (a: Answers) => {
      setSaveState('saving');
      const { data, error: err } = await api.PATCH('/v1/users/questionnaires/{slug}/progress/', {
        params: { path: { slug }, query: { locale } },
        body: { data: toItems(schema.steps, a, profile) },
      });
      dirty.current = false;
      setSaveState(data ? 'saved' : '');
      if (err) setError(errorText(err, t('app.error')));
      if (data?.emergency) {
        showEmergency(data.emergency);
        return false;
      }
      return Boolean(data);
    },
    [slug, locale, schema.steps, profile, showEmergency, t],
  );

  // Autosave a moment after the last change.
  useEffect(() => {
    if (!answers || !dirty.current) return;
    const timer = setTimeout(() => void save(answers), 1200);
    return () => clearTimeout(timer);
  }, [answers, save]);

  if (result)
    return (
      <Result
        submission={result}
        schema={schema}
        onCorrect={
          result.outcome === 'ineligible' && answers
            ? () => {
                // The submitted answers become the draft again (submitting deleted it); the patient
                // corrects one and resubmits. A changed deciding answer is held for a doctor (server).
                void save(answers);
                setResult(null);
                setCorrecting(true);
                setIndex(0);
                window.scrollTo(0, 0);
              }
            : undefined
        }
      />
    );
  if (!answers) return <Loading />;
  const step = steps[Math.min(index, steps.length - 1)];
  const last = index >= steps.length - 1;

  const onChange = (key: string, value: AnswerValue | undefined) => {
    dirty.current = true;
    const next = { ...answers };
    if (value === undefined) delete next[key];
    else next[key] = value;
    setAnswers(next);
    if (errors[key]) setErrors((e) => Object.fromEntries(Object.entries(e).filter(([k]) => k !== key)) as StepErrors);
  };

  async function next(e: FormEvent) {
    e.preventDefault();
    setError('');
    const errs = checkStep(step, answers!, profile);
    setErrors(errs);
    if (Object.keys(errs).length) {
      document.querySelector<HTMLElement>(`[data-question="${Object.keys(errs)[0]}"] input, [data-question="${Object.keys(errs)[0]}"] textarea`)?.focus();
      return;
    }
    if (!(await save(answers!))) return;
    if (!last) {
      setIndex(index + 1);
      window.scrollTo(0, 0);
      return;
    }
    const { data, error: err } = await api.POST('/v1/users/questionnaires/{slug}/submit/', { params: { path: { slug }, query: { locale } } });
    if (!data) {
      setError(errorText(err, t('app.error')));
      return;
    }
    if (data.outcome === 'emergency' && data.emergency) {
      showEmergency(data.emergency);
      return;
    }
    setResult(data);
  }

  return (
    <section className="narrow">
      <PageTitle>{schema.title}</PageTitle>
      {resumed && !correcting ? <Alert>{t('q.resumed')}</Alert> : null}
      {correcting ? (
        <Alert>
          <span data-testid="hold-notice">{t('result.holdExplained')}</span>
        </Alert>
      ) : null}
      <p className="progress" aria-live="polite">
        {t('q.step', { n: index + 1, total: steps.length })}
        <progress max={steps.length} value={index + 1} aria-label={t('q.step', { n: index + 1, total: steps.length })} />
      </p>
      <form onSubmit={next} noValidate>
        <h2>{step.title}</h2>
        {step.questions
          .filter((q) => isVisible(q, answers, profile))
          .map((q) => (
            <QuestionField key={q.question_key} question={q} answers={answers} error={errors[q.question_key]} onChange={onChange} slug={slug} />
          ))}
        {error ? <Alert kind="error">{error}</Alert> : null}
        <div className="actions">
          {index > 0 ? (
            <button type="button" className="secondary" onClick={() => setIndex(index - 1)}>
              {t('q.previous')}
            </button>
          ) : null}
          <button type="submit">{last ? t('q.submit') : t('q.next')}</button>
          <span className="save-state" role="status">
            {saveState === 'saving' ? t('q.saving') : saveState === 'saved' ? t('q.savedDraft') : ''}
          </span>
        </div>
      </form>
    </section>
  );
}

function Result({ submission: s, schema, onCorrect }: { submission: Submission; schema: QuestionnaireSchema; onCorrect?: () => void }) {
  const { t, money } = useI18n();
  const payable = s.outcome === 'eligible' || s.outcome === 'held_for_review';
  const [plan, setPlan] = useState<'one_off' | 'subscription'>(schema.default_plan === 'subscription' ? 'subscription' : 'one_off');
  const [treatment, setTreatment] = useState(s.treatments[0]?.treatment_id ?? '');
  const [message, setMessage] = useState<{ kind: 'error' | 'success'; text: string; link?: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const [fulfilment, setFulfilment] = useState<FulfilmentChoice | undefined>(undefined);
  const chosen = s.treatments.find((x) => x.treatment_id === treatment) ?? s.treatments[0];
  const planAvailable = chosen?.plan_price_cents != null;

  async function checkout(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setMessage(null);
    const back = `${window.location.origin}/checkout/return?session_id={CHECKOUT_SESSION_ID}`;
    const { data, error } = await api.POST('/v1/users/checkout/', {
      body: { category: s.category, plan: planAvailable ? plan : 'one_off', treatment_id: chosen?.treatment_id, success_url: back, cancel_url: `${back}&cancelled=1`, ...(fulfilment ? { fulfilment } : {}) },
    });
    setBusy(false);
    if (data?.covered_by_subscription) {
      setMessage({ kind: 'success', text: t('result.covered'), link: data.consultation_id ? `/consultations/${data.consultation_id}` : undefined });
      return;
    }
    if (data?.checkout_url) {
      localStorage.setItem('pts.checkout.provider', data.provider ?? 'sandbox');
      window.location.assign(data.checkout_url);
      return;
    }
    const err = error as { error_name?: string; missing_fields?: string[]; consultation_id?: string | null } | undefined;
    if (err?.error_name === 'PROFILE_INCOMPLETE') setMessage({ kind: 'error', text: t('result.profileMissing', { fields: (err.missing_fields ?? []).join(', ') }), link: '/profile' });
    else if (err?.error_name === 'CONSULTATION_ALREADY_OPEN') setMessage({ kind: 'error', text: t('result.alreadyOpen'), link: err.consultation_id ? `/consultations/${err.consultation_id}` : undefined });
    else setMessage({ kind: 'error', text: errorText(err, t('app.error')) });
  }

  return (
    <section className="narrow result">
      <PageTitle>{payable ? (s.outcome === 'eligible' ? t('result.eligible') : t('result.held')) : t('result.ineligible')}</PageTitle>
      {/* Not suitable: the message is the first reason and the alternative, both shown below (once). */}
      {payable && s.message ? <p>{s.message}</p> : null}
      {!payable && !s.reasons.length && s.message ? <p>{s.message}</p> : null}
      {s.reasons.length ? (
        <>
          <h2>{t('result.reasons')}</h2>
          <ul>
            {s.reasons.map((r) => (
              <li key={r.code}>{r.message}</li>
            ))}
          </ul>
        </>
      ) : null}
      {s.cautions.length ? (
        <>
          <h2>{t('result.cautions')}</h2>
          <ul>
            {s.cautions.map((r) => (
              <li key={r.code}>{r.message}</li>
            ))}
          </ul>
        </>
      ) : null}
      {onCorrect ? (
        <>
          <h2>{t('result.correctTitle')}</h2>
          <p>{t('result.correctText')}</p>
          <p className="hint">{t('result.holdExplained')}</p>
          <p>
            <button type="button" className="secondary" onClick={onCorrect}>
              {t('result.correct')}
            </button>
          </p>
        </>
      ) : null}
      {s.alternative ? (
        <>
          <h2>{t('result.alternative')}</h2>
          <p>{s.alternative.message}</p>
          <p>
            <Link to="/treatments">{t('result.otherTreatments')}</Link>
          </p>
        </>
      ) : null}
      {!payable ? <p className="hint">{t('result.kept')}</p> : null}
      {payable && s.treatments.length ? (
        <form onSubmit={checkout}>
          <fieldset>
            <legend>{t('result.treatments')}</legend>
            {s.treatments.map((x) => (
              <label key={x.treatment_id} className="choice">
                <input type="radio" name="treatment" value={x.treatment_id} checked={treatment === x.treatment_id} onChange={() => setTreatment(x.treatment_id)} />
                <span>{x.name}</span>
              </label>
            ))}
          </fieldset>
          {chosen ? (
            <fieldset>
              <legend>{t('result.plan')}</legend>
              {planAvailable ? (
                <label className="choice">
                  <input type="radio" name="plan" value="subscription" checked={plan === 'subscription'} onChange={() => setPlan('subscription')} />
                  <span>{t('result.subscription', { price: money(chosen.plan_price_cents!, chosen.currency), days: chosen.plan_cycle_days ?? chosen.supply_days })}</span>
                </label>
              ) : null}
              <label className="choice">
                <input type="radio" name="plan" value="one_off" checked={plan === 'one_off' || !planAvailable} onChange={() => setPlan('one_off')} />
                <span>{t('result.oneOff', { price: money(chosen.one_off_price_cents, chosen.currency), days: chosen.supply_days })}</span>
              </label>
            </fieldset>
          ) : null}
          <FulfilmentPicker value={fulfilment} onChange={setFulfilment} />
          <DeliveryNotice verdicts={s.delivery} treatmentId={chosen?.treatment_id} collecting={fulfilment?.method === 'collection'} />
          {message ? (
            <Alert kind={message.kind}>
              {message.text} {message.link ? <Link to={message.link}>{t('app.continue')}</Link> : null}
            </Alert>
          ) : null}
          <button type="submit" disabled={busy}>
            {t('result.checkout')}
          </button>
        </form>
      ) : (
        <p>
          <Link to="/home">{t('nav.home')}</Link> · <Link to="/consultations">{t('consultations.title')}</Link>
        </p>
      )}
    </section>
  );
}

/**
 * Paying for an earlier outcome (home's "pay" step): the latest eligible or held submission of the
 * category, with the treatments it allows; checkout takes that submission (no need to answer again).
 */
function PayEarlier({ schema, submissionId }: { schema: QuestionnaireSchema; submissionId: string }) {
  const { t, locale } = useI18n();
  const list = useLoad(() => api.GET('/v1/users/questionnaires/submissions/', { params: { query: { limit: 50, locale } } }), [locale]);
  if (list.error) return <LoadError error={list.error} />;
  if (!list.data) return <Loading />;
  const latest = list.data.results.find((x) => x.category === schema.slug);
  if (!latest || latest.id !== submissionId || !latest.treatments.length)
    return (
      <section className="narrow">
        <PageTitle>{schema.title}</PageTitle>
        <Alert>{t('result.payGone')}</Alert>
        <p>
          <Link to={`/questionnaire/${schema.slug}`}>{t('home.start')}</Link>
        </p>
      </section>
    );
  const submission: Submission = {
    id: latest.id,
    category: schema.slug,
    category_id: schema.id,
    version: schema.version,
    outcome: latest.outcome,
    next_step: 'checkout',
    message: '',
    treatments: schema.treatments.filter((x) => latest.treatments.includes(x.treatment_id)),
    reasons: [],
    cautions: [],
    alternative: null,
    emergency: null,
    // Not recomputed here: checkout refuses a late delivery with its own message (EC_DELIVERY_TOO_LATE).
    delivery: [],
    created_at: latest.created_at,
  };
  return <Result submission={submission} schema={schema} />;
}

/** Back from the provider's page: the session check (which may finalise the consultation). */
export function CheckoutReturn() {
  const { t } = useI18n();
  const { query } = useLocation();
  const id = query.get('session_id') ?? '';
  const [state, setState] = useState<{ status: string; consultation_id?: string | null; kind?: string } | null>(null);
  const rs = useSignatureStrings();
  const repeat = state?.kind === 'repeat_supply';
  const [failed, setError] = useState(false);
  // No session id in the address: nothing to check.
  const error = failed || !id;
  const cancelled = Boolean(query.get('cancelled'));
  useEffect(() => {
    if (!id) return;
    let live = true;
    let tries = 0;
    const provider = localStorage.getItem('pts.checkout.provider') === 'stripe' ? 'stripe' : 'sandbox';
    const check = async () => {
      const path = provider === 'stripe' ? '/v1/users/stripe/session/{id}/' : '/v1/users/sandbox/session/{id}/';
      const { data } = await api.GET(path, { params: { path: { id } } });
      if (!live) return;
      if (!data) return setError(true);
      setState(data);
      // The provider may confirm a moment after the redirect: check again a few times.
      if (data.status === 'open' && !cancelled && tries++ < 5) setTimeout(check, 1500);
    };
    void check();
    return () => {
      live = false;
    };
  }, [id, cancelled]);
  return (
    <section className="narrow">
      <PageTitle>{t('checkout.title')}</PageTitle>
      {error ? <Alert kind="error">{t('checkout.expired')}</Alert> : null}
      {!state && !error ? <Loading /> : null}
      {state?.status === 'paid' && repeat ? (
        <Alert kind="success">
          {rs('repeatPaid')} <Link to="/orders">{rs('repeatViewOrders')}</Link>
        </Alert>
      ) : null}
      {state?.status === 'refunded' && repeat ? <Alert kind="error">{rs('repeatRefunded')}</Alert> : null}
      {state?.status === 'paid' && !repeat ? (
        <Alert kind="success">
          {t('checkout.paid')} {state.consultation_id ? <Link to={`/consultations/${state.consultation_id}`}>{t('checkout.view')}</Link> : null}
        </Alert>
      ) : null}
      {state && state.status === 'open' ? <Alert>{query.get('cancelled') ? t('checkout.cancelled') : t('checkout.open')}</Alert> : null}
      {state && (state.status === 'declined' || state.status === 'expired') ? <Alert kind="error">{state.status === 'expired' ? t('checkout.expired') : t('checkout.cancelled')}</Alert> : null}
      <p>
        <Link to="/home">{t('nav.home')}</Link>
      </p>
    </section>
  );
}

