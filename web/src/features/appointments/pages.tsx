// The appointment pages (docs/appointments.md): the patient's calls, booking from a consultation the
// doctor asked a call for, one call (reschedule, cancel, join), and on the desk the day's calls, one
// call with its outcome (also "called by phone"), and asking for a call from a consultation.
import { useState, type FormEvent } from 'react';
import { api, errorText, type Schemas } from '../../api/client';
import { Alert, LoadError, Loading, PageTitle, Select, TextArea, useLoad } from '../../components/ui';
import { useI18n } from '../../i18n';
import { Link, navigate } from '../../router';
import { CallView } from './CallView';
import type { JoinPass } from './call';
import { useAppointmentStrings, type AppointmentKey } from './strings';

type DeskAppointment = Schemas['DeskAppointment'];

/** A time in the given zone and the app's language (the API writes it with the zone's offset). */
function useWhen() {
  const { locale } = useI18n();
  return (iso: string, zone: string) => new Intl.DateTimeFormat(locale, { dateStyle: 'full', timeStyle: 'short', timeZone: zone }).format(new Date(iso));
}

// The join button shows on every booked call: the service decides the window by its clock (a
// device's clock may be off), and says when it opens if it is too early.

// ---- the patient

export function AppointmentsPage() {
  const s = useAppointmentStrings();
  const when = useWhen();
  const list = useLoad(() => api.GET('/v1/users/appointments/'), []);
  if (list.error) return <LoadError error={list.error} />;
  if (!list.data) return <Loading />;
  return (
    <section>
      <PageTitle>{s('title')}</PageTitle>
      {list.data.results.length === 0 ? <p>{s('none')}</p> : null}
      <ul className="cards" data-testid="appointments">
        {list.data.results.map((a) => (
          <li key={a.id} className="card">
            <Link to={`/appointments/${a.id}`}>{when(a.starts_at, a.timezone)}</Link> — {s(`status.${a.status}` as AppointmentKey)}
          </li>
        ))}
      </ul>
    </section>
  );
}

function SlotPicker({ consultationId, onPick, busy }: { consultationId: string; onPick: (startsAt: string) => void; busy: boolean }) {
  const s = useAppointmentStrings();
  const when = useWhen();
  const slots = useLoad(() => api.GET('/v1/users/appointments/slots/', { params: { query: { consultation_id: consultationId } } }), [consultationId]);
  const [choice, setChoice] = useState('');
  if (slots.error) return <LoadError error={slots.error} />;
  if (!slots.data) return <Loading />;
  const zone = slots.data.timezone;
  if (slots.data.slots.length === 0) return <Alert>{s('noSlots')}</Alert>;
  return (
    <form
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        if (choice) onPick(choice);
      }}
    >
      <p>{s('bookHint', { zone })}</p>
      <Select
        label={s('when')}
        value={choice}
        onChange={(e) => setChoice(e.target.value)}
        placeholder="—"
        options={slots.data.slots.slice(0, 200).map((x) => ({ value: x.starts_at, label: when(x.starts_at, zone) }))}
        data-testid="slot"
      />
      <button type="submit" disabled={!choice || busy}>
        {s('book')}
      </button>
    </form>
  );
}

export function BookAppointment({ consultationId }: { consultationId: string }) {
  const s = useAppointmentStrings();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const book = async (startsAt: string) => {
    setBusy(true);
    setError(null);
    const r = await api.POST('/v1/users/appointments/', { body: { consultation_id: consultationId, starts_at: startsAt } });
    setBusy(false);
    if (r.data) navigate(`/appointments/${r.data.id}?booked=1`);
    else setError(errorText(r.error, s('failed')));
  };
  return (
    <section>
      <PageTitle>{s('bookTitle')}</PageTitle>
      {error ? <Alert kind="error">{error}</Alert> : null}
      <SlotPicker consultationId={consultationId} onPick={(x) => void book(x)} busy={busy} />
    </section>
  );
}

export function AppointmentDetail({ id }: { id: string }) {
  const s = useAppointmentStrings();
  const when = useWhen();
  const a = useLoad(() => api.GET('/v1/users/appointments/{id}/', { params: { path: { id } } }), [id]);
  const [moving, setMoving] = useState(false);
  const [inCall, setInCall] = useState(false);
  const [message, setMessage] = useState<{ kind: 'error' | 'success'; text: string } | null>(
    typeof window !== 'undefined' && new URLSearchParams(window.location.search).get('booked') ? { kind: 'success', text: s('booked') } : null,
  );
  if (a.error) return <LoadError error={a.error} />;
  if (!a.data) return <Loading />;
  const x = a.data;
  // The service applies the cut-off by its clock (409 change_window_closed after it).
  const changeable = x.status === 'booked';
  const join = async (): Promise<JoinPass> => {
    const r = await api.POST('/v1/users/appointments/{id}/join/', { params: { path: { id } } });
    if (!r.data) throw new Error(errorText(r.error, s('failed')));
    return r.data;
  };
  return (
    <section>
      <PageTitle>{s('title')}</PageTitle>
      {message ? <Alert kind={message.kind}>{message.text}</Alert> : null}
      <dl className="facts">
        <dt>{s('when')}</dt>
        <dd data-testid="appointment-when">{when(x.starts_at, x.timezone)}</dd>
        <dt>{s('status')}</dt>
        <dd data-testid="appointment-status">{s(`status.${x.status}` as AppointmentKey)}</dd>
        {x.doctor_reason ? (
          <>
            <dt>{s('doctorReason')}</dt>
            <dd data-testid="appointment-doctor-reason">{x.doctor_reason}</dd>
          </>
        ) : null}
      </dl>
      {x.status === 'booked' && !inCall ? (
        <p>
          {s('joinOpens', { time: when(x.join_opens_at, x.timezone) })}{' '}
          <button type="button" onClick={() => setInCall(true)} data-testid="join">
            {s('join')}
          </button>
        </p>
      ) : null}
      {inCall ? <CallView join={join} onEnded={() => setInCall(false)} /> : null}
      {changeable && !inCall ? (
        <>
          <p>{s('changeUntil', { time: when(x.changeable_until, x.timezone) })}</p>
          {moving ? (
            <SlotPicker
              consultationId={x.consultation_id}
              busy={false}
              onPick={(startsAt) =>
                void api.POST('/v1/users/appointments/{id}/reschedule/', { params: { path: { id } }, body: { starts_at: startsAt } }).then((r) => {
                  setMoving(false);
                  if (r.data) a.setData(r.data);
                  else setMessage({ kind: 'error', text: errorText(r.error, s('failed')) });
                })
              }
            />
          ) : (
            <button type="button" onClick={() => setMoving(true)}>
              {s('reschedule')}
            </button>
          )}{' '}
          <button
            type="button"
            className="danger"
            onClick={() =>
              void api.POST('/v1/users/appointments/{id}/cancel/', { params: { path: { id } } }).then((r) => {
                if (r.data) {
                  a.setData(r.data);
                  setMessage({ kind: 'success', text: s('cancelled') });
                } else setMessage({ kind: 'error', text: errorText(r.error, s('failed')) });
              })
            }
          >
            {s('cancel')}
          </button>
        </>
      ) : null}
    </section>
  );
}

/** On a consultation the doctor asked a call for: the way to book it (or to the booked one). */
export function BookCallCard({ consultationId }: { consultationId: string }) {
  const s = useAppointmentStrings();
  const list = useLoad(() => api.GET('/v1/users/appointments/'), [consultationId]);
  const open = list.data?.results.find((a) => a.consultation_id === consultationId && a.status === 'booked');
  return (
    <Alert>
      {open ? <Link to={`/appointments/${open.id}`}>{s('title')}</Link> : <Link to={`/appointments/book/${consultationId}`}>{s('book')}</Link>}
    </Alert>
  );
}

// ---- the desk

export function DeskCalls() {
  const s = useAppointmentStrings();
  const when = useWhen();
  const day = useLoad(() => api.GET('/v1/clinician/appointments/'), []);
  if (day.error) return <LoadError error={day.error} />;
  if (!day.data) return <Loading />;
  return (
    <section>
      <PageTitle>{s('deskTitle')}</PageTitle>
      {day.data.results.length === 0 ? <p>{s('deskNone')}</p> : null}
      <ul className="cards" data-testid="desk-calls">
        {day.data.results.map((a) => (
          <li key={a.id} className="card">
            <Link to={`/desk/calls/${a.id}`}>{when(a.starts_at, a.timezone)}</Link> — {a.patient.first_name} {a.patient.last_name} ·{' '}
            <Link to={`/desk/consultations/${a.consultation_id}`}>{a.category}</Link> — {s(`status.${a.status}` as AppointmentKey)}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The doctor cancels or moves the call (until its start) with a reason the patient reads. */
function DeskChangeForm({ a, onSaved }: { a: DeskAppointment; onSaved: (x: DeskAppointment) => void }) {
  const s = useAppointmentStrings();
  const [reason, setReason] = useState('');
  const [at, setAt] = useState('');
  const [error, setError] = useState<string | null>(null);
  const done = (r: { data?: DeskAppointment; error?: unknown }) => {
    if (r.data) onSaved(r.data);
    else setError(errorText(r.error, s('failed')));
  };
  return (
    <form onSubmit={(e: FormEvent) => e.preventDefault()}>
      <h2>{s('deskChange')}</h2>
      {error ? <Alert kind="error">{error}</Alert> : null}
      <TextArea label={s('deskReason')} value={reason} onChange={(e) => setReason(e.target.value)} maxLength={2000} />
      <label>
        {s('deskMoveTo')} <input type="datetime-local" step={900} value={at} onChange={(e) => setAt(e.target.value)} />
      </label>{' '}
      <button
        type="button"
        disabled={!at || !reason.trim()}
        onClick={() =>
          void api.POST('/v1/clinician/appointments/{id}/reschedule/', { params: { path: { id: a.id } }, body: { starts_at: new Date(at).toISOString(), reason: reason.trim() } }).then(done)
        }
      >
        {s('deskMove')}
      </button>{' '}
      <button
        type="button"
        className="danger"
        disabled={!reason.trim()}
        onClick={() => void api.POST('/v1/clinician/appointments/{id}/cancel/', { params: { path: { id: a.id } }, body: { reason: reason.trim() } }).then(done)}
      >
        {s('deskCancel')}
      </button>
    </form>
  );
}

function OutcomeForm({ a, onSaved }: { a: DeskAppointment; onSaved: (x: DeskAppointment) => void }) {
  const s = useAppointmentStrings();
  const [mode, setMode] = useState<'video' | 'phone'>('video');
  const [outcome, setOutcome] = useState<'completed' | 'no_answer' | 'no_show'>('completed');
  const [note, setNote] = useState('');
  const [weight, setWeight] = useState('');
  const [error, setError] = useState<string | null>(null);
  return (
    <form
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        const body = { mode, outcome, ...(note.trim() ? { note: note.trim() } : {}), ...(weight ? { verified_weight_kg: Number(weight) } : {}) };
        void api.POST('/v1/clinician/appointments/{id}/outcome/', { params: { path: { id: a.id } }, body }).then((r) => {
          if (r.data) onSaved(r.data);
          else setError(errorText(r.error, s('failed')));
        });
      }}
    >
      <h2>{s('outcome')}</h2>
      {error ? <Alert kind="error">{error}</Alert> : null}
      <Select label={s('mode')} value={mode} onChange={(e) => setMode(e.target.value as 'video' | 'phone')} options={(['video', 'phone'] as const).map((m) => ({ value: m, label: s(`mode.${m}`) }))} />
      <Select
        label={s('status')}
        value={outcome}
        onChange={(e) => setOutcome(e.target.value as typeof outcome)}
        options={(['completed', 'no_answer', 'no_show'] as const).map((o) => ({ value: o, label: s(`outcome.${o}`) }))}
      />
      <TextArea label={s('note')} value={note} onChange={(e) => setNote(e.target.value)} maxLength={4000} />
      {a.category === 'weight_loss' ? (
        <label>
          {s('weight')} <input type="number" step="0.1" min="20" max="400" value={weight} onChange={(e) => setWeight(e.target.value)} />
        </label>
      ) : null}
      <button type="submit">{s('save')}</button>
    </form>
  );
}

export function DeskCall({ id }: { id: string }) {
  const s = useAppointmentStrings();
  const when = useWhen();
  const { dateTime } = useI18n();
  const [inCall, setInCall] = useState(false);
  const [saved, setSaved] = useState<DeskAppointment | null>(null);
  // The call is on the doctor's day list: the page reads today's (or the booked day's) list.
  const day = useLoad(() => api.GET('/v1/clinician/appointments/'), [id]);
  const date = new URLSearchParams(typeof window !== 'undefined' ? window.location.search : '').get('date') ?? undefined;
  const other = useLoad(() => (date ? api.GET('/v1/clinician/appointments/', { params: { query: { date } } }) : Promise.resolve({ data: undefined })), [date]);
  const a = saved ?? day.data?.results.find((x) => x.id === id) ?? other.data?.results.find((x) => x.id === id);
  if (day.error) return <LoadError error={day.error} />;
  if (!day.data) return <Loading />;
  if (!a) return <Alert kind="error">{s('deskNone')}</Alert>;
  const join = async (): Promise<JoinPass> => {
    const r = await api.POST('/v1/clinician/appointments/{id}/join/', { params: { path: { id } } });
    if (!r.data) throw new Error(errorText(r.error, s('failed')));
    return r.data;
  };
  return (
    <section>
      <PageTitle>{`${a.patient.first_name} ${a.patient.last_name}`}</PageTitle>
      <dl className="facts">
        <dt>{s('when')}</dt>
        <dd>{when(a.starts_at, a.timezone)}</dd>
        <dt>{s('status')}</dt>
        <dd>{s(`status.${a.status}` as AppointmentKey)}</dd>
      </dl>
      <p>
        <Link to={`/desk/consultations/${a.consultation_id}`}>{a.category}</Link>
      </p>
      {a.status === 'booked' ? (
        inCall ? (
          <CallView join={join} onEnded={() => setInCall(false)} />
        ) : (
          <p>
            {s('joinOpens', { time: dateTime(a.join_opens_at) })}{' '}
            <button type="button" onClick={() => setInCall(true)} data-testid="join">
              {s('join')}
            </button>
          </p>
        )
      ) : null}
      {a.status === 'booked' && !inCall ? <DeskChangeForm a={a} onSaved={setSaved} /> : null}
      {a.status === 'booked' ? <OutcomeForm a={a} onSaved={setSaved} /> : a.outcome ? <p>{`${s(`mode.${a.mode ?? 'video'}`)} · ${s(`outcome.${a.outcome}`)}${a.outcome_note ? ` · ${a.outcome_note}` : ''}`}</p> : null}
    </section>
  );
}

/** On the desk's consultation waiting for a call: its call today (join), else the day's calls. */
export function DeskConsultationCall({ consultationId, reason }: { consultationId: string; reason: string | null | undefined }) {
  const s = useAppointmentStrings();
  const day = useLoad(() => api.GET('/v1/clinician/appointments/'), [consultationId]);
  const today = day.data?.results.find((a) => a.consultation_id === consultationId && a.status === 'booked');
  return (
    <Alert>
      {reason ? <>{reason} · </> : null}
      {today ? (
        <Link to={`/desk/calls/${today.id}`} data-testid="consultation-call">
          {s('join')}
        </Link>
      ) : (
        <Link to="/desk/calls">{s('deskTitle')}</Link>
      )}
    </Alert>
  );
}

/** On the desk's consultation: ask the patient for a call (status awaiting_call). */
export function RequestCallForm({ consultationId, onDone }: { consultationId: string; onDone: () => void }) {
  const s = useAppointmentStrings();
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  if (done) return <Alert kind="success">{s('requested')}</Alert>;
  return (
    <form
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        void api.POST('/v1/clinician/consultations/{id}/request-call/', { params: { path: { id: consultationId } }, body: { reason } }).then((r) => {
          if (r.data) {
            setDone(true);
            onDone();
          } else setError(errorText(r.error, s('failed')));
        });
      }}
    >
      {error ? <Alert kind="error">{error}</Alert> : null}
      <TextArea label={s('requestReason')} value={reason} onChange={(e) => setReason(e.target.value)} maxLength={2000} required />
      <button type="submit" disabled={!reason.trim()}>
        {s('requestCall')}
      </button>
    </form>
  );
}
