// Repeats stated by the doctor (docs/prescriptions.md, "Repeats"): how many dispensings after the
// first a prescription allows and the minimum number of days between two of them. The catalogue
// (catalogue/prescription-products.json, `max_repeats`) bounds them per medicine from its posology;
// a plan's consultation states none, since the plan's renewals drive its supply.
import { fieldErrors } from '../../http/errors.ts';
import { maxRepeats } from './products.ts';

const DAY_MS = 24 * 3600 * 1000;

export interface StatedRepeats {
  repeats: number;
  repeatIntervalDays: number | null;
}

/**
 * The repeats an approval states, checked: 400 field errors (`repeats`, `repeat_interval_days`) for
 * more than the medicine allows, repeats in a plan's consultation, repeats without an interval, an
 * interval without repeats, or a last repeat that could not fall within the prescription's validity.
 */
export function statedRepeats(input: { treatmentId: string; repeats: number | undefined; intervalDays: number | undefined; planSupplied: boolean; issuedAt: Date; validUntil: Date | null }): StatedRepeats {
  const repeats = input.repeats ?? 0;
  if (repeats === 0) {
    if (input.intervalDays !== undefined) throw fieldErrors({ repeat_interval_days: ['Only with repeats (repeats above 0).'] });
    return { repeats: 0, repeatIntervalDays: null };
  }
  if (input.planSupplied) throw fieldErrors({ repeats: ['This consultation belongs to a plan: its renewals supply the treatment, so the prescription states no repeats.'] });
  const max = maxRepeats(input.treatmentId);
  if (repeats > max) throw fieldErrors({ repeats: [max === 0 ? 'This medicine is prescribed without repeats.' : `At most ${max} repeats for this medicine.`] });
  if (input.intervalDays === undefined) throw fieldErrors({ repeat_interval_days: ['Required with repeats: the minimum number of days between two dispensings.'] });
  if (input.validUntil && input.issuedAt.getTime() + repeats * input.intervalDays * DAY_MS > input.validUntil.getTime()) {
    const days = Math.floor((input.validUntil.getTime() - input.issuedAt.getTime()) / DAY_MS);
    throw fieldErrors({ repeat_interval_days: [`The last repeat would fall after the prescription's validity (${days} days): state fewer repeats or a shorter interval.`] });
  }
  return { repeats, repeatIntervalDays: input.intervalDays };
}

/** The most repeats an approval of `treatmentId` may state (0 in a plan's consultation). */
export const maxRepeatsFor = (input: { treatmentId: string; planSupplied: boolean }): number => (input.planSupplied ? 0 : maxRepeats(input.treatmentId));

/** The earliest moment of the next dispensing after `last` (null: no interval, or nothing dispensed yet). */
export function nextDispensingFrom(last: Date | null, intervalDays: number | null): Date | null {
  if (!last || !intervalDays) return null;
  return new Date(new Date(last).getTime() + intervalDays * DAY_MS);
}
