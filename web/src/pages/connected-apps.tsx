// The account page's "Connected assistants" section (docs/mcp.md): the AI assistants the patient
// allowed through the connector, what each may do and when it was last used, and Disconnect, which
// ends its tokens at once (DELETE /v1/users/connected-apps/{id}/).
import { useState } from 'react';
import { api, errorText, type Schemas } from '../api/client';
import { Alert, LoadError, Loading, useLoad } from '../components/ui';
import { useI18n } from '../i18n';

type ConnectedApp = Schemas['ConnectedApp'];

export function ConnectedAppsSection() {
  const { t } = useI18n();
  const apps = useLoad(() => api.GET('/v1/users/connected-apps/', { params: { query: { limit: 100 } as never } }));
  const [error, setError] = useState('');
  const [done, setDone] = useState('');
  async function disconnect(app: ConnectedApp) {
    setError('');
    setDone('');
    const { error: e } = await api.DELETE('/v1/users/connected-apps/{id}/', { params: { path: { id: app.id } } });
    if (e) setError(errorText(e, t('app.error')));
    else {
      setDone(t('connectedApps.disconnected'));
      apps.reload();
    }
  }
  let body;
  if (apps.error) body = <LoadError error={apps.error} />;
  else if (!apps.data) body = <Loading />;
  else if (apps.data.results.length === 0) body = <p>{t('connectedApps.none')}</p>;
  else
    body = (
      <ul className="plain">
        {apps.data.results.map((app) => (
          <li key={app.id} data-connected-app={app.id}>
            <strong>{app.client_name}</strong> ({app.redirect_hosts.join(', ')}) — {t('connectedApps.scopes')}: {app.scopes.join(', ')}.{' '}
            {t('connectedApps.connectedOn')} {new Date(app.created_at).toLocaleDateString()}
            {app.last_used_at ? `, ${t('connectedApps.lastUsed')} ${new Date(app.last_used_at).toLocaleString()}` : ''}.{' '}
            <button type="button" onClick={() => void disconnect(app)}>
              {t('connectedApps.disconnect')}
            </button>
          </li>
        ))}
      </ul>
    );
  return (
    <section aria-labelledby="connected-apps-h">
      <h2 id="connected-apps-h">{t('privacy.connectors')}</h2>
      <p>{t('connectedApps.intro')}</p>
      {error ? <Alert kind="error">{error}</Alert> : null}
      {done ? <Alert kind="success">{done}</Alert> : null}
      {body}
    </section>
  );
}
