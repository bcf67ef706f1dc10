// The account page's share links (docs/interoperability.md): create a link to the health summary
// (shown once: its key is not kept), the links with their state and every opening, and withdrawal.
import { useState, type FormEvent } from 'react';
import { api, errorText, type Schemas } from '../../api/client';
import { Alert, Field, LoadError, Loading, useLoad } from '../../components/ui';
import { useI18n } from '../../i18n';
import { useShareLinkText } from './strings';

type Page = { count: number; results: Schemas['ShareLink'][] };

export default function ShareLinks() {
  const { t } = useI18n();
  const { s, date } = useShareLinkText();
  const [reload, setReload] = useState(0);
  const links = useLoad<Page>(() => api.GET('/v1/users/me/share-links/'), [reload]);
  const [days, setDays] = useState('14');
  const [passcode, setPasscode] = useState('');
  const [label, setLabel] = useState('');
  const [created, setCreated] = useState('');
  const [error, setError] = useState('');

  async function create(e: FormEvent) {
    e.preventDefault();
    setError('');
    const { data, error: err } = await api.POST('/v1/users/me/share-links/', {
      body: { expires_in_days: Number(days), ...(passcode ? { passcode } : {}), ...(label.trim() ? { label: label.trim() } : {}) },
    });
    if (err || !data) return setError(errorText(err, t('app.error')));
    setCreated(data.url);
    setPasscode('');
    setReload((n) => n + 1);
  }
  async function revoke(id: string) {
    const { error: err } = await api.DELETE('/v1/users/me/share-links/{id}/', { params: { path: { id } } });
    if (err) return setError(errorText(err, t('app.error')));
    setReload((n) => n + 1);
  }

  return (
    <section aria-labelledby="share-links-h">
      <h3 id="share-links-h">{s('sectionTitle')}</h3>
      <p>{s('sectionIntro')}</p>
      {error ? <Alert kind="error">{error}</Alert> : null}
      {created ? (
        <Alert kind="success">
          {s('created')} <code>{created}</code>{' '}
          <button type="button" onClick={() => void navigator.clipboard?.writeText(created)}>
            {s('copy')}
          </button>
        </Alert>
      ) : null}
      <form onSubmit={(e) => void create(e)}>
        <Field label={s('expiresInDays')} type="number" min={1} max={365} value={days} onChange={(e) => setDays(e.target.value)} required />
        <Field label={s('passcodeOptional')} type="password" minLength={4} maxLength={64} value={passcode} onChange={(e) => setPasscode(e.target.value)} autoComplete="new-password" />
        <Field label={s('label')} maxLength={80} value={label} onChange={(e) => setLabel(e.target.value)} />
        <button type="submit">{s('create')}</button>
      </form>
      {links.error ? <LoadError error={links.error} /> : !links.data ? <Loading /> : links.data.results.length === 0 ? <p>{s('noLinks')}</p> : (
        <ul>
          {links.data.results.map((l) => (
            <li key={l.id}>
              <strong>{l.label}</strong> · {s(`status_${l.status}`)} · {s('until', { date: date(l.expires_at) })}
              {l.status === 'active' ? (
                <>
                  {' '}
                  <button type="button" onClick={() => void revoke(l.id)}>
                    {s('revoke')}
                  </button>
                </>
              ) : null}
              {l.accesses.length ? (
                <ul>
                  {l.accesses.map((a, i) => (
                    <li key={i}>{s(a.outcome, { who: a.recipient, date: date(a.at) })}</li>
                  ))}
                </ul>
              ) : null}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
