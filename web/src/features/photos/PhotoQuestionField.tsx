// A questionnaire's photo question: for each view the doctor needs (e.g. hairline, temples, crown), a
// photo from the camera (`capture="environment"`: the back camera on a phone) or from the files, sent
// at once, shown as a thumbnail and removable. The answer maps each photo's id to its view.
import { useId, useState, type ChangeEvent } from 'react';
import { AuthImage } from './AuthImage';
import { patientPhotoPath, uploadQuestionPhoto } from './api';
import './photos.css';
import { usePhotoStrings } from './strings';

export interface PhotoQuestion {
  question_key: string;
  text: string;
  required: boolean;
  views?: { value: string; label: string; hint: string }[];
  min_photos?: number;
  max_photos?: number;
}

/** photo id -> view */
export type PhotoAnswer = Record<string, string>;

interface Props {
  slug: string;
  question: PhotoQuestion;
  value: PhotoAnswer;
  error?: boolean;
  onChange: (key: string, value: PhotoAnswer) => void;
}

export function PhotoQuestionField({ slug, question: q, value, error, onChange }: Props) {
  const s = usePhotoStrings();
  const base = useId();
  const [busy, setBusy] = useState<string | null>(null);
  const [failure, setFailure] = useState('');
  const views = q.views ?? [];
  const max = q.max_photos ?? 1;
  const min = q.min_photos ?? 1;
  const count = Object.keys(value).length;
  const full = count >= max;
  const errId = `${base}-error`;
  const countId = `${base}-count`;

  async function add(view: string, e: ChangeEvent<HTMLInputElement>) {
    const file = e.target.files?.[0];
    e.target.value = '';
    if (!file || full) return;
    setBusy(view);
    setFailure('');
    try {
      const photo = await uploadQuestionPhoto(slug, q.question_key, file, s('failed'));
      onChange(q.question_key, { ...value, [photo.id]: view });
    } catch (err) {
      setFailure(err instanceof Error ? err.message : s('failed'));
    } finally {
      setBusy(null);
    }
  }

  function remove(id: string) {
    const next = { ...value };
    delete next[id];
    onChange(q.question_key, next);
  }

  return (
    <fieldset className="question photo-question" data-question={q.question_key} aria-describedby={`${countId}${error ? ` ${errId}` : ''}`} aria-invalid={error ? true : undefined}>
      <legend>
        {q.text}
        {q.required ? <span className="req" aria-hidden="true"> *</span> : null}
      </legend>
      <p className="hint" id={countId} aria-live="polite">
        {s('count', { count, max, min })}
      </p>
      {views.map((v) => {
        const ids = Object.entries(value)
          .filter(([, view]) => view === v.value)
          .map(([id]) => id);
        const cameraId = `${base}-${v.value}-camera`;
        const fileId = `${base}-${v.value}-file`;
        return (
          <div key={v.value} className="photo-view" data-view={v.value}>
            <h3 className="photo-view-title">{v.label}</h3>
            <p className="hint">{v.hint}</p>
            {ids.length ? (
              <ul className="photo-thumbs">
                {ids.map((id) => (
                  <li key={id}>
                    <AuthImage url={patientPhotoPath(id)} alt={s('photoOf', { view: v.label })} className="photo-thumb" />
                    <button type="button" className="link" onClick={() => remove(id)}>
                      {s('remove')}
                      <span className="visually-hidden"> {s('photoOf', { view: v.label })}</span>
                    </button>
                  </li>
                ))}
              </ul>
            ) : null}
            {full ? null : (
              <div className="photo-add">
                {/* The input first, so that its keyboard focus shows on the label that follows it (photos.css). */}
                <input id={cameraId} className="visually-hidden" type="file" accept="image/*" capture="environment" disabled={busy !== null} onChange={(e) => void add(v.value, e)} />
                <label className="button secondary" htmlFor={cameraId}>
                  {s('take')}
                  <span className="visually-hidden"> ({v.label})</span>
                </label>
                <input id={fileId} className="visually-hidden" type="file" accept="image/jpeg,image/png,image/webp,image/heic,image/heif" disabled={busy !== null} onChange={(e) => void add(v.value, e)} />
                <label className="button secondary" htmlFor={fileId}>
                  {s('choose')}
                  <span className="visually-hidden"> ({v.label})</span>
                </label>
              </div>
            )}
            {busy === v.value ? <p role="status">{s('uploading')}</p> : null}
          </div>
        );
      })}
      {full ? <p className="hint">{s('full')}</p> : null}
      {failure ? (
        <p className="field-error" role="alert">
          {failure}
        </p>
      ) : null}
      {error ? (
        <p className="field-error" id={errId} role="alert">
          {s('needMore', { min })}
        </p>
      ) : null}
    </fieldset>
  );
}
