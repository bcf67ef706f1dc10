// Emergency contraception: whether delivery of the chosen pill arrives well inside its window, said
// before payment (the submission's `delivery`, computed by the service from the carrier's cut-off,
// working days, holidays and transit days to the patient's country).
import { Alert } from '../../components/ui';
import { useI18n } from '../../i18n';
import { DELIVERY_STRINGS } from './strings';

export interface DeliveryVerdict {
  treatment_id: string;
  estimated_arrival: string;
  window_ends_at: string;
  arrives_in_time: boolean;
}

export function DeliveryNotice({ verdicts, treatmentId, collecting }: { verdicts: DeliveryVerdict[] | undefined; treatmentId: string | undefined; collecting: boolean }) {
  const { locale, dateTime } = useI18n();
  const v = verdicts?.find((x) => x.treatment_id === treatmentId);
  if (!v || collecting) return null;
  const s = DELIVERY_STRINGS[locale];
  if (v.arrives_in_time) return <p className="hint">{s.inTime(dateTime(v.estimated_arrival), dateTime(v.window_ends_at))}</p>;
  return (
    <Alert kind="error">
      {s.late(dateTime(v.estimated_arrival), dateTime(v.window_ends_at))} {s.advice}
    </Alert>
  );
}
