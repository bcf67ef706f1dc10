// The account page's privacy section (docs/privacy.md): consents (give or withdraw), who of the staff
// read or changed the record, the data export download, and erasure with a typed confirmation.
import { useState, type FormEvent } from 'react';
import { api, download, errorText, type Schemas } from '../api/client';
import { auth } from '../auth';
import { Alert, Field, LoadError, Loading, useLoad } from '../components/ui';
import { useI18n } from '../i18n';
import { navigate } from '../router';
import { CONSENT_VERSION } from '../consent';
import ShareLinks from '../features/share-links/ShareLinks';

type Consents = Schemas['Consents'];
type Kind = Consents['current'][number]['kind'];
const KINDS: Kind[] = ['health_data_processing', 'terms', 'privacy', 'marketing', 'gp_sharing'];
/** The version of the texts this build of the app shows. */
export { CONSENT_VERSION };

export function PrivacySection() {
  const { t } = useI18n();
  return (
    <section aria-labelledby="privacy-h">
      <h2 id="privacy-h">{t('privacy.title')}</h2>
      <ConsentList />
      <AccessLog />
      <ExportData />
      <ShareLinks />
      <EraseAccount />
    </section>
  );
}

function ConsentList() {
  const { t } = useI18n();
  const consents = useLoad<Consents>(() => api.GET('/v1/users/me/consents/'));
  const [error, setError] = useState('');
  if (consents.error) return <LoadError error={consents.error} />;
  if (!consents.data) return <Loading />;
  const current = new Map(consents.data.current.map((c) => [c.kind, c]));
  async function decide(kind: Kind, granted: boolean) {
    setError('');
    const { error: e } = await api.POST('/v1/users/me/consents/', { body: { kind, version: CONSENT_VERSION, granted } });
    if (e) setError(errorText(e, t('app.error')));
    else consents.reload();
  }
  return (
    <section aria-labelledby="consents-h">
      <h3 id="consents-h">{t('privacy.consents')}</h3>
      {error ? <Alert kind="error">{error}</Alert> : null}
      <ul className="plain">
        {KINDS.map((kind) => {
          const c = current.get(kind);
          const state = !c ? t('privacy.notRecorded') : c.granted ? t('privacy.granted') : t('privacy.withdrawn');
          return (
            <li key={kind} data-consent={kind}>
              <span>{t(`privacy.consent.${kind}`)}</span>: <strong>{state}</strong>{' '}
              <button type="button" onClick={() => void decide(kind, !c?.granted)}>
                {c?.granted ? t('privacy.withdraw') : t('privacy.grant')}
              </button>
            </li>
          );
        })}
      </ul>
      {consents.data.connectors.length ? (
        <>
          <h4>{t('privacy.connectors')}</h4>
          <ul className="plain">
            {consents.data.connectors.map((g) => (
              <li key={g.id}>
                {g.client_name} ({g.scopes.join(', ')}): {g.revoked_at ? t('privacy.withdrawn') : t('privacy.granted')}
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
  );
}

function AccessLog() {
  const { t } = useI18n();
  const log = useLoad(() => api.GET('/v1/users/me/access-log/', { params: { query: { limit: 50 } } }));
  return (
    <section aria-labelledby="access-h">
      <h3 id="access-h">{t('privacy.accessLog')}</h3>
      <p>{t('privacy.accessLogText')}</p>
      {log.error ? <LoadError error={log.error} /> : !log.data ? <Loading /> : log.data.results.length === 0 ? (
        <p>{t('app.none')}</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">{t('privacy.when')}</th>
              <th scope="col">{t('privacy.who')}</th>
              <th scope="col">{t('privacy.what')}</th>
            </tr>
          </thead>
          <tbody>
            {log.data.results.map((e) => (
              <tr key={e.id}>
                <td>{new Date(e.at).toLocaleString()}</td>
                <td>
                  {e.actor_name} ({t(`privacy.role.${e.actor_role}`)})
                </td>
                <td>
                  {t(`privacy.action.${e.action}`)}: {e.resource_type.replace(/_/g, ' ')}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function ExportData() {
  const { t } = useI18n();
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  async function go() {
    setError('');
    setBusy(true);
    try {
      await download('/v1/users/me/export/', 'account-export.json');
    } catch (e) {
      setError(e instanceof Error && e.message === '429' ? t('auth.rateLimited') : t('app.error'));
    } finally {
      setBusy(false);
    }
  }
  return (
    <section aria-labelledby="export-h">
      <h3 id="export-h">{t('privacy.export')}</h3>
      <p>{t('privacy.exportText')}</p>
      {error ? <Alert kind="error">{error}</Alert> : null}
      <button type="button" onClick={() => void go()} disabled={busy}>
        {t('privacy.export')}
      </button>
    </section>
  );
}

function EraseAccount() {
  const { t } = useI18n();
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  async function submit(e: FormEvent) {
    e.preventDefault();
    setError('');
    setBusy(true);
    const { error: err, response } = await api.DELETE('/v1/users/me/', { body: { ...(password ? { password } : {}), confirm: 'DELETE' } });
    setBusy(false);
    if (response.status === 204) {
      sessionStorage.setItem('pts.erased', '1');
      auth.clear();
      navigate('/sign-in', { replace: true });
      return;
    }
    const body = err as Record<string, unknown> | undefined;
    if (body && 'password' in body) setError(t('privacy.passwordWrong'));
    else if (body && body.code === 'recent_sign_in_required') setError(t('privacy.recentSignIn'));
    else setError(response.status === 429 ? t('auth.rateLimited') : errorText(err, t('app.error')));
  }
  return (
    <section aria-labelledby="erase-h">
      <h3 id="erase-h">{t('privacy.erase')}</h3>
      <p>{t('privacy.eraseText')}</p>
      <form onSubmit={submit} noValidate>
        {error ? <Alert kind="error">{error}</Alert> : null}
        <Field label={t('privacy.erasePassword')} hint={t('privacy.erasePasswordHint')} type="password" name="erase_password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} />
        <Field label={t('privacy.eraseConfirm')} name="erase_confirm" autoComplete="off" value={confirm} onChange={(e) => setConfirm(e.target.value)} />
        <button type="submit" className="danger" disabled={busy || confirm !== 'DELETE'}>
          {t('privacy.eraseButton')}
        </button>
      </form>
    </section>
  );
}
