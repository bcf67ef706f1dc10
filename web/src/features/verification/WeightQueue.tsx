// The desk's queue of photos on the scales (/desk/weights): each photo large, what the patient typed,
// and the doctor's reading (verify) or reason (reject).
import { useEffect, useState, type FormEvent } from 'react';
import { errorText, type Schemas } from '../../api/client';
import { Alert, LoadError, Loading, PageTitle, useLoad } from '../../components/ui';
import { decideIdentity, decideWeight, imageUrl, loadIdentityQueue, loadWeightQueue } from './api';
import { useVerificationText } from './strings';

type Item = Schemas['DeskWeightVerification'];
type IdentityItem = Schemas['DeskIdentityVerification'];

function Photo({ url, alt }: { url: string; alt: string }) {
  const [src, setSrc] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    let made: string | null = null;
    void imageUrl(url).then((u) => {
      made = u;
      if (live) setSrc(u);
    });
    return () => {
      live = false;
      if (made) URL.revokeObjectURL(made);
    };
  }, [url]);
  return src ? <img src={src} alt={alt} style={{ maxWidth: '100%', maxHeight: '28rem' }} /> : <Loading />;
}

function Row({ item, done }: { item: Item; done: () => void }) {
  const { v, date } = useVerificationText();
  const [error, setError] = useState('');
  async function decide(form: HTMLFormElement, decision: 'verified' | 'rejected') {
    const data = new FormData(form);
    const kg = Number(String(data.get('weight_kg') ?? '').replace(',', '.'));
    const reason = String(data.get('reason') ?? '');
    const r = await decideWeight(item.id, { decision, ...(decision === 'verified' ? { weight_kg: kg } : {}), ...(reason ? { reason } : {}) });
    if (r.error) setError(errorText(r.error, v('status_rejected')));
    else done();
  }
  const name = `${item.user.first_name} ${item.user.last_name}`.trim();
  return (
    <li className="card">
      <h2>{`${name} · ${date(item.created_at)}`}</h2>
      {item.photo_url ? <Photo url={item.photo_url} alt={v('photo')} /> : null}
      <p>{v('claimed', { kg: item.claimed_weight_kg })}</p>
      {error ? <Alert kind="error">{error}</Alert> : null}
      <form
        onSubmit={(e: FormEvent<HTMLFormElement>) => {
          e.preventDefault();
          void decide(e.currentTarget, 'verified');
        }}
      >
        <p>
          <label htmlFor={`kg-${item.id}`}>{v('read')}</label>
          <input id={`kg-${item.id}`} name="weight_kg" inputMode="decimal" defaultValue={String(item.claimed_weight_kg)} />
        </p>
        <p>
          <label htmlFor={`reason-${item.id}`}>{v('reason')}</label>
          <input id={`reason-${item.id}`} name="reason" />
        </p>
        <button type="submit" className="button">
          {v('verify')}
        </button>{' '}
        <button type="button" className="button secondary" onClick={(e) => e.currentTarget.form && void decide(e.currentTarget.form, 'rejected')}>
          {v('reject')}
        </button>
      </form>
    </li>
  );
}

function IdentityRow({ item, done }: { item: IdentityItem; done: () => void }) {
  const { v, date } = useVerificationText();
  const [error, setError] = useState('');
  async function decide(form: HTMLFormElement, decision: 'verified' | 'rejected') {
    const reason = String(new FormData(form).get('reason') ?? '').trim();
    const r = await decideIdentity(item.id, { decision, reason });
    if (r.error) setError(errorText(r.error, v('status_rejected')));
    else done();
  }
  const full = (p: { first_name: string; last_name: string }) => `${p.first_name} ${p.last_name}`.trim();
  return (
    <li className="card">
      <h3>{`${full(item.profile)} · ${date(item.created_at)}`}</h3>
      <p>{v('profileSays', { name: full(item.profile), dob: date(item.profile.date_of_birth) })}</p>
      {item.document ? <p>{v('documentSays', { name: full(item.document), dob: date(item.document.date_of_birth) })}</p> : null}
      {item.mismatches.length ? <Alert kind="error">{v('differs', { fields: item.mismatches.join(', ') })}</Alert> : null}
      {item.duplicate_signals.length ? <Alert kind="error">{item.duplicate_signals.map((s) => `${v('signals')} ${v(`signal_${s.kind}` as Parameters<typeof v>[0])}: ${s.account_ids.length}`).join(' · ')}</Alert> : null}
      {item.images.id_photo_url ? <Photo url={item.images.id_photo_url} alt={v('identity')} /> : null}
      {item.images.selfie_url ? <Photo url={item.images.selfie_url} alt={v('identityHelp')} /> : null}
      {error ? <Alert kind="error">{error}</Alert> : null}
      <form
        onSubmit={(e: FormEvent<HTMLFormElement>) => {
          e.preventDefault();
          void decide(e.currentTarget, 'verified');
        }}
      >
        <p>
          <label htmlFor={`id-reason-${item.id}`}>{v('decisionReason')}</label>
          <input id={`id-reason-${item.id}`} name="reason" required />
        </p>
        <button type="submit" className="button">
          {v('verify')}
        </button>{' '}
        <button type="button" className="button secondary" onClick={(e) => e.currentTarget.form && void decide(e.currentTarget.form, 'rejected')}>
          {v('reject')}
        </button>
      </form>
    </li>
  );
}

/** Identity checks the provider could not match with the profile (needs_review), for the doctor to decide. */
function IdentityQueue() {
  const { v } = useVerificationText();
  const queue = useLoad(loadIdentityQueue);
  const items = queue.data?.results ?? [];
  return (
    <section aria-labelledby="identity-queue-h">
      <h2 id="identity-queue-h">{v('identityQueue')}</h2>
      <LoadError error={queue.error} />
      {queue.data && items.length === 0 ? <p>{v('empty')}</p> : null}
      <ul className="list">
        {items.map((item) => (
          <IdentityRow key={item.id} item={item} done={queue.reload} />
        ))}
      </ul>
    </section>
  );
}

export default function WeightQueue() {
  const { v } = useVerificationText();
  const queue = useLoad(loadWeightQueue);
  const items = queue.data?.results ?? [];
  return (
    <section>
      <PageTitle>{v('queue')}</PageTitle>
      <LoadError error={queue.error} />
      {queue.loading && !queue.data ? <Loading /> : null}
      {queue.data && items.length === 0 ? <p>{v('empty')}</p> : null}
      <ul className="list">
        {items.map((item) => (
          <Row key={item.id} item={item} done={queue.reload} />
        ))}
      </ul>
      <IdentityQueue />
    </section>
  );
}
