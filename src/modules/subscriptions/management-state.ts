// Plan management state (docs/plan-management.md), pure: when the next cycle starts, the
// window a patient may move it within, and what the plan object says about skips and pauses.
import type { PlanRow } from './repository.ts';
import { iso } from '../../lib/iso.ts';

export const DAY_MS = 86_400_000;
/** A pause lasts 1 to this many cycles (or until resumed). */
export const MAX_PAUSE_CYCLES = 6;
/** The next delivery may move at most this many days after the supply runs out. */
export const MAX_DELIVERY_DELAY_DAYS = 28;
/** The earliest new date is at least this many days away (the renewal screen and the doctor's review). */
export const DELIVERY_LEAD_DAYS = 2;
/** Not more than this many days before the current supply runs out (the early-order window). */
export const EARLIEST_BEFORE_END_DAYS = 10;

const startOfDay = (d: Date) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
export const dayOf = (d: Date) => d.toISOString().slice(0, 10);

/** Paused by the patient (the flag counts only while the plan is `paused`). */
export const isPatientPaused = (s: Pick<PlanRow, 'status' | 'paused_by_patient'>) => s.status === 'paused' && s.paused_by_patient;

/** When the plan's next cycle starts (its renewal opens RENEWAL_WINDOW_DAYS before, its charge is due then); null: paused until resumed. */
export function nextDeliveryOf(s: Pick<PlanRow, 'next_delivery_at' | 'current_period_end' | 'status' | 'paused_by_patient'>): Date | null {
  if (s.status === 'canceled') return null;
  if (isPatientPaused(s) && !s.next_delivery_at) return null;
  return new Date(s.next_delivery_at ?? s.current_period_end);
}

/**
 * The dates (YYYY-MM-DD, inclusive) the next delivery may move to: not earlier than
 * EARLIEST_BEFORE_END_DAYS before the current supply runs out nor than DELIVERY_LEAD_DAYS from
 * today; not later than MAX_DELIVERY_DELAY_DAYS after it runs out.
 */
export function deliveryWindow(s: Pick<PlanRow, 'current_period_end'>, now: Date): { earliest: string; latest: string } {
  const end = startOfDay(new Date(s.current_period_end));
  const earliest = new Date(Math.max(startOfDay(now).getTime() + DELIVERY_LEAD_DAYS * DAY_MS, end.getTime() - EARLIEST_BEFORE_END_DAYS * DAY_MS));
  const latest = new Date(end.getTime() + MAX_DELIVERY_DELAY_DAYS * DAY_MS);
  return { earliest: dayOf(earliest), latest: dayOf(latest) };
}

/** The plan object's management fields (added beyond spec 2.8: our design). */
export function managementOut(s: PlanRow, now: Date) {
  const live = s.status !== 'canceled';
  const next = nextDeliveryOf(s);
  const window = s.status === 'active' && !s.cancel_at_period_end ? deliveryWindow(s, now) : null;
  return {
    next_delivery_at: iso(next),
    delivery_skipped: live && Boolean(s.skipped_period_end) && new Date(s.skipped_period_end ?? 0).getTime() === new Date(s.current_period_end).getTime(),
    paused_by_patient: isPatientPaused(s),
    resumes_at: isPatientPaused(s) ? iso(s.next_delivery_at) : null,
    next_cycle_dosage: s.next_cycle_dosage,
    delivery_date_window: window && window.earliest <= window.latest ? window : null,
  };
}
