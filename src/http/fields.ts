// Field schemas shared by every module, so one rule holds for a kind of value everywhere: a date
// is a real calendar date, a timestamp carries its UTC offset and a real date and time.
import { z } from 'zod';

export const DATE_FORMAT_MESSAGE = 'Date has wrong format. Use one of these formats instead: YYYY-MM-DD.';
export const DATETIME_FORMAT_MESSAGE = 'Enter a date and time with its UTC offset, e.g. 2026-11-20T08:00:00+01:00.';

/** True for `YYYY-MM-DD` strings naming a day that exists (2026-02-30 and 2026-13-01 do not). */
export function isCalendarDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const [y, m, d] = value.split('-').map(Number) as [number, number, number];
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

/** A calendar date `YYYY-MM-DD` (DRF's DateField message on any failure). */
// The maxLength of each is published in the OpenAPI document (and refused with the same message).
export const calendarDate = z.string({ error: DATE_FORMAT_MESSAGE }).max(10, { error: DATE_FORMAT_MESSAGE, abort: true }).refine(isCalendarDate, DATE_FORMAT_MESSAGE);

// zod's ISO datetime checks the calendar (days per month, leap years) and the clock (00-23:00-59).
const isoWithOffset = z.iso.datetime({ offset: true, local: false });

/** A timestamp with its UTC offset (`Z` or `+01:00`), a real calendar day and time of day. */
export const offsetDateTime = z
  .string({ error: DATETIME_FORMAT_MESSAGE })
  .max(64, { error: DATETIME_FORMAT_MESSAGE, abort: true })
  .refine((s) => isoWithOffset.safeParse(s).success, DATETIME_FORMAT_MESSAGE);
