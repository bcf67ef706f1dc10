// The clinician desk (doctor role): review queue, consultation page with the answers and the engine's
// verdict, approve / reject / request information; the conversations inbox with replies.
import { useRef, useState, type FormEvent } from 'react';
import { api, authFetch, errorText, fieldErrors, type Schemas } from '../api/client';
import { engineReasons, errorCode } from '../api/typing';
import { Alert, Field, LoadError, Loading, PageTitle, Select, StatusBadge, TextArea, useLoad } from '../components/ui';
import { useI18n } from '../i18n';
import { countryName } from '../countries';
import { Link } from '../router';
import { MessageList } from './messages';
import { DoseChangeDesk } from '../components/DoseChangeDesk';
import { DeskVerificationPanel } from '../features/verification/DeskVerificationPanel';
import type { Question } from '../questionnaire/model';
import { DeskPhotos } from '../features/photos/DeskPhotos';
import { DeskSignatures } from '../features/signature/DeskSignature';
import { NO_REPEATS, RepeatsFields, repeatsBody } from '../features/signature/RepeatsFields';
import { DeskConsultationCall, RequestCallForm } from '../features/appointments/pages';

// Emergency contraception is time-critical: the API puts it first, then the oldest (the page keeps the
// server's order and only marks those rows).
const URGENT = 'emergency_contraception';

/** The catalogue's category titles in the desk's language (slug -> title); the slug until they load. */
function useCategoryTitle() {
  const { locale } = useI18n();
  const cats = useLoad(() => api.GET('/v1/users/questionnaires/categories/', { params: { query: { locale } } }), [locale]);
  const titles = new Map((cats.data?.categories ?? []).map((c) => [c.slug, c.title] as const));
  return (slug: string) => titles.get(slug) ?? slug.replace(/_/g, ' ');
}

// The catalogue's names often carry the dose already ("Finasterid 1 mg Tabletten"): not twice.
const withDose = (name: string, dose: string | null | undefined) => (!dose || name.includes(dose) ? name : `${name} ${dose}`);
const personName = (u: { first_name?: string | null; last_name?: string | null; email: string }) => [u.first_name, u.last_name].filter(Boolean).join(' ') || u.email;

export function Desk() {
  const { t, dateTime } = useI18n();
  const categoryTitle = useCategoryTitle();
  const queue = useLoad(() => api.GET('/v1/clinician/consultations/', { params: { query: { status: 'pending_review', limit: 100 } } }));
  const rows = queue.data?.results ?? [];
  return (
    <section>
      <PageTitle>{t('desk.title')}</PageTitle>
      <LoadError error={queue.error} />
      {queue.loading && !queue.data ? <Loading /> : null}
      {queue.data && !rows.length ? <p>{t('desk.empty')}</p> : null}
      {rows.length ? (
        <table>
          <thead>
            <tr>
              <th scope="col">{t('desk.patient')}</th>
              <th scope="col">{t('desk.category')}</th>
              <th scope="col">{t('desk.waiting')}</th>
              <th scope="col">{t('consultations.status')}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((c) => (
              <tr key={c.id} className={c.category === URGENT ? 'urgent' : undefined}>
                <td>
                  <Link to={`/desk/consultations/${c.id}`}>
                    {personName(c.user)}
                  </Link>
                </td>
                <td>
                  {categoryTitle(c.category)} {c.origin === 'renewal' || c.origin === 'early_order' ? <span className="badge">{t('desk.renewal')}</span> : null}
                </td>
                <td>{dateTime(c.created_at)}</td>
                <td>
                  <StatusBadge status={c.status} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <DoseChangeDesk />
    </section>
  );
}

type ClinicianConsultation = Schemas['ClinicianConsultation'];

export function DeskConsultation({ id }: { id: string }) {
  const { t, date, dateTime, locale } = useI18n();
  const categoryTitle = useCategoryTitle();
  const c = useLoad<ClinicianConsultation>(() => api.GET('/v1/clinician/consultations/{id}/', { params: { path: { id } } }), [id]);
  // The question texts of the category (public schema) in the desk's language, to show the answers as
  // the patient saw them. Loaded before the answers are shown: the result names the category and
  // locale it was loaded for, so answers never render with the previous (or no) texts.
  const category = c.data?.category;
  const schema = useLoad(async () => {
    if (!category) return { data: undefined };
    const r = await api.GET('/v1/users/questionnaires/{slug}/schema/', { params: { path: { slug: category }, query: { locale } } });
    // A category without a questionnaire (or an error): the answers are shown by their keys.
    // The treatments' names come with it, in the same language (the desk's own options are English).
    const treatmentNames: Record<string, string> = Object.fromEntries((r.data?.treatments ?? []).map((x) => [x.treatment_id, x.name]));
    return { data: { category, locale, questions: (r.data?.steps ?? []).flatMap((st) => st.questions), treatmentNames } };
  }, [category, locale]);
  const [treatment, setTreatment] = useState('');
  const [dosage, setDosage] = useState('');
  const [note, setNote] = useState('');
  const [instructions, setInstructions] = useState('');
  const [reason, setReason] = useState('');
  const [overrideReason, setOverrideReason] = useState('');
  const [repeats, setRepeats] = useState(NO_REPEATS);
  const [repeatErrors, setRepeatErrors] = useState<Record<string, string>>({});
  // Set when the API answered override_required for the chosen treatment and dose.
  const [overrideAsked, setOverrideAsked] = useState(false);
  const [gpReason, setGpReason] = useState('');
  const [error, setError] = useState('');
  const [done, setDone] = useState('');
  if (c.error) return <Alert kind="error">{t('app.notFound')}</Alert>;
  if (!c.data || schema.data?.category !== c.data.category || schema.data.locale !== locale) return <Loading />;
  const x = c.data;
  const options = x.treatment_options ?? [];
  const localNames = schema.data.treatmentNames;
  const treatmentName = (tid: string) => localNames[tid] ?? options.find((o) => o.id === tid)?.name ?? tid;
  const planLabel = (plan: string) => (plan === 'one_off' || plan === 'subscription' ? t(`desk.plan.${plan}`) : plan);
  const originLabel = (origin: string) =>
    origin === 'renewal' ? t('desk.renewal') : origin === 'checkout' || origin === 'subscription_covered' || origin === 'early_order' || origin === 'express_reorder' ? t(`desk.origin.${origin}`) : origin;
  // Until the doctor picks another, the consultation's own treatment and dose are the choice (a dose
  // the newly picked treatment does not have falls back to its first step).
  const chosenTreatment = treatment || x.treatment_id;
  const dosages = options.find((o) => o.id === chosenTreatment)?.dosages ?? [];
  const maxRepeats = options.find((o) => o.id === chosenTreatment)?.max_repeats ?? 0;
  const chosenDosage = dosage || (chosenTreatment === x.treatment_id || !dosages.length ? x.dosage : (dosages[0] ?? x.dosage));
  const eligibility = x.questionnaire_submission?.eligibility;
  const reasons = engineReasons(eligibility, 'reasons');
  const cautions = engineReasons(eligibility, 'cautions');
  const check = x.prescribing_check;
  // Outside the engine's verdict: the consultation's own choice when the check failed, or a treatment
  // or dose the check does not allow. The API decides (override_required); this only asks up front.
  const outside =
    overrideAsked ||
    (check
      ? (chosenTreatment === x.treatment_id && chosenDosage === x.dosage && !check.ok) ||
        (check.allowed_treatments.length > 0 && !check.allowed_treatments.includes(chosenTreatment)) ||
        (chosenTreatment === x.treatment_id && check.allowed_dosages.length > 0 && !check.allowed_dosages.includes(chosenDosage))
      : false);
  const overrideShort = outside && overrideReason.trim().length < 20;
  // A category whose letters to the patient's own doctor are required, without the consent or a GP:
  // the approval needs the doctor's written reason (else 409 gp_consent_required).
  const gpMissing = x.gp_sharing.level === 'required' && !(x.gp_sharing.consent && x.gp_sharing.gp_on_file);
  const gpShort = gpMissing && gpReason.trim().length < 20;
  const open = x.status === 'pending_review' || x.status === 'needs_information' || x.status === 'awaiting_call';
  const questions = new Map<string, Question>(schema.data.questions.map((q) => [q.question_key, q] as const));
  const questionText = (key: string) => questions.get(key)?.text ?? key.replace(/_/g, ' ');
  const label = (key: string, value: unknown) => {
    const q = questions.get(key);
    if (typeof value === 'boolean') return value ? t('q.yes') : t('q.no');
    return q?.options?.find((o) => o.value === value)?.label ?? String(value ?? '—');
  };
  const unit = (key: string) => {
    const u = questions.get(key)?.unit;
    return u ? ` ${u}` : '';
  };
  // An answer as the patient saw it (a list: the chosen options).
  const shown = (key: string, value: EarlierValue) => {
    if (value === null) return '—';
    const text = Array.isArray(value) ? value.map((v) => label(key, v)).join(', ') || '—' : label(key, value);
    return `${text}${unit(key)}`;
  };
  const changedSinceLast = new Set((x.earlier_submissions[0]?.changed_answers ?? []).map((a) => a.question_key));

  async function act(kind: 'approve' | 'reject' | 'request', e?: FormEvent) {
    e?.preventDefault();
    setError('');
    const path = { params: { path: { id } } };
    const r =
      kind === 'approve'
        ? await api.POST('/v1/clinician/consultations/{id}/approve/', {
            ...path,
            body: {
              treatment_id: chosenTreatment || undefined,
              dosage: chosenDosage || undefined,
              note: note || undefined,
              instructions: instructions || undefined,
              override_reason: outside && overrideReason.trim() ? overrideReason.trim() : undefined,
              gp_sharing_override_reason: gpMissing && gpReason.trim() ? gpReason.trim() : undefined,
              ...repeatsBody(repeats, maxRepeats),
            },
          })
        : kind === 'reject'
          ? await api.POST('/v1/clinician/consultations/{id}/reject/', { ...path, body: { decision_reason: reason } })
          : await api.POST('/v1/clinician/consultations/{id}/request-information/', { ...path, body: { decision_reason: reason } });
    const repeatErrors = kind === 'approve' ? fieldErrors(r.error) : {};
    setRepeatErrors(repeatErrors);
    if (r.data) {
      setDone(t('desk.done'));
      setOverrideAsked(false);
      c.reload(); // the detail (prescribing_override, status) as the API has it now
    } else if (errorCode(r.error) === 'override_required') {
      setOverrideAsked(true);
      setError(t('desk.overrideRequired'));
    } else if (!repeatErrors.repeats && !repeatErrors.repeat_interval_days) setError(errorText(r.error, t('app.error')));
  }

  return (
    <section>
      <PageTitle>{`${categoryTitle(x.category)}: ${personName(x.user)}`}</PageTitle>
      <p>
        <Link to="/desk">{t('app.back')}</Link>
      </p>
      <DeskVerificationPanel verification={x.verification} />
      <dl className="facts">
        <dt>{t('consultations.status')}</dt>
        <dd>
          <StatusBadge status={x.status} />
        </dd>
        <dt>{t('desk.patient')}</dt>
        <dd>
          {x.user.email} · {t('profile.dob')} {date(x.user.date_of_birth)} · {x.user.country_of_residence ? countryName(x.user.country_of_residence, locale) : '—'}
        </dd>
        <dt>{t('consultations.created')}</dt>
        <dd>{dateTime(x.created_at)}</dd>
        <dt>{t('consultations.treatment')}</dt>
        <dd>
          {withDose(treatmentName(x.treatment_id), x.dosage)} ({planLabel(x.plan)}, {originLabel(x.origin)})
        </dd>
        <dt>{t('desk.gpSharing')}</dt>
        <dd>
          {[
            t(x.gp_sharing.level === 'required' ? 'desk.gpRequired' : x.gp_sharing.level === 'recommended' ? 'desk.gpRecommended' : 'desk.gpNone'),
            t(x.gp_sharing.consent && x.gp_sharing.gp_on_file ? 'desk.gpConsent' : 'desk.gpNoConsent'),
            ...(x.gp_sharing.letter
              ? [x.gp_sharing.letter.status === 'sent' ? t('desk.gpLetterSent', { date: dateTime(x.gp_sharing.letter.sent_at) }) : t(x.gp_sharing.letter.status === 'queued' ? 'desk.gpLetterQueued' : 'desk.gpLetterWithheld')]
              : []),
          ].join(' · ')}
          {x.gp_sharing.override_reason ? <blockquote className="override-reason">{x.gp_sharing.override_reason}</blockquote> : null}
        </dd>
      </dl>
      {x.questionnaire_submission || !x.renewal ? (
        <>
          <h2>{t('desk.verdict')}</h2>
          <p>
            <StatusBadge status={x.questionnaire_submission?.outcome ?? 'none'} />
          </p>
        </>
      ) : null}
      {reasons.length ? (
        <ul>
          {reasons.map((r) => (
            <li key={r.code}>
              <code>{r.code}</code> {r.message} {r.source ? <small>({r.source})</small> : null}
            </li>
          ))}
        </ul>
      ) : null}
      {cautions.length ? (
        <ul>
          {cautions.map((r) => (
            <li key={r.code}>
              <code>{r.code}</code> {r.message}
            </li>
          ))}
        </ul>
      ) : null}
      {check ? <PrescribingCheck check={check} treatmentName={treatmentName} /> : null}
      {x.prescribing_override ? (
        <>
          <h2>{t('desk.override')}</h2>
          <Alert>
            {t('desk.overrideBy', { date: dateTime(x.prescribing_override.created_at), doctor: x.prescribing_override.doctor_id.slice(0, 8), treatment: treatmentName(x.prescribing_override.treatment_id), dosage: x.prescribing_override.dosage })}
          </Alert>
          <blockquote className="override-reason">{x.prescribing_override.reason}</blockquote>
          {x.prescribing_override.reason_codes.length ? (
            <p>
              {t('desk.codes')}: {x.prescribing_override.reason_codes.map((code) => <code key={code}>{code} </code>)}
            </p>
          ) : null}
        </>
      ) : null}
      {x.renewal ? <RenewalDetails renewal={x.renewal} treatmentName={treatmentName} /> : null}
      <h2>{t('desk.answers')}</h2>
      <table>
        <tbody>
          {/* Photo answers are shown as photos, below. */}
          {x.form_snapshot.filter((a) => questions.get(a.question_key)?.type !== 'photo').map((a) => {
            const text = shown(a.question_key, answerValue(a));
            return (
              <tr key={a.question_key}>
                <th scope="row">{questionText(a.question_key)}</th>
                {/* Changed since the newest earlier submission: highlighted. */}
                <td>{changedSinceLast.has(a.question_key) ? <mark>{text}</mark> : text}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <DeskPhotos photos={x.photos} earlier={x.earlier_photos} />
      <DeskSignatures prescriptionIds={x.prescriptions.map((p) => p.id)} />
      {x.questionnaire_submission ? <EarlierSubmissions earlier={x.earlier_submissions} current={x.form_snapshot} question={questionText} show={shown} /> : null}
      {done ? <Alert kind="success">{done}</Alert> : null}
      {error ? <Alert kind="error">{error}</Alert> : null}
      {x.status === 'pending_review' || x.status === 'needs_information' ? <RequestCallForm consultationId={x.id} onDone={c.reload} /> : null}
      {x.status === 'awaiting_call' ? <DeskConsultationCall consultationId={x.id} reason={x.decision_reason} /> : null}
      {open ? (
        <div className="grid">
          <form className="card" onSubmit={(e) => act('approve', e)}>
            <h2>{t('desk.approve')}</h2>
            {options.length ? (
              <Select
                label={t('desk.treatment')}
                name="treatment_id"
                value={chosenTreatment}
                options={options.map((o) => ({ value: o.id, label: treatmentName(o.id) }))}
                onChange={(e) => {
                  setTreatment(e.target.value);
                  setDosage('');
                  setRepeats(NO_REPEATS);
                }}
              />
            ) : (
              <Field label={t('desk.treatment')} name="treatment_id" value={chosenTreatment} onChange={(e) => setTreatment(e.target.value)} />
            )}
            {dosages.length ? (
              <Select label={t('desk.dosage')} name="dosage" value={chosenDosage} options={dosages.map((d) => ({ value: d, label: d }))} onChange={(e) => setDosage(e.target.value)} />
            ) : (
              <Field label={t('desk.dosage')} name="dosage" value={chosenDosage} onChange={(e) => setDosage(e.target.value)} />
            )}
            <TextArea label={t('desk.instructions')} name="instructions" value={instructions} onChange={(e) => setInstructions(e.target.value)} />
            <RepeatsFields max={maxRepeats} value={repeats} onChange={setRepeats} errors={repeatErrors} />
            <TextArea label={t('desk.note')} name="note" value={note} onChange={(e) => setNote(e.target.value)} />
            {outside ? (
              <>
                <Alert kind="error">{t('desk.checkOutside')}</Alert>
                <TextArea
                  label={t('desk.overrideReason')}
                  name="override_reason"
                  required
                  minLength={20}
                  maxLength={2000}
                  value={overrideReason}
                  onChange={(e) => setOverrideReason(e.target.value)}
                  error={overrideAsked && overrideShort ? t('desk.overrideTooShort') : undefined}
                />
              </>
            ) : null}
            {gpMissing ? (
              <>
                <Alert kind="error">{t('desk.gpConsentMissing')}</Alert>
                <TextArea
                  label={t('desk.gpOverrideReason')}
                  name="gp_sharing_override_reason"
                  minLength={20}
                  maxLength={2000}
                  value={gpReason}
                  onChange={(e) => setGpReason(e.target.value)}
                />
              </>
            ) : null}
            <button type="submit" disabled={overrideShort || gpShort}>
              {t('desk.approve')}
            </button>
          </form>
          <form className="card" onSubmit={(e) => e.preventDefault()}>
            <h2>{t('desk.decision')}</h2>
            <TextArea label={t('desk.reason')} name="decision_reason" required value={reason} onChange={(e) => setReason(e.target.value)} />
            <div className="actions">
              <button type="button" className="danger" disabled={!reason.trim()} onClick={() => act('reject')}>
                {t('desk.reject')}
              </button>
              <button type="button" className="secondary" disabled={!reason.trim()} onClick={() => act('request')}>
                {t('desk.requestInfo')}
              </button>
            </div>
          </form>
        </div>
      ) : null}
    </section>
  );
}

type Earlier = ClinicianConsultation['earlier_submissions'];
type EarlierValue = Earlier[number]['changed_answers'][number]['before'];
type Snapshot = ClinicianConsultation['form_snapshot'];

/** A stored answer as the API compares them: its value, or a multiple choice's chosen options (sorted). */
function answerValue(a: Snapshot[number] | undefined): EarlierValue {
  if (!a) return null;
  if (a.values)
    return Object.entries(a.values)
      .filter(([, chosen]) => chosen === true)
      .map(([k]) => k)
      .sort();
  return a.value ?? null;
}

/**
 * The patient's earlier submissions of the category side by side with this one (newest first): one
 * column per submission, one row per answer that differs in any of them; an earlier answer that
 * differs from this submission's is highlighted, and the answers whose change held the consultation
 * are marked. The column head names the submission's date, outcome and the engine's reasons.
 */
function EarlierSubmissions({ earlier, current, question, show }: { earlier: Earlier; current: Snapshot; question: (key: string) => string; show: (key: string, value: EarlierValue) => string }) {
  const { t, dateTime } = useI18n();
  const now = new Map(current.map((a) => [a.question_key, answerValue(a)] as const));
  const changed = earlier.map((s) => new Map(s.changed_answers.map((c) => [c.question_key, c] as const)));
  const keys = [...new Set(earlier.flatMap((s) => s.changed_answers.map((c) => c.question_key)))];
  const deciding = new Set(earlier.flatMap((s) => s.changed_answers.filter((c) => c.deciding).map((c) => c.question_key)));
  return (
    <section aria-labelledby="earlier-h">
      <h2 id="earlier-h">{t('desk.earlier')}</h2>
      {!earlier.length ? <p>{t('desk.earlier.none')}</p> : null}
      {earlier.length && !keys.length ? <p>{t('desk.earlier.noChange')}</p> : null}
      {keys.length ? (
        // A scrolling frame is a labelled region that takes the keyboard focus (to scroll it by keys).
        <div className="table-scroll" role="region" aria-label={t('desk.earlier.changed')} tabIndex={0}>
          <table className="side-by-side">
            <caption>{t('desk.earlier.changed')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('desk.earlier.question')}</th>
                <th scope="col">{t('desk.earlier.after')}</th>
                {earlier.map((s) => (
                  <th scope="col" key={s.id} data-submission={s.id}>
                    {dateTime(s.created_at)} <StatusBadge status={s.outcome} />
                    {s.reason_codes.length ? (
                      <small className="codes">
                        {' '}
                        {s.reason_codes.map((code) => (
                          <code key={code}>{code} </code>
                        ))}
                      </small>
                    ) : null}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {keys.map((key) => (
                <tr key={key} className={deciding.has(key) ? 'urgent' : undefined}>
                  <th scope="row">{question(key)}</th>
                  <td>{show(key, now.get(key) ?? null)}</td>
                  {earlier.map((s, i) => {
                    const c = changed[i]?.get(key);
                    return <td key={s.id}>{c ? <mark>{show(key, c.before)}</mark> : show(key, now.get(key) ?? null)}</td>;
                  })}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}

type Check = NonNullable<ClinicianConsultation['prescribing_check']>;
type RenewalInfo = NonNullable<ClinicianConsultation['renewal']>;

/** The engine's verdict now on the consultation's treatment and dose, with its explanation. */
function PrescribingCheck({ check, treatmentName }: { check: Check; treatmentName: (id: string) => string }) {
  const { t } = useI18n();
  return (
    <>
      <h2>{t('desk.check')}</h2>
      <Alert kind={check.ok ? 'success' : 'error'}>{check.ok ? t('desk.checkOk') : t('desk.checkOutside')}</Alert>
      {check.explanation.length ? (
        <ul>
          {check.explanation.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      ) : null}
      <dl className="facts">
        <dt>{t('desk.allowedTreatments')}</dt>
        <dd>{check.allowed_treatments.map(treatmentName).join(', ') || '—'}</dd>
        <dt>{t('desk.allowedDosages')}</dt>
        <dd>{check.allowed_dosages.join(', ') || '—'}</dd>
        {check.reason_codes.length ? (
          <>
            <dt>{t('desk.codes')}</dt>
            <dd>
              {check.reason_codes.map((code) => (
                <code key={code}>{code} </code>
              ))}
            </dd>
          </>
        ) : null}
      </dl>
    </>
  );
}

const fmt = (n: number, digits = 1) => (Math.round(n * 10 ** digits) / 10 ** digits).toString();

/** A renewal: the patient's choice, the engine's result over the renewal answers, red flags and the weight trend. */
function RenewalDetails({ renewal: r, treatmentName }: { renewal: RenewalInfo; treatmentName: (id: string) => string }) {
  const { t, date, dateTime } = useI18n();
  const { choice, verdict, red_flags: flags, weight_trend: trend } = r;
  const doseChange = choice?.dose_change ?? null;
  const treatmentChange = choice?.treatment_change ?? null;
  const explanation = verdict?.explanation ?? [];
  const findings = [...(verdict?.reasons ?? []), ...(verdict?.cautions ?? [])];
  const status = r.patient_choice_status ?? '';
  return (
    <section aria-labelledby="renewal-h">
      <h2 id="renewal-h">{t('desk.choice')}</h2>
      <p>
        {status === 'pending' || status === 'confirmed' ? <span className="badge">{t(`desk.choice.${status}`)}</span> : status}
      </p>
      {choice ? (
        <dl className="facts">
          <dt>{t('desk.treatment')}</dt>
          <dd>
            {withDose(treatmentName(choice.treatment_id), choice.dosage)}
          </dd>
          {doseChange ? (
            <>
              <dt>{t('desk.dosage')}</dt>
              <dd>{t('desk.doseChange', { from: doseChange.from, to: doseChange.to })}</dd>
            </>
          ) : null}
          {treatmentChange ? (
            <>
              <dt>{t('desk.treatment')}</dt>
              <dd>{t('desk.treatmentChange', { from: treatmentName(treatmentChange.from), to: treatmentName(treatmentChange.to) })}</dd>
            </>
          ) : null}
          <dt>{t('desk.confirmedAt')}</dt>
          <dd>{dateTime(choice.confirmed_at ?? null)}</dd>
          <dt>{t('desk.changeNote')}</dt>
          <dd>{choice.changed ? `${t('desk.changed')}${choice.change_note ? `: ${choice.change_note}` : ''}` : t('desk.unchanged')}</dd>
        </dl>
      ) : (
        <p>{t('desk.noChoice')}</p>
      )}
      {verdict ? (
        <>
          <h3>{t('desk.renewalVerdict')}</h3>
          <p>
            <StatusBadge status={verdict.outcome || 'none'} />
          </p>
          {explanation.length ? (
            <ul>
              {explanation.map((line) => (
                <li key={line}>{line}</li>
              ))}
            </ul>
          ) : null}
          {findings.length ? (
            <ul>
              {findings.map((x, i) => (
                <li key={`${x.code}-${i}`}>
                  <code>{x.code}</code> {x.message}
                </li>
              ))}
            </ul>
          ) : null}
        </>
      ) : null}
      {flags.length ? (
        <>
          <h3>{t('desk.redFlags')}</h3>
          <ul>
            {flags.map((f, i) => (
              <li key={i} className="urgent">
                {dateTime(f.at)}: {f.codes.join(', ')}
              </li>
            ))}
          </ul>
        </>
      ) : null}
      <h3>{t('desk.weights')}</h3>
      {r.latest_weight ? <p>{t('desk.latestWeight', { kg: fmt(r.latest_weight.weight_kg), date: date(r.latest_weight.logged_on) })}</p> : <p>{t('desk.noWeight')}</p>}
      {trend ? (
        <p data-testid="weight-trend">
          {t('desk.trend', {
            from: fmt(trend.from.weight_kg),
            fromDate: date(trend.from.logged_on),
            to: fmt(trend.to.weight_kg),
            toDate: date(trend.to.logged_on),
            change: `${trend.change_kg > 0 ? '+' : ''}${fmt(trend.change_kg)}`,
            percent: `${trend.change_percent > 0 ? '+' : ''}${fmt(trend.change_percent)}`,
            days: trend.days,
            entries: trend.entries,
          })}
          {trend.kg_per_week !== null ? ` · ${t('desk.perWeek', { rate: fmt(trend.kg_per_week, 2) })}` : ''}
        </p>
      ) : null}
    </section>
  );
}

export function Inbox() {
  const { t, dateTime } = useI18n();
  const list = useLoad(() => api.GET('/v1/clinician/conversations/', { params: { query: { limit: 100 } } }));
  return (
    <section>
      <PageTitle>{t('nav.inbox')}</PageTitle>
      <LoadError error={list.error} />
      {list.loading && !list.data ? <Loading /> : null}
      {list.data && !list.data.results.length ? <p>{t('app.none')}</p> : null}
      <ul className="list">
        {list.data?.results.map((c) => (
          <li key={c.id} className={c.flagged_at ? 'urgent' : undefined}>
            <Link to={`/desk/conversations/${c.id}`}>{personName(c.user)}</Link>{' '}
            {/* The API's unread_count counts the team's messages the patient has not read; a thread whose
                last message is the patient's is waiting for a reply. */}
            {c.last_message_sender_type === 'USER' ? <span className="badge">{t('desk.awaiting')}</span> : null} {c.flagged_at ? <span className="badge badge-rejected">{t('desk.flagged')}</span> : null}{' '}
            <small>{dateTime(c.last_message_created_at)}</small>
          </li>
        ))}
      </ul>
    </section>
  );
}

export function InboxConversation({ id }: { id: string }) {
  const { t } = useI18n();
  const msgs = useLoad(() => api.GET('/v1/clinician/conversations/{id}/messages/', { params: { path: { id } } }), [id]);
  // The patient's name: the conversations list carries it (the messages do not).
  const list = useLoad(() => api.GET('/v1/clinician/conversations/', { params: { query: { limit: 100 } } }));
  const patient = list.data?.results.find((c) => c.id === id)?.user;
  const [content, setContent] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  // A file sent with the reply (multipart, as the patient's send): text is then optional.
  const [hasFile, setHasFile] = useState(false);
  const fileRef = useRef<HTMLInputElement>(null);
  // Sending replaces the file input (a fresh, empty one), so a sent file is never sent again.
  const [fileKey, setFileKey] = useState(0);
  async function reply(e: FormEvent) {
    e.preventDefault();
    const file = fileRef.current?.files?.[0];
    if (!content.trim() && !file) return;
    setBusy(true);
    setError('');
    let failure: unknown = null;
    if (file) {
      const fd = new FormData();
      if (content.trim()) fd.append('content', content);
      fd.append('file', file);
      const r = await authFetch(`/v1/clinician/conversations/${id}/messages/`, { method: 'POST', body: fd });
      if (!r.ok) failure = (await r.json().catch(() => ({}))) as unknown;
    } else {
      const r = await api.POST('/v1/clinician/conversations/{id}/messages/', { params: { path: { id } }, body: { content } });
      if (!r.data) failure = r.error ?? {};
    }
    setBusy(false);
    if (failure !== null) {
      setError(errorText(failure, t('app.error')));
      return;
    }
    setContent('');
    setFileKey((k) => k + 1);
    setHasFile(false);
    msgs.reload();
  }
  if (msgs.error) return <Alert kind="error">{t('app.notFound')}</Alert>;
  return (
    <section>
      <PageTitle>{patient ? `${t('nav.inbox')}: ${personName(patient)}` : t('nav.inbox')}</PageTitle>
      <p>
        <Link to="/desk/conversations">{t('app.back')}</Link>
      </p>
      {msgs.data ? <MessageList messages={msgs.data} mine="DOCTOR" filePath={(m) => `/v1/clinician/conversations/${id}/messages/${m.id}/file/`} /> : <Loading />}
      <form onSubmit={reply}>
        {error ? <Alert kind="error">{error}</Alert> : null}
        <TextArea label={t('desk.reply')} name="reply" required={!hasFile} maxLength={5000} value={content} onChange={(e) => setContent(e.target.value)} />
        <div className="field">
          <label htmlFor="desk-reply-file">{t('messages.attach')}</label>
          <input key={fileKey} id="desk-reply-file" ref={fileRef} type="file" name="file" accept="application/pdf,image/jpeg,image/png,image/heic" onChange={(e) => setHasFile(Boolean(e.target.files?.length))} />
        </div>
        <button type="submit" disabled={busy}>
          {t('messages.send')}
        </button>
      </form>
    </section>
  );
}

