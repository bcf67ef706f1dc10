// The clinician desk (doctor role): review queue, consultation page with the answers and the engine's
// verdict, approve / reject / request information; the conversations inbox with replies.
import { useEffect, useState, type FormEvent } from 'react';
import { api, errorText, type Schemas } from '../api/client';
import { Alert, Field, LoadError, Loading, PageTitle, Select, StatusBadge, TextArea, useLoad } from '../components/ui';
import { useI18n } from '../i18n';
import { countryName } from '../countries';
import { Link } from '../router';
import { MessageList } from './messages';
import { DoseChangeDesk } from '../components/DoseChangeDesk';
import type { QuestionnaireSchema } from '../questionnaire/model';

// Emergency contraception is time-critical: the API puts it first, then the oldest (the page keeps the
// server's order and only marks those rows).
const URGENT = 'emergency_contraception';

export function Desk() {
  const { t, dateTime } = useI18n();
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
                    {[c.user.first_name, c.user.last_name].filter(Boolean).join(' ') || c.user.email}
                  </Link>
                </td>
                <td>
                  {c.category.replace(/_/g, ' ')} {c.origin === 'renewal' || c.origin === 'early_order' ? <span className="badge">{t('desk.renewal')}</span> : null}
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
  const { t, date, dateTime } = useI18n();
  const c = useLoad<ClinicianConsultation>(() => api.GET('/v1/clinician/consultations/{id}/', { params: { path: { id } } }), [id]);
  const { locale } = useI18n();
  // The question texts of the category (public schema), to show answers as the patient saw them.
  const category = c.data?.category;
  const schema = useLoad<QuestionnaireSchema>(
    () => (category ? api.GET('/v1/users/questionnaires/{slug}/schema/', { params: { path: { slug: category }, query: { locale } } }) : Promise.resolve({})),
    [category, locale],
  );
  const [treatment, setTreatment] = useState('');
  const [dosage, setDosage] = useState('');
  const [note, setNote] = useState('');
  const [instructions, setInstructions] = useState('');
  const [reason, setReason] = useState('');
  const [overrideReason, setOverrideReason] = useState('');
  // Set when the API answered override_required for the chosen treatment and dose.
  const [overrideAsked, setOverrideAsked] = useState(false);
  const [error, setError] = useState('');
  const [done, setDone] = useState('');
  useEffect(() => {
    if (c.data) {
      setTreatment(c.data.treatment_id);
      setDosage(c.data.dosage);
    }
  }, [c.data?.id]);
  if (c.error) return <Alert kind="error">{t('app.notFound')}</Alert>;
  if (!c.data) return <Loading />;
  const x = c.data;
  const options = x.treatment_options ?? [];
  const dosages = options.find((o) => o.id === treatment)?.dosages ?? [];
  const eligibility = (x.questionnaire_submission?.eligibility ?? {}) as Record<string, any>;
  const check = x.prescribing_check;
  // Outside the engine's verdict: the consultation's own choice when the check failed, or a treatment
  // or dose the check does not allow. The API decides (override_required); this only asks up front.
  // Until the form state is filled from the consultation, its own treatment and dose are the choice.
  const chosenTreatment = treatment || x.treatment_id;
  const chosenDosage = dosage || x.dosage;
  const outside =
    overrideAsked ||
    (check
      ? (chosenTreatment === x.treatment_id && chosenDosage === x.dosage && !check.ok) ||
        (check.allowed_treatments.length > 0 && !check.allowed_treatments.includes(chosenTreatment)) ||
        (chosenTreatment === x.treatment_id && check.allowed_dosages.length > 0 && !check.allowed_dosages.includes(chosenDosage))
      : false);
  const overrideShort = outside && overrideReason.trim().length < 20;
  const open = x.status === 'pending_review' || x.status === 'needs_information';
  const questions = new Map((schema.data?.steps ?? []).flatMap((st) => st.questions.map((q) => [q.question_key, q] as const)));
  const label = (key: string, value: unknown) => {
    const q = questions.get(key);
    if (typeof value === 'boolean') return value ? t('q.yes') : t('q.no');
    return q?.options?.find((o) => o.value === value)?.label ?? String(value ?? '—');
  };

  const changedSinceLast = new Set((x.earlier_submissions[0]?.changed_answers ?? []).map((c) => c.question_key));
  // An answer of an earlier submission as the patient saw it (a list: the chosen options).
  const shown = (key: string, value: EarlierValue) => {
    if (value === null) return '—';
    const text = Array.isArray(value) ? value.map((v) => label(key, v)).join(', ') || '—' : label(key, value);
    return `${text}${questions.get(key)?.unit ? ` ${questions.get(key)!.unit}` : ''}`;
  };

  async function act(kind: 'approve' | 'reject' | 'request', e?: FormEvent) {
    e?.preventDefault();
    setError('');
    const path = { params: { path: { id } } };
    const r =
      kind === 'approve'
        ? await api.POST('/v1/clinician/consultations/{id}/approve/', {
            ...path,
            body: {
              treatment_id: treatment || undefined,
              dosage: dosage || undefined,
              note: note || undefined,
              instructions: instructions || undefined,
              override_reason: outside && overrideReason.trim() ? overrideReason.trim() : undefined,
            },
          })
        : kind === 'reject'
          ? await api.POST('/v1/clinician/consultations/{id}/reject/', { ...path, body: { decision_reason: reason } })
          : await api.POST('/v1/clinician/consultations/{id}/request-information/', { ...path, body: { decision_reason: reason } });
    if (r.data) {
      setDone(t('desk.done'));
      setOverrideAsked(false);
      c.reload(); // the detail (prescribing_override, status) as the API has it now
    } else if ((r.error as { code?: string } | undefined)?.code === 'override_required') {
      setOverrideAsked(true);
      setError(t('desk.overrideRequired'));
    } else setError(errorText(r.error, t('app.error')));
  }

  return (
    <section>
      <PageTitle>{`${x.category.replace(/_/g, ' ')}: ${[x.user.first_name, x.user.last_name].filter(Boolean).join(' ') || x.user.email}`}</PageTitle>
      <p>
        <Link to="/desk">{t('app.back')}</Link>
      </p>
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
          {x.treatment_id} {x.dosage} ({x.plan}, {x.origin})
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
      {Array.isArray(eligibility.reasons) && eligibility.reasons.length ? (
        <ul>
          {eligibility.reasons.map((r: any) => (
            <li key={r.code}>
              <code>{r.code}</code> {r.message} {r.source ? <small>({r.source})</small> : null}
            </li>
          ))}
        </ul>
      ) : null}
      {Array.isArray(eligibility.cautions) && eligibility.cautions.length ? (
        <ul>
          {eligibility.cautions.map((r: any) => (
            <li key={r.code}>
              <code>{r.code}</code> {r.message}
            </li>
          ))}
        </ul>
      ) : null}
      {check ? <PrescribingCheck check={check} /> : null}
      {x.prescribing_override ? (
        <>
          <h2>{t('desk.override')}</h2>
          <Alert>
            {t('desk.overrideBy', { date: dateTime(x.prescribing_override.created_at), doctor: x.prescribing_override.doctor_id.slice(0, 8), treatment: x.prescribing_override.treatment_id, dosage: x.prescribing_override.dosage })}
          </Alert>
          <blockquote className="override-reason">{x.prescribing_override.reason}</blockquote>
          {x.prescribing_override.reason_codes.length ? (
            <p>
              {t('desk.codes')}: {x.prescribing_override.reason_codes.map((code) => <code key={code}>{code} </code>)}
            </p>
          ) : null}
        </>
      ) : null}
      {x.renewal ? <RenewalDetails renewal={x.renewal} /> : null}
      <h2>{t('desk.answers')}</h2>
      <table>
        <tbody>
          {x.form_snapshot.map((a) => {
            const text = `${
              a.values
                ? Object.entries(a.values)
                    .filter(([, v]) => v === true)
                    .map(([k]) => label(a.question_key, k))
                    .join(', ') || '—'
                : label(a.question_key, a.value)
            }${questions.get(a.question_key)?.unit ? ` ${questions.get(a.question_key)!.unit}` : ''}`;
            return (
              <tr key={a.question_key}>
                <th scope="row">{questions.get(a.question_key)?.text ?? a.question_key.replace(/_/g, ' ')}</th>
                {/* Changed since the newest earlier submission: highlighted. */}
                <td>{changedSinceLast.has(a.question_key) ? <mark>{text}</mark> : text}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {x.questionnaire_submission ? <EarlierSubmissions earlier={x.earlier_submissions} question={(key) => questions.get(key)?.text ?? key.replace(/_/g, ' ')} show={(key, value) => shown(key, value)} /> : null}
      {done ? <Alert kind="success">{done}</Alert> : null}
      {error ? <Alert kind="error">{error}</Alert> : null}
      {open ? (
        <div className="grid">
          <form className="card" onSubmit={(e) => act('approve', e)}>
            <h2>{t('desk.approve')}</h2>
            {options.length ? (
              <Select label={t('desk.treatment')} name="treatment_id" value={treatment} options={options.map((o) => ({ value: o.id, label: o.name }))} onChange={(e) => setTreatment(e.target.value)} />
            ) : (
              <Field label={t('desk.treatment')} name="treatment_id" value={treatment} onChange={(e) => setTreatment(e.target.value)} />
            )}
            {dosages.length ? (
              <Select label={t('desk.dosage')} name="dosage" value={dosage} options={dosages.map((d) => ({ value: d, label: d }))} onChange={(e) => setDosage(e.target.value)} />
            ) : (
              <Field label={t('desk.dosage')} name="dosage" value={dosage} onChange={(e) => setDosage(e.target.value)} />
            )}
            <TextArea label={t('desk.instructions')} name="instructions" value={instructions} onChange={(e) => setInstructions(e.target.value)} />
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
            <button type="submit" disabled={overrideShort}>
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

/** The patient's earlier submissions of the category (newest first) and what changed since each one. */
function EarlierSubmissions({ earlier, question, show }: { earlier: Earlier; question: (key: string) => string; show: (key: string, value: EarlierValue) => string }) {
  const { t, dateTime } = useI18n();
  return (
    <section aria-labelledby="earlier-h">
      <h2 id="earlier-h">{t('desk.earlier')}</h2>
      {!earlier.length ? <p>{t('desk.earlier.none')}</p> : null}
      {earlier.map((s) => (
        <article key={s.id} aria-label={`${t('desk.earlier')}: ${dateTime(s.created_at)}`}>
          <h3>
            {dateTime(s.created_at)} <StatusBadge status={s.outcome} />
          </h3>
          {s.reason_codes.length ? (
            <p>
              {t('desk.codes')}: {s.reason_codes.map((code) => <code key={code}>{code} </code>)}
            </p>
          ) : null}
          {s.changed_answers.length ? (
            <table>
              <caption>{t('desk.earlier.changed')}</caption>
              <thead>
                <tr>
                  <th scope="col">{t('desk.earlier.question')}</th>
                  <th scope="col">{t('desk.earlier.before')}</th>
                  <th scope="col">{t('desk.earlier.after')}</th>
                </tr>
              </thead>
              <tbody>
                {s.changed_answers.map((c) => (
                  <tr key={c.question_key} className={c.deciding ? 'urgent' : undefined}>
                    <th scope="row">{question(c.question_key)}</th>
                    <td>{show(c.question_key, c.before)}</td>
                    <td>
                      <mark>{show(c.question_key, c.after)}</mark>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : (
            <p>{t('desk.earlier.noChange')}</p>
          )}
        </article>
      ))}
    </section>
  );
}

type Check = NonNullable<ClinicianConsultation['prescribing_check']>;
type RenewalInfo = NonNullable<ClinicianConsultation['renewal']>;
type Reason = { code?: string; message?: string; source?: string };

/** The engine's verdict now on the consultation's treatment and dose, with its explanation. */
function PrescribingCheck({ check }: { check: Check }) {
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
        <dd>{check.allowed_treatments.join(', ') || '—'}</dd>
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

const str = (v: unknown) => (typeof v === 'string' ? v : '');
const fmt = (n: number, digits = 1) => (Math.round(n * 10 ** digits) / 10 ** digits).toString();

/** A renewal: the patient's choice, the engine's result over the renewal answers, red flags and the weight trend. */
function RenewalDetails({ renewal: r }: { renewal: RenewalInfo }) {
  const { t, date, dateTime } = useI18n();
  const choice = (r.choice ?? null) as Record<string, unknown> | null;
  const verdict = (r.verdict ?? null) as Record<string, unknown> | null;
  const doseChange = choice?.dose_change as { from: string; to: string } | null | undefined;
  const treatmentChange = choice?.treatment_change as { from: string; to: string } | null | undefined;
  const explanation = Array.isArray(verdict?.explanation) ? (verdict.explanation as unknown[]).map(str).filter(Boolean) : [];
  const reasons = (Array.isArray(verdict?.reasons) ? verdict.reasons : []) as Reason[];
  const cautions = (Array.isArray(verdict?.cautions) ? verdict.cautions : []) as Reason[];
  const flags = r.red_flags as { codes?: string[]; at?: string }[];
  const trend = r.weight_trend;
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
            {str(choice.treatment_id)} {str(choice.dosage)}
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
              <dd>{t('desk.treatmentChange', { from: treatmentChange.from, to: treatmentChange.to })}</dd>
            </>
          ) : null}
          <dt>{t('desk.confirmedAt')}</dt>
          <dd>{dateTime(str(choice.confirmed_at) || null)}</dd>
          <dt>{t('desk.changeNote')}</dt>
          <dd>{choice.changed ? `${t('desk.changed')}${str(choice.change_note) ? `: ${str(choice.change_note)}` : ''}` : t('desk.unchanged')}</dd>
        </dl>
      ) : (
        <p>{t('desk.noChoice')}</p>
      )}
      {verdict ? (
        <>
          <h3>{t('desk.renewalVerdict')}</h3>
          <p>
            <StatusBadge status={str(verdict.outcome) || 'none'} />
          </p>
          {explanation.length ? (
            <ul>
              {explanation.map((line) => (
                <li key={line}>{line}</li>
              ))}
            </ul>
          ) : null}
          {[...reasons, ...cautions].length ? (
            <ul>
              {[...reasons, ...cautions].map((x, i) => (
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
                {dateTime(f.at ?? null)}: {(f.codes ?? []).join(', ')}
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
            <Link to={`/desk/conversations/${c.id}`}>{[c.user.first_name, c.user.last_name].filter(Boolean).join(' ') || c.user.email}</Link>{' '}
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

type Msg = { id: string; sender_type: 'USER' | 'DOCTOR'; content: string; file: string | null; created_at: string };

export function InboxConversation({ id }: { id: string }) {
  const { t } = useI18n();
  const msgs = useLoad(() => api.GET('/v1/clinician/conversations/{id}/messages/', { params: { path: { id } } }), [id]);
  const [content, setContent] = useState('');
  const [error, setError] = useState('');
  async function reply(e: FormEvent) {
    e.preventDefault();
    const r = await api.POST('/v1/clinician/conversations/{id}/messages/', { params: { path: { id } }, body: { content } });
    if (r.data) {
      setContent('');
      msgs.reload();
    } else setError(errorText(r.error, t('app.error')));
  }
  if (msgs.error) return <Alert kind="error">{t('app.notFound')}</Alert>;
  return (
    <section>
      <PageTitle>{t('nav.inbox')}</PageTitle>
      <p>
        <Link to="/desk/conversations">{t('app.back')}</Link>
      </p>
      {msgs.data ? <MessageList messages={msgs.data as Msg[]} mine="DOCTOR" filePath={(m) => `/v1/clinician/conversations/${id}/messages/${m.id}/file/`} /> : <Loading />}
      <form onSubmit={reply}>
        {error ? <Alert kind="error">{error}</Alert> : null}
        <TextArea label={t('desk.reply')} name="reply" required value={content} onChange={(e) => setContent(e.target.value)} />
        <button type="submit">{t('messages.send')}</button>
      </form>
    </section>
  );
}

