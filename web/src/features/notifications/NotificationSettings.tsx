// The account page's notification settings: this browser's push subscription, per event which
// channels are on, the quiet hours, and the phone for SMS (verified by a texted code).
import { useEffect, useState, type FormEvent } from 'react';
import { errorText } from '../../api/client';
import { Alert, Field, Loading, useLoad } from '../../components/ui';
import { useI18n } from '../../i18n';
import { currentSubscription, disablePush, enablePush, loadPhone, loadPreferences, pushSupported, savePreferences, setPhone, verifyPhone, type Preferences, type PreferencesPatch } from './api';
import { STRINGS, type NotificationStrings } from './strings';

type Kind = keyof Preferences['events'];
type Channel = 'push' | 'sms' | 'email';
const CHANNELS: Channel[] = ['push', 'sms', 'email'];

export function useNotificationStrings(): NotificationStrings {
  const { locale } = useI18n();
  return STRINGS[locale];
}

export function PushToggle({ onChange }: { onChange?: (on: boolean) => void }) {
  const s = useNotificationStrings();
  const [state, setState] = useState<'unknown' | 'on' | 'off' | 'denied' | 'unsupported' | 'error'>(() => (pushSupported() ? 'unknown' : 'unsupported'));
  useEffect(() => {
    if (pushSupported()) void currentSubscription().then((sub) => setState(sub ? 'on' : 'off'));
  }, []);
  if (state === 'unsupported') return <p>{s.pushUnsupported}</p>;
  if (state === 'on')
    return (
      <p>
        {s.pushOn}{' '}
        <button type="button" className="link" onClick={() => void disablePush().then(() => (setState('off'), onChange?.(false)))}>
          {s.pushOff}
        </button>
      </p>
    );
  return (
    <p>
      <button type="button" onClick={() => void enablePush().then((r) => (setState(r === 'on' ? 'on' : r), onChange?.(r === 'on')))}>
        {s.enablePush}
      </button>
      {state === 'denied' ? <Alert kind="error">{s.pushDenied}</Alert> : null}
      {state === 'error' ? <Alert kind="error">{s.error}</Alert> : null}
    </p>
  );
}

export function NotificationSettings() {
  const s = useNotificationStrings();
  const prefs = useLoad(loadPreferences);
  const [saved, setSaved] = useState(false);
  const [error, setError] = useState('');
  if (!prefs.data) return <Loading />;
  const p = prefs.data;
  const kinds = Object.keys(p.events) as Kind[];

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const events: Record<string, Record<string, boolean>> = {};
    for (const kind of kinds) {
      events[kind] = {};
      for (const channel of CHANNELS) if (channel in p.events[kind]) events[kind][channel] = f.get(`${kind}.${channel}`) === 'on';
    }
    const quiet = f.get('quiet') === 'on' ? { start: String(f.get('quiet_start')), end: String(f.get('quiet_end')) } : null;
    const { data, error: err } = await savePreferences({ events: events as PreferencesPatch['events'], quiet_hours: quiet });
    setSaved(Boolean(data));
    setError(data ? '' : errorText(err, s.error));
    if (data) prefs.setData(data);
  }

  return (
    <section aria-labelledby="notifications-h">
      <h2 id="notifications-h">{s.title}</h2>
      <p>{s.intro}</p>
      <PushToggle />
      <form onSubmit={submit} key={JSON.stringify(p)}>
        <table className="table">
          <thead>
            <tr>
              <th scope="col">{s.event}</th>
              {CHANNELS.map((c) => (
                <th scope="col" key={c}>
                  {s[c]}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {kinds.map((kind) => (
              <tr key={kind}>
                <th scope="row">{s[kind as keyof NotificationStrings]}</th>
                {CHANNELS.map((c) => {
                  const value = (p.events[kind] as Partial<Record<Channel, boolean>>)[c];
                  return (
                    <td key={c}>
                      {value === undefined ? null : (
                        <input type="checkbox" name={`${kind}.${c}`} defaultChecked={value} aria-label={`${s[kind as keyof NotificationStrings]}: ${s[c]}`} />
                      )}
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
        <fieldset>
          <legend>{s.quiet}</legend>
          <p>{s.quietIntro.replace('{zone}', p.time_zone)}</p>
          <label className="choice">
            <input type="checkbox" name="quiet" defaultChecked={p.quiet_hours !== null} /> <span>{s.quietOn}</span>
          </label>
          <Field label={s.from} name="quiet_start" type="time" defaultValue={p.quiet_hours?.start ?? '22:00'} />
          <Field label={s.until} name="quiet_end" type="time" defaultValue={p.quiet_hours?.end ?? '07:00'} />
        </fieldset>
        <button type="submit">{s.save}</button>
        {saved ? <span role="status">{s.saved}</span> : null}
        {error ? <Alert kind="error">{error}</Alert> : null}
      </form>
      <PhoneSettings />
    </section>
  );
}

function PhoneSettings() {
  const s = useNotificationStrings();
  const phone = useLoad(loadPhone);
  const [number, setNumber] = useState('');
  const [code, setCode] = useState('');
  const [sent, setSent] = useState(false);
  const [error, setError] = useState('');
  async function send(e: FormEvent) {
    e.preventDefault();
    const { data, error: err } = await setPhone(number);
    setError(data ? '' : errorText(err, s.error));
    if (data) {
      setSent(true);
      phone.setData(data);
    }
  }
  async function verify(e: FormEvent) {
    e.preventDefault();
    const { data, error: err } = await verifyPhone(code);
    setError(data ? '' : errorText(err, s.error));
    if (data) {
      setSent(false);
      phone.setData(data);
    }
  }
  return (
    <div>
      <h3>{s.phone}</h3>
      {phone.data?.phone ? (
        <p>
          {phone.data.phone} {phone.data.verified ? `(${s.verified})` : null}
        </p>
      ) : null}
      <form onSubmit={send} className="inline-form">
        <Field label={s.phone} name="phone" type="tel" autoComplete="tel" value={number} onChange={(e) => setNumber(e.target.value)} placeholder="+49 151 23456789" />
        <button type="submit">{s.sendCode}</button>
      </form>
      {sent ? (
        <form onSubmit={verify} className="inline-form">
          <Field label={s.code} name="code" inputMode="numeric" autoComplete="one-time-code" value={code} onChange={(e) => setCode(e.target.value)} />
          <button type="submit">{s.verify}</button>
        </form>
      ) : null}
      {error ? <Alert kind="error">{error}</Alert> : null}
    </div>
  );
}

/** The journal's offer, shown with an active injection plan: browser push for the injection day. */
export function InjectionReminderOffer() {
  const s = useNotificationStrings();
  const prefs = useLoad(loadPreferences);
  const [error, setError] = useState('');
  if (!prefs.data || !pushSupported()) return null;
  const on = (prefs.data.events.injection_day as Partial<Record<Channel, boolean>>).push === true;
  if (on) return <p role="status">{s.reminderOn}</p>;
  async function accept() {
    const push = await enablePush();
    if (push !== 'on') return setError(push === 'denied' ? s.pushDenied : s.error);
    const { data } = await savePreferences({ events: { injection_day: { push: true } } });
    if (data) prefs.setData(data);
    else setError(s.error);
  }
  return (
    <div className="alert alert-info">
      <p>{s.offerReminderHint}</p>
      <button type="button" onClick={() => void accept()}>
        {s.offerReminder}
      </button>
      {error ? <Alert kind="error">{error}</Alert> : null}
    </div>
  );
}
