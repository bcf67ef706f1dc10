// A prescription's repeats as the patient, the pharmacist and the public verify page see them: how
// many are used and left, the interval the doctor stated and when the next dispensing may be made.
import { useI18n } from '../../i18n';
import { useSignatureStrings } from './strings';

export interface RepeatsState {
  dispensings_allowed: number;
  dispensed_count: number;
  repeats_left: number;
  repeat_interval_days: number | null;
  next_dispensing_from: string | null;
}

export function RepeatsLine({ d }: { d: RepeatsState }) {
  const s = useSignatureStrings();
  const { date } = useI18n();
  const repeats = d.dispensings_allowed - 1;
  if (repeats <= 0 && !d.next_dispensing_from) return null;
  return (
    <p className="hint" data-testid="rx-repeats">
      {repeats > 0 ? s('disp_repeats', { used: Math.max(0, d.dispensed_count - 1), left: d.repeats_left, days: d.repeat_interval_days ?? 0 }) : null}
      {repeats > 0 && d.next_dispensing_from ? ' · ' : null}
      {d.next_dispensing_from ? s('disp_next', { date: date(d.next_dispensing_from) }) : null}
    </p>
  );
}
