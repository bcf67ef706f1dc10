// The desk's queue of photos on the scales (/desk/weights): each photo large, what the patient typed,
// and the doctor's reading (verify) or reason (reject).
import { useEffect, useState, type FormEvent } from 'react';
import { errorText, type Schemas } from '../../api/client';
import { Alert, LoadError, Loading, PageTitle, useLoad } from '../../components/ui';
import { decideWeight, imageUrl, loadWeightQueue } from './api';
import { useVerificationText } from './strings';

type Item = Schemas['DeskWeightVerification'];

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
      <Photo url={item.photo_url} alt={v('photo')} />
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
    </section>
  );
}
