// The approval's repeats (docs/prescriptions.md, "Repeats"): how many dispensings after the first the
// doctor states, at most the medicine's maximum the desk reports (`max_repeats`, 0 in a plan's
// consultation), and the minimum days between two. The API checks again (400 field errors).
import { Field } from '../../components/ui';
import { useSignatureStrings } from './strings';

export interface RepeatsValue {
  repeats: string;
  interval: string;
}

export const NO_REPEATS: RepeatsValue = { repeats: '0', interval: '' };

/** The approve body's fields: none without repeats (the API's default, dispensed once). */
export function repeatsBody(v: RepeatsValue, max: number): { repeats?: number; repeat_interval_days?: number } {
  const repeats = Number(v.repeats);
  if (max <= 0 || !Number.isInteger(repeats) || repeats <= 0) return {};
  const interval = Number(v.interval);
  return { repeats, ...(v.interval.trim() && Number.isInteger(interval) ? { repeat_interval_days: interval } : {}) };
}

export function RepeatsFields({ max, value, onChange, errors }: { max: number; value: RepeatsValue; onChange: (v: RepeatsValue) => void; errors?: { repeats?: string; repeat_interval_days?: string } }) {
  const s = useSignatureStrings();
  if (max <= 0) return <p className="hint" data-testid="repeats-none">{s('repeatsNone')}</p>;
  const some = Number(value.repeats) > 0;
  return (
    <div className="grid" data-testid="repeats-fields">
      <Field
        label={s('repeats')}
        name="repeats"
        type="number"
        min={0}
        max={max}
        step={1}
        value={value.repeats}
        hint={s('repeatsHint', { max })}
        error={errors?.repeats}
        onChange={(e) => onChange({ ...value, repeats: e.target.value })}
      />
      {some ? (
        <Field
          label={s('repeatInterval')}
          name="repeat_interval_days"
          type="number"
          min={1}
          max={365}
          step={1}
          required
          value={value.interval}
          error={errors?.repeat_interval_days}
          onChange={(e) => onChange({ ...value, interval: e.target.value })}
        />
      ) : null}
    </div>
  );
}
