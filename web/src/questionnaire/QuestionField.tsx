// One question rendered from the public schema: every type has a visible label and works by keyboard
// (native radios, checkboxes and inputs grouped in a fieldset whose legend is the question).
import { isPhotoAnswer, type Answers, type AnswerValue, type Question } from './model';
import { useI18n } from '../i18n';
import { PhotoQuestionField } from '../features/photos/PhotoQuestionField';

interface Props {
  question: Question;
  answers: Answers;
  error?: 'required' | 'range';
  onChange: (key: string, value: AnswerValue | undefined) => void;
  /** The questionnaire (a photo question uploads to it). */
  slug?: string;
}

export function QuestionField({ question: q, answers, error, onChange, slug }: Props) {
  const { t } = useI18n();
  const id = `q-${q.question_key}`;
  const errId = `${id}-error`;
  const value = answers[q.question_key];
  const described = error ? errId : undefined;
  const errorText = error === 'range' ? t('q.range', { min: q.min ?? '', max: q.max ?? '' }) : t('q.required');
  const errorNode = error ? (
    <p className="field-error" id={errId} role="alert">
      {errorText}
    </p>
  ) : null;

  if (q.type === 'photo' && slug) {
    return <PhotoQuestionField slug={slug} question={q} value={isPhotoAnswer(value) ? value : {}} error={Boolean(error)} onChange={(key, photos) => onChange(key, Object.keys(photos).length ? photos : undefined)} />;
  }

  if (q.type === 'boolean' || q.type === 'single_choice') {
    const options = q.type === 'boolean' ? [{ value: 'true', label: t('q.yes') }, { value: 'false', label: t('q.no') }] : (q.options ?? []);
    const current = q.type === 'boolean' ? (value === undefined ? undefined : String(value)) : value;
    return (
      <fieldset className="question" aria-describedby={described} aria-invalid={error ? true : undefined} data-question={q.question_key}>
        <legend>
          {q.text}
          {q.required ? <span className="req" aria-hidden="true"> *</span> : null}
        </legend>
        <div className={q.type === 'boolean' ? 'choices choices-inline' : 'choices'}>
          {options.map((o) => (
            <label key={o.value} className="choice">
              <input
                type="radio"
                name={id}
                value={o.value}
                checked={current === o.value}
                required={q.required}
                onChange={() => onChange(q.question_key, q.type === 'boolean' ? o.value === 'true' : o.value)}
              />
              <span>{o.label}</span>
            </label>
          ))}
        </div>
        {errorNode}
      </fieldset>
    );
  }

  if (q.type === 'multiple_choice') {
    const selected = Array.isArray(value) ? value : [];
    return (
      <fieldset className="question" aria-describedby={described} aria-invalid={error ? true : undefined} data-question={q.question_key}>
        <legend>
          {q.text}
          {q.required ? <span className="req" aria-hidden="true"> *</span> : null}
        </legend>
        <p className="hint">{t('q.selectAll')}</p>
        <div className="choices">
          {(q.options ?? []).map((o) => (
            <label key={o.value} className="choice">
              <input
                type="checkbox"
                name={id}
                value={o.value}
                checked={selected.includes(o.value)}
                onChange={(e) => onChange(q.question_key, e.target.checked ? [...selected, o.value] : selected.filter((v) => v !== o.value))}
              />
              <span>{o.label}</span>
            </label>
          ))}
        </div>
        {errorNode}
      </fieldset>
    );
  }

  const label = (
    <label htmlFor={id}>
      {q.text}
      {q.unit ? ` (${q.unit})` : ''}
      {q.required ? <span className="req" aria-hidden="true"> *</span> : null}
    </label>
  );
  const common = { id, name: q.question_key, required: q.required, 'aria-invalid': error ? true : undefined, 'aria-describedby': described } as const;
  return (
    <div className="question field" data-question={q.question_key}>
      {label}
      {q.type === 'number' ? (
        <input
          {...common}
          type="number"
          inputMode="decimal"
          step="any"
          min={q.min}
          max={q.max}
          value={typeof value === 'number' ? value : ''}
          onChange={(e) => onChange(q.question_key, e.target.value === '' ? undefined : Number(e.target.value))}
        />
      ) : q.type === 'date' ? (
        <input {...common} type="date" value={typeof value === 'string' ? value : ''} onChange={(e) => onChange(q.question_key, e.target.value || undefined)} />
      ) : (
        <textarea {...common} maxLength={q.max_length} rows={3} value={typeof value === 'string' ? value : ''} onChange={(e) => onChange(q.question_key, e.target.value || undefined)} />
      )}
      {errorNode}
    </div>
  );
}
