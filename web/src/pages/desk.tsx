// The clinician desk (doctor role): review queue, consultation page with the answers and the engine's
// verdict, approve / reject / request information; the conversations inbox with replies.
import { useEffect, useState, type FormEvent } from 'react';
import { api, errorText, type Schemas } from '../api/client';
import { Alert, Field, LoadError, Loading, PageTitle, Select, StatusBadge, TextArea, useLoad } from '../components/ui';
import { useI18n } from '../i18n';
import { Link } from '../router';
import { MessageList } from './messages';
import type { QuestionnaireSchema } from '../questionnaire/model';

// Emergency contraception is time-critical: first in the queue, then the oldest first.
const URGENT = 'emergency_contraception';

export function Desk() {
  const { t, dateTime } = useI18n();
  const queue = useLoad(() => api.GET('/v1/clinician/consultations/', { params: { query: { status: 'pending_review', limit: 100 } } }));
  const rows = [...(queue.data?.results ?? [])].sort((a, b) => Number(b.category === URGENT) - Number(a.category === URGENT) || a.created_at.localeCompare(b.created_at));
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
                <td>{c.category.replace(/_/g, ' ')}</td>
                <td>{dateTime(c.created_at)}</td>
                <td>
                  <StatusBadge status={c.status} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
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
  const open = x.status === 'pending_review' || x.status === 'needs_information';
  const questions = new Map((schema.data?.steps ?? []).flatMap((st) => st.questions.map((q) => [q.question_key, q] as const)));
  const label = (key: string, value: unknown) => {
    const q = questions.get(key);
    if (typeof value === 'boolean') return value ? t('q.yes') : t('q.no');
    return q?.options?.find((o) => o.value === value)?.label ?? String(value ?? '—');
  };

  async function act(kind: 'approve' | 'reject' | 'request', e?: FormEvent) {
    e?.preventDefault();
    setError('');
    const path = { params: { path: { id } } };
    const r =
      kind === 'approve'
        ? await api.POST('/v1/clinician/consultations/{id}/approve/', { ...path, body: { treatment_id: treatment || undefined, dosage: dosage || undefined, note: note || undefined, instructions: instructions || undefined } })
        : kind === 'reject'
          ? await api.POST('/v1/clinician/consultations/{id}/reject/', { ...path, body: { decision_reason: reason } })
          : await api.POST('/v1/clinician/consultations/{id}/request-information/', { ...path, body: { decision_reason: reason } });
    if (r.data) {
      setDone(t('desk.done'));
      c.setData(r.data as ClinicianConsultation);
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
          {x.user.email} · {t('profile.dob')} {date(x.user.date_of_birth)} · {x.user.country_of_residence}
        </dd>
        <dt>{t('consultations.created')}</dt>
        <dd>{dateTime(x.created_at)}</dd>
        <dt>{t('consultations.treatment')}</dt>
        <dd>
          {x.treatment_id} {x.dosage} ({x.plan}, {x.origin})
        </dd>
      </dl>
      <h2>{t('desk.verdict')}</h2>
      <p>
        <StatusBadge status={x.questionnaire_submission?.outcome ?? 'none'} />
      </p>
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
      <h2>{t('desk.answers')}</h2>
      <table>
        <tbody>
          {x.form_snapshot.map((a) => (
            <tr key={a.question_key}>
              <th scope="row">{questions.get(a.question_key)?.text ?? a.question_key.replace(/_/g, ' ')}</th>
              <td>
                {a.values
                  ? Object.entries(a.values)
                      .filter(([, v]) => v === true)
                      .map(([k]) => label(a.question_key, k))
                      .join(', ') || '—'
                  : label(a.question_key, a.value)}
                {questions.get(a.question_key)?.unit ? ` ${questions.get(a.question_key)!.unit}` : ''}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
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
            <button type="submit">{t('desk.approve')}</button>
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

