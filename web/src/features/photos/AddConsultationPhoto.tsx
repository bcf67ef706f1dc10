// The patient's consultation page: its photos, and while the doctor waits for information a way to
// add one (camera or file), which sends the consultation back to the doctor.
import { useId, useState, type ChangeEvent } from 'react';
import { Alert } from '../../components/ui';
import { AuthImage } from './AuthImage';
import { addConsultationPhoto } from './api';
import { usePhotoStrings } from './strings';
import './photos.css';

interface Props {
  consultationId: string;
  status: string;
  images: { id: string; url: string; created_at: string }[];
  onAdded: () => void;
}

export function ConsultationPhotos({ consultationId, status, images, onAdded }: Props) {
  const s = usePhotoStrings();
  const base = useId();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const [added, setAdded] = useState(false);
  const asked = status === 'needs_information';

  async function add(e: ChangeEvent<HTMLInputElement>) {
    const file = e.target.files?.[0];
    e.target.value = '';
    if (!file) return;
    setBusy(true);
    setError('');
    try {
      await addConsultationPhoto(consultationId, file, s('failed'));
      setAdded(true);
      onAdded();
    } catch (err) {
      setError(err instanceof Error ? err.message : s('failed'));
    } finally {
      setBusy(false);
    }
  }

  if (!images.length && !asked && !added) return null;
  return (
    <section aria-labelledby={`${base}-title`}>
      <h2 id={`${base}-title`}>{s('yourPhotos')}</h2>
      {images.length ? (
        <ul className="photo-thumbs">
          {images.map((i, n) => (
            <li key={i.id}>
              <AuthImage url={i.url} alt={`${s('yourPhotos')} ${n + 1}`} className="photo-thumb" />
            </li>
          ))}
        </ul>
      ) : null}
      {added ? <Alert kind="success">{s('added')}</Alert> : null}
      {asked ? (
        <>
          <h3>{s('addTitle')}</h3>
          <p className="hint">{s('addHint')}</p>
          <div className="photo-add">
            <input id={`${base}-camera`} className="visually-hidden" type="file" accept="image/*" capture="environment" disabled={busy} onChange={(e) => void add(e)} />
            <label className="button secondary" htmlFor={`${base}-camera`}>
              {s('take')}
            </label>
            <input id={`${base}-file`} className="visually-hidden" type="file" accept="image/jpeg,image/png,image/webp,image/heic,image/heif" disabled={busy} onChange={(e) => void add(e)} />
            <label className="button secondary" htmlFor={`${base}-file`}>
              {s('choose')}
            </label>
          </div>
          {busy ? <p role="status">{s('uploading')}</p> : null}
        </>
      ) : null}
      {error ? <Alert kind="error">{error}</Alert> : null}
    </section>
  );
}
