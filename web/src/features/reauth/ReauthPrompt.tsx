// Re-authentication before a security change (docs/accounts.md, "Re-authentication"): when the API
// answers 403 `reauthentication_required`, the page asks for the password (or a code), posts it to
// POST /v1/users/me/reauthenticate/ and then runs the change again.
import { useState, type FormEvent } from 'react';
import { api, errorText } from '../../api/client';
import { Alert, Field } from '../../components/ui';
import { useI18n } from '../../i18n';
import { REAUTH_STRINGS } from './strings';

/** Whether an API error body asks for a re-authentication first. */
export const needsReauth = (body: unknown): boolean => typeof body === 'object' && body !== null && (body as { code?: unknown }).code === 'reauthentication_required';

export function ReauthPrompt({ onDone, onCancel }: { onDone: () => void; onCancel: () => void }) {
  const { locale } = useI18n();
  const s = REAUTH_STRINGS[locale];
  const [withCode, setWithCode] = useState(false);
  const [value, setValue] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError('');
    const { data, error: err } = await api.POST('/v1/users/me/reauthenticate/', { body: withCode ? { code: value.trim() } : { password: value } });
    setBusy(false);
    setValue('');
    if (data) return onDone();
    setError(errorText(err, s.failed));
  }

  return (
    <form onSubmit={submit} noValidate aria-labelledby="reauth-title">
      <h3 id="reauth-title">{s.title}</h3>
      <p>{s.why}</p>
      {error ? <Alert kind="error">{error}</Alert> : null}
      {withCode ? (
        <Field label={s.code} value={value} onChange={(e) => setValue(e.target.value)} autoComplete="one-time-code" inputMode="text" required />
      ) : (
        <Field label={s.password} type="password" value={value} onChange={(e) => setValue(e.target.value)} autoComplete="current-password" required />
      )}
      <p>
        <button type="button" className="link" onClick={() => setWithCode(!withCode)}>
          {withCode ? s.usePassword : s.useCode}
        </button>
      </p>
      <button type="submit" disabled={busy || !value}>
        {s.confirm}
      </button>{' '}
      <button type="button" className="link" onClick={onCancel}>
        {s.cancel}
      </button>
    </form>
  );
}
