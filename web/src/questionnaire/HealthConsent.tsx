// Asks for the `health_data_processing` consent (GDPR Art. 9(2)(a), docs/privacy.md) before the
// questionnaire takes the first health answer: the children (the wizard, which saves drafts) are
// rendered only once the account's current decision on that kind is a grant.
import { useEffect, useState, type FormEvent, type ReactNode } from 'react';
import { api, errorText } from '../api/client';
import { Alert, Loading } from '../components/ui';
import { useI18n } from '../i18n';
import { CONSENT_VERSION } from '../consent';

export function HealthConsentGate({ children }: { children: ReactNode }) {
  const { t } = useI18n();
  const [granted, setGranted] = useState<boolean | null>(null);
  const [agreed, setAgreed] = useState(false);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    let live = true;
    void api.GET('/v1/users/me/consents/').then(({ data, error: err }) => {
      if (!live) return;
      if (!data) return setError(errorText(err, t('app.error')));
      setGranted(data.current.some((c) => c.kind === 'health_data_processing' && c.granted));
    });
    return () => {
      live = false;
    };
  }, [t]);

  async function consent(e: FormEvent) {
    e.preventDefault();
    if (!agreed) return setError(t('consent.healthRequired'));
    setBusy(true);
    setError('');
    const { data, error: err } = await api.POST('/v1/users/me/consents/', { body: { kind: 'health_data_processing', version: CONSENT_VERSION, granted: true } });
    setBusy(false);
    if (data) setGranted(true);
    else setError(errorText(err, t('app.error')));
  }

  if (granted) return <>{children}</>;
  if (granted === null) return error ? <Alert kind="error">{error}</Alert> : <Loading />;
  return (
    <form onSubmit={consent} noValidate className="narrow" aria-labelledby="health-consent-h">
      <h2 id="health-consent-h">{t('consent.healthTitle')}</h2>
      <p>{t('consent.healthText')}</p>
      {error ? <Alert kind="error">{error}</Alert> : null}
      <label className="choice">
        <input type="checkbox" name="health_data_processing" checked={agreed} onChange={(e) => setAgreed(e.target.checked)} /> <span>{t('consent.healthAgree')}</span>
      </label>
      <button type="submit" disabled={busy}>
        {t('consent.healthButton')}
      </button>
    </form>
  );
}
