// The progress journal: weight (with the chart), injections, the injection plan, notes and side effects.
import { useState, type FormEvent } from 'react';
import { api, errorText, fieldErrors, type Schemas } from '../api/client';
import { useCatalogue } from '../components/catalogue';
import { useEmergency } from '../components/Emergency';
import { WeightChart } from '../components/WeightChart';
import { Alert, Field, Loading, PageTitle, Select, TextArea, useLoad } from '../components/ui';
import { useI18n } from '../i18n';
import { InjectionReminderOffer } from '../features/notifications';

const today = () => new Date().toISOString().slice(0, 10);

/**
 * The next injection day of the plan: its weekday (0 = Monday) on or after today, the plan's start and
 * the day after the last injection (the rule the assistant connector uses, src/modules/mcp/tools.ts).
 */
export function nextInjectionOn(plan: { anchor_weekday: number; starts_on: string; active: boolean }, lastInjectedAt: string | null, now: Date): string | null {
  if (!plan.active) return null;
  const day = (d: Date) => Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  let from = Math.max(day(now), Date.parse(`${plan.starts_on.slice(0, 10)}T00:00:00Z`));
  if (lastInjectedAt) from = Math.max(from, day(new Date(lastInjectedAt)) + 86_400_000);
  const weekday = (new Date(from).getUTCDay() + 6) % 7;
  return new Date(from + ((plan.anchor_weekday - weekday + 7) % 7) * 86_400_000).toISOString().slice(0, 10);
}

type Subscription = Schemas['Subscription'];
/** The plans whose prescribed treatment is injected now (not ended): the injection form picks from them. */
const supplyingPlans = (subs: Subscription[] | undefined) => (subs ?? []).filter((s) => s.status !== 'canceled' && s.treatment_id);

export default function Journal() {
  const { t } = useI18n();
  const weights = useLoad(() => api.GET('/v1/users/journal/weight-entries/', { params: { query: { limit: 200 } } }));
  if (weights.loading && !weights.data && !weights.error) return <Loading />;
  if (weights.error)
    return (
      <section>
        <PageTitle>{t('journal.title')}</PageTitle>
        <Alert>{t('journal.noPlan')}</Alert>
      </section>
    );
  return (
    <section>
      <PageTitle>{t('journal.title')}</PageTitle>
      <Weight entries={weights.data?.results ?? []} reload={weights.reload} />
      <Injections />
      <Plan />
      <Notes />
      <SideEffects />
    </section>
  );
}

function Weight({ entries, reload }: { entries: { id: string; weight_kg: number; logged_on: string; note: string; verified_at?: string | null }[]; reload: () => void }) {
  const { t, date } = useI18n();
  const showEmergency = useEmergency();
  const [form, setForm] = useState({ weight_kg: '', logged_on: today(), note: '' });
  const [errors, setErrors] = useState<Record<string, string>>({});
  // The goal weight is kept by the service (GET/PUT /v1/users/journal/goal/): it follows the patient to every device.
  const stored = useLoad(() => api.GET('/v1/users/journal/goal/'));
  const [saved, setSaved] = useState<{ goal_weight_kg: number | null } | null>(null);
  const goal = (saved ?? stored.data)?.goal_weight_kg ?? null;
  const [goalText, setGoalText] = useState<string | null>(null);
  const [goalError, setGoalError] = useState<string | undefined>();
  async function saveGoal(e: FormEvent) {
    e.preventDefault();
    const text = (goalText ?? '').trim();
    const { data, error } = await api.PUT('/v1/users/journal/goal/', { body: { goal_weight_kg: text === '' ? null : Number(text.replace(',', '.')) } });
    setGoalError(data ? undefined : fieldErrors(error).goal_weight_kg);
    if (data) {
      setSaved(data);
      setGoalText(null);
    }
  }
  async function submit(e: FormEvent) {
    e.preventDefault();
    const { data, error } = await api.POST('/v1/users/journal/weight-entries/', { body: { weight_kg: Number(form.weight_kg), logged_on: form.logged_on, note: form.note } });
    setErrors(data ? {} : fieldErrors(error));
    if (data) {
      setForm({ ...form, weight_kg: '', note: '' });
      reload();
      // The note is read for red flags: the service's notice, as it sent it (one typed shape).
      if (data.emergency) showEmergency(data.emergency);
    }
  }
  return (
    <section aria-labelledby="weight-h">
      <h2 id="weight-h">{t('journal.weight')}</h2>
      <WeightChart points={entries} goal={goal} />
      <form onSubmit={saveGoal} className="inline-form" noValidate>
        <Field label={t('journal.goal')} name="goal_kg" type="number" inputMode="decimal" step="0.1" min="20" max="500" value={goalText ?? (goal === null ? '' : String(goal))} onChange={(e) => setGoalText(e.target.value)} hint={t('journal.goalHint')} error={goalError} />
        <button type="submit" className="secondary">
          {t('journal.setGoal')}
        </button>
      </form>
      <form onSubmit={submit} className="inline-form" noValidate>
        <Field label={t('journal.weightKg')} name="weight_kg" type="number" inputMode="decimal" step="0.1" min="20" max="400" required value={form.weight_kg} onChange={(e) => setForm({ ...form, weight_kg: e.target.value })} error={errors.weight_kg} />
        <Field label={t('journal.date')} name="logged_on" type="date" required value={form.logged_on} onChange={(e) => setForm({ ...form, logged_on: e.target.value })} error={errors.logged_on} />
        <Field label={t('journal.note')} name="note" value={form.note} onChange={(e) => setForm({ ...form, note: e.target.value })} error={errors.note} />
        <button type="submit">{t('journal.log')}</button>
      </form>
      <ul className="list compact">
        {entries.slice(0, 10).map((w) => (
          <li key={w.id}>
            {date(w.logged_on)}: {w.weight_kg} kg {w.verified_at ? <span className="badge">{t('journal.verified')}</span> : null} {w.note ? `· ${w.note}` : ''}
            <button
              type="button"
              className="link"
              onClick={async () => {
                await api.DELETE('/v1/users/journal/weight-entries/{id}/', { params: { path: { id: w.id } } });
                reload();
              }}
            >
              {t('journal.delete')}
              <span className="visually-hidden"> {date(w.logged_on)}</span>
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}

function Injections() {
  const { t, dateTime, date } = useI18n();
  const showEmergency = useEmergency();
  const list = useLoad(() => api.GET('/v1/users/journal/injections/', { params: { query: { limit: 20 } } }));
  const subs = useLoad(() => api.GET('/v1/users/subscriptions/', { params: { query: { limit: 50 } } }));
  const plan = useLoad(() => api.GET('/v1/users/journal/injection-plan/'));
  const plans = supplyingPlans(subs.data?.results);
  const cat = useCatalogue(plans.map((p) => p.category));
  const [choice, setChoice] = useState('');
  const [form, setForm] = useState({ dose: '', medication: '', injected_at: '', injection_site: 'abdomen' });
  const [errors, setErrors] = useState<Record<string, string>>({});
  // The medication and dose come from the plan the doctor approved (its current dose); free text only without one.
  const chosen = plans.find((p) => p.id === choice) ?? plans[0];
  const medication = chosen ? cat.treatment(chosen.category, chosen.treatment_id) : form.medication;
  const dose = chosen ? chosen.dosage : form.dose;
  const last = list.data?.results[0]?.injected_at ?? null;
  const next = plan.data ? nextInjectionOn(plan.data, last, new Date()) : null;
  async function submit(e: FormEvent) {
    e.preventDefault();
    const at = form.injected_at ? new Date(form.injected_at).toISOString() : '';
    const { data, error } = await api.POST('/v1/users/journal/injections/', {
      body: { dose, medication: medication.slice(0, 64) || undefined, injected_at: at, injection_site: form.injection_site as 'abdomen' },
    });
    setErrors(data ? {} : fieldErrors(error));
    if (data) list.reload();
    if (data?.emergency) showEmergency(data.emergency);
  }
  return (
    <section aria-labelledby="inj-h">
      <h2 id="inj-h">{t('journal.injections')}</h2>
      {next ? (
        <p data-testid="next-injection">
          <strong>{t('journal.nextInjection', { date: date(next) })}</strong>
        </p>
      ) : null}
      <form onSubmit={submit} className="inline-form" noValidate>
        {plans.length ? (
          <>
            <Select
              label={t('journal.medication')}
              name="plan"
              value={chosen?.id ?? ''}
              options={plans.map((p) => ({ value: p.id, label: cat.treatment(p.category, p.treatment_id) }))}
              onChange={(e) => setChoice(e.target.value)}
              error={errors.medication}
            />
            <Field label={t('journal.dose')} name="dose" value={dose} readOnly error={errors.dose} hint={t('journal.doseFromPlan')} />
          </>
        ) : (
          <>
            <Field label={t('journal.dose')} name="dose" required maxLength={80} value={form.dose} onChange={(e) => setForm({ ...form, dose: e.target.value })} error={errors.dose} />
            <Field label={t('journal.medication')} name="medication" maxLength={64} value={form.medication} onChange={(e) => setForm({ ...form, medication: e.target.value })} error={errors.medication} />
          </>
        )}
        <Field label={t('journal.injectedAt')} name="injected_at" type="datetime-local" required value={form.injected_at} onChange={(e) => setForm({ ...form, injected_at: e.target.value })} error={errors.injected_at} />
        <Select
          label={t('journal.site')}
          name="injection_site"
          value={form.injection_site}
          options={(['abdomen', 'thigh', 'upper_arm'] as const).map((s) => ({ value: s, label: t(`journal.site.${s}`) }))}
          onChange={(e) => setForm({ ...form, injection_site: e.target.value })}
        />
        <button type="submit">{t('journal.logInjection')}</button>
      </form>
      <ul className="list compact">
        {list.data?.results.map((i) => (
          <li key={i.id}>
            {dateTime(i.injected_at)}: {i.medication} {i.dose} {i.injection_site ? `· ${t(`journal.site.${i.injection_site}`)}` : ''}
          </li>
        ))}
      </ul>
    </section>
  );
}

function Plan() {
  const { t, locale } = useI18n();
  const plan = useLoad(() => api.GET('/v1/users/journal/injection-plan/'));
  const [saved, setSaved] = useState(false);
  const [error, setError] = useState('');
  if (!plan.data) return null;
  const p = plan.data;
  const days = [0, 1, 2, 3, 4, 5, 6].map((d) => ({ value: String(d), label: new Intl.DateTimeFormat(locale, { weekday: 'long', timeZone: 'UTC' }).format(new Date(Date.UTC(2024, 0, 1 + d))) }));
  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const { data, error: err } = await api.PATCH('/v1/users/journal/injection-plan/', {
      body: { medication: String(f.get('medication')), anchor_weekday: Number(f.get('anchor_weekday')), preferred_time: String(f.get('preferred_time')), active: f.get('active') === 'on' },
    });
    setSaved(Boolean(data));
    setError(data ? '' : errorText(err, t('app.error')));
    if (data) plan.setData(data);
  }
  return (
    <section aria-labelledby="plan-h">
      <h2 id="plan-h">{t('journal.plan')}</h2>
      <form onSubmit={submit} className="inline-form" key={p.updated_at}>
        <Field label={t('journal.medication')} name="medication" maxLength={64} defaultValue={p.medication} />
        {/* 0 = Monday in the service's plan (anchor_weekday 0..6). */}
        <Select label={t('journal.weekday')} name="anchor_weekday" defaultValue={String(p.anchor_weekday)} options={days} />
        <Field label={t('journal.time')} name="preferred_time" type="time" defaultValue={p.preferred_time} />
        <label className="choice">
          <input type="checkbox" name="active" defaultChecked={p.active} /> <span>{t('status.active')}</span>
        </label>
        <button type="submit">{t('app.save')}</button>
        {saved ? <span role="status">{t('app.saved')}</span> : null}
        {error ? <Alert kind="error">{error}</Alert> : null}
      </form>
      {p.active ? <InjectionReminderOffer /> : null}
    </section>
  );
}

function Notes() {
  const { t, date } = useI18n();
  const showEmergency = useEmergency();
  const list = useLoad(() => api.GET('/v1/users/journal/notes/', { params: { query: { limit: 20 } } }));
  const [text, setText] = useState('');
  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!text.trim()) return;
    const { data } = await api.POST('/v1/users/journal/notes/', { body: { content: text } });
    if (data) {
      setText('');
      list.reload();
      // Notes are read for red flags (docs/red-flags.md): an emergency is shown, never saved silently.
      if (data.emergency) showEmergency(data.emergency);
    }
  }
  return (
    <section aria-labelledby="notes-h">
      <h2 id="notes-h">{t('journal.notes')}</h2>
      <form onSubmit={submit}>
        <TextArea label={t('journal.note')} name="note" value={text} onChange={(e) => setText(e.target.value)} />
        <button type="submit">{t('journal.addNote')}</button>
      </form>
      <ul className="list compact">
        {list.data?.results.map((n) => (
          <li key={n.id}>
            {date(n.created_at)}: {n.content}{' '}
            <button
              type="button"
              className="link"
              onClick={async () => {
                await api.DELETE('/v1/users/journal/notes/{id}/', { params: { path: { id: n.id } } });
                list.reload();
              }}
            >
              {t('journal.delete')}
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}

function SideEffects() {
  const { t, date } = useI18n();
  const showEmergency = useEmergency();
  const list = useLoad(() => api.GET('/v1/users/journal/side-effects/', { params: { query: { limit: 20 } } }));
  const [form, setForm] = useState({ symptom: '', severity: 'mild', note: '' });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [flagged, setFlagged] = useState(false);
  async function submit(e: FormEvent) {
    e.preventDefault();
    const { data, error } = await api.POST('/v1/users/journal/side-effects/', { body: { symptom: form.symptom, severity: form.severity as 'mild', note: form.note } });
    setErrors(data ? {} : fieldErrors(error));
    if (!data) return;
    setForm({ symptom: '', severity: 'mild', note: '' });
    setFlagged(data.flagged);
    list.reload();
    if (data.emergency) showEmergency(data.emergency);
  }
  return (
    <section aria-labelledby="se-h">
      <h2 id="se-h">{t('journal.sideEffects')}</h2>
      <form onSubmit={submit} noValidate>
        <Field label={t('journal.symptom')} name="symptom" required maxLength={200} value={form.symptom} onChange={(e) => setForm({ ...form, symptom: e.target.value })} error={errors.symptom} />
        <Select
          label={t('journal.severity')}
          name="severity"
          value={form.severity}
          options={(['mild', 'moderate', 'severe'] as const).map((s) => ({ value: s, label: t(`journal.severity.${s}`) }))}
          onChange={(e) => setForm({ ...form, severity: e.target.value })}
        />
        <TextArea label={t('journal.note')} name="side-effect-note" value={form.note} onChange={(e) => setForm({ ...form, note: e.target.value })} />
        <button type="submit">{t('journal.report')}</button>
        {flagged ? <Alert>{t('journal.flagged')}</Alert> : null}
      </form>
      <ul className="list compact">
        {list.data?.results.map((s) => (
          <li key={s.id}>
            {date(s.created_at)}: {s.symptom} ({t(`journal.severity.${s.severity}`)})
          </li>
        ))}
      </ul>
    </section>
  );
}
