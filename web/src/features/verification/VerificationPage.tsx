// The patient's verification page (/verification): the identity check (the provider's page, with the
// phone's cameras) and a photo on the scales (the back camera), with the state of each.
import { useState, type FormEvent } from 'react';
import { errorText, fieldErrors } from '../../api/client';
import { Alert, LoadError, Loading, PageTitle, useLoad } from '../../components/ui';
import { useLocation } from '../../router';
import { loadVerification, sendWeight, startIdentity } from './api';
import { useVerificationText, type VerificationText } from './strings';

type Status = 'not_started' | 'pending' | 'verified' | 'needs_review' | 'rejected';
const statusKey = (s: Status) => `status_${s}` as keyof VerificationText;

export default function VerificationPage() {
  const { v, date } = useVerificationText();
  const { query } = useLocation();
  const state = useLoad(loadVerification);
  const [error, setError] = useState('');
  const [weightError, setWeightError] = useState<Record<string, string>>({});
  const [sent, setSent] = useState(false);
  const [busy, setBusy] = useState(false);
  const [photo, setPhoto] = useState<File | null>(null);
  const s = state.data;

  async function verifyIdentity() {
    setError('');
    setBusy(true);
    const r = await startIdentity();
    setBusy(false);
    if (r.data) window.location.assign(r.data.verification_url);
    else setError(errorText(r.error, v('status_rejected')));
  }

  async function submitWeight(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const kg = String(new FormData(e.currentTarget).get('weight_kg') ?? '');
    const file = photo;
    if (!file || file.size === 0) return setWeightError({ file: v('photo') });
    setBusy(true);
    const r = await sendWeight(file, kg);
    setBusy(false);
    if (r.ok) {
      setSent(true);
      setWeightError({});
      state.reload();
    } else {
      const fields = fieldErrors(r.body);
      setWeightError(Object.keys(fields).length ? fields : { file: errorText(r.body, v('status_rejected')) });
    }
  }

  const needsWeight = s?.requirements.some((r) => r.required.includes('weight')) ?? false;
  return (
    <section>
      <PageTitle>{v('title')}</PageTitle>
      <p>{v('intro')}</p>
      <LoadError error={state.error} />
      {error ? <Alert kind="error">{error}</Alert> : null}
      {query.get('identity') === 'done' && s?.identity.status !== 'not_started' ? <Alert kind="success">{v(statusKey(s?.identity.status ?? 'pending'))}</Alert> : null}
      {!s ? (
        <Loading />
      ) : (
        <div className="grid">
          <article className="card" aria-labelledby="identity-h">
            <h2 id="identity-h">{v('identity')}</h2>
            <p>
              <span className={`badge badge-${s.identity.status}`}>{v(statusKey(s.identity.status))}</span>
            </p>
            <p>{v('identityHelp')}</p>
            {s.identity.status !== 'verified' && s.identity.status !== 'needs_review' ? (
              <button type="button" className="button" onClick={verifyIdentity} disabled={busy}>
                {v('startIdentity')}
              </button>
            ) : null}
          </article>
          {needsWeight ? (
            <article className="card" aria-labelledby="weight-h">
              <h2 id="weight-h">{v('weight')}</h2>
              <p>
                <span className={`badge badge-${s.weight.status}`}>{v(statusKey(s.weight.status))}</span>
                {s.weight.weight_kg !== null ? ` ${s.weight.weight_kg} kg` : ''}
              </p>
              {s.weight.due_at ? <p>{v('due', { date: date(s.weight.due_at) })}</p> : null}
              <p>{v('weightHelp')}</p>
              {sent ? <Alert kind="success">{v('sent')}</Alert> : null}
              <form onSubmit={submitWeight} noValidate>
                <p>
                  <label htmlFor="weight-photo">{v('photo')}</label>
                   <input id="weight-photo" name="file" type="file" accept="image/*" capture="environment" onChange={(e) => setPhoto(e.currentTarget.files?.[0] ?? null)} aria-invalid={Boolean(weightError.file)} aria-describedby={weightError.file ? 'weight-photo-error' : undefined} />
                  {weightError.file ? <span id="weight-photo-error" className="field-error">{weightError.file}</span> : null}
                </p>
                <p>
                  <label htmlFor="weight-kg">{v('weightKg')}</label>
                  <input id="weight-kg" name="weight_kg" inputMode="decimal" required aria-invalid={Boolean(weightError.weight_kg)} aria-describedby={weightError.weight_kg ? 'weight-kg-error' : undefined} />
                  {weightError.weight_kg ? <span id="weight-kg-error" className="field-error">{weightError.weight_kg}</span> : null}
                </p>
                <button type="submit" className="button" disabled={busy}>
                  {v('send')}
                </button>
              </form>
            </article>
          ) : null}
        </div>
      )}
    </section>
  );
}
