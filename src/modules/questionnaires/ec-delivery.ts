// When can emergency contraception reach the patient, and is that well inside its window? A pure
// function of (the delivery catalogue, the destination country, the time the order would start, the
// time of unprotected sex, the pill): the carrier's cut-off, working days and public holidays of the
// dispatching pharmacy, the transit days to the country and a margin. Data and sources:
// catalogue/delivery.json; rules: docs/questionnaires.md ("Emergency contraception: delivery in time").
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

const HOUR = 3_600_000;
const hhmm = z.string().regex(/^(?:[01]\d|2[0-3]):[0-5]\d$/);
const isoDay = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);

export const DeliveryCatalogueSchema = z
  .object({
    description: z.string(),
    dispatch: z
      .object({
        country: z.string().length(3),
        time_zone: z.string().min(1),
        review_hours: z.number().min(0),
        review_source: z.string().min(1),
        carrier_cutoff: hhmm,
        delivery_by: hhmm,
        dispatch_weekdays: z.array(z.number().int().min(0).max(6)).min(1),
        delivery_weekdays: z.array(z.number().int().min(0).max(6)).min(1),
        carrier_source: z.string().min(1),
        public_holidays: z.array(isoDay),
        holidays_source: z.string().min(1),
      })
      .strict(),
    margin_hours: z.number().min(0),
    margin_source: z.string().min(1),
    transit_business_days: z.record(z.string().length(3), z.number().int().min(0)),
    default_transit_business_days: z.number().int().min(0),
    transit_source: z.string().min(1),
    windows: z.record(z.string(), z.object({ hours: z.number().positive(), source: z.string().min(1) }).strict()),
  })
  .strict();
export type DeliveryCatalogue = z.infer<typeof DeliveryCatalogueSchema>;

export const DELIVERY_FILE = join(dirname(fileURLToPath(import.meta.url)), '../../../catalogue/delivery.json');
export function loadDeliveryCatalogue(file = DELIVERY_FILE): DeliveryCatalogue {
  const parsed = DeliveryCatalogueSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
  if (!parsed.success) throw new Error(`catalogue/delivery.json: ${z.prettifyError(parsed.error)}`);
  // An unknown time zone would throw on first use: fail at start-up instead.
  new Intl.DateTimeFormat('en', { timeZone: parsed.data.dispatch.time_zone });
  return parsed.data;
}
export const DELIVERY = loadDeliveryCatalogue();
/** Hours a delivered time-critical pill must arrive before its window ends. */
export const DELIVERY_MARGIN_HOURS = DELIVERY.margin_hours;

/** The local calendar day, weekday and minutes of an instant in a time zone. */
function local(at: Date, timeZone: string): { day: string; weekday: number; minutes: number } {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-GB', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23', weekday: 'short' })
      .formatToParts(at)
      .map((p) => [p.type, p.value]),
  );
  const day = `${parts.year}-${parts.month}-${parts.day}`;
  return { day, weekday: new Date(`${day}T00:00:00Z`).getUTCDay(), minutes: Number(parts.hour) * 60 + Number(parts.minute) };
}

/** The instant of a local day and time in a time zone (the zone's offset on that day). */
export function zonedInstant(day: string, time: string, timeZone: string): Date {
  const guess = new Date(`${day}T${time}:00Z`);
  // Two passes settle the offset also on the days the clocks change.
  let at = guess;
  for (let i = 0; i < 2; i++) {
    const seen = local(at, timeZone);
    const seenAsUtc = Date.parse(`${seen.day}T${String(Math.floor(seen.minutes / 60)).padStart(2, '0')}:${String(seen.minutes % 60).padStart(2, '0')}:00Z`);
    at = new Date(at.getTime() + (guess.getTime() - seenAsUtc));
  }
  return at;
}

const nextDay = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) + 24 * HOUR).toISOString().slice(0, 10);
const weekdayOf = (day: string) => new Date(`${day}T00:00:00Z`).getUTCDay();
const minutesOf = (t: string) => Number(t.slice(0, 2)) * 60 + Number(t.slice(3, 5));

export interface ArrivalEstimate {
  /** The local day the parcel leaves the pharmacy (YYYY-MM-DD, the dispatch time zone). */
  dispatch_on: string;
  /** The working day it is expected at the patient's door, and the latest time that day. */
  delivery_on: string;
  estimated_arrival: string;
  transit_business_days: number;
}

/**
 * The expected arrival of a parcel whose order starts at `start`: ready after the review hours (none
 * when it is being dispatched now), handed to the carrier that day if before the cut-off on a
 * dispatch day (not a public holiday), else the next one; delivered after the country's transit
 * business days, by the delivery time.
 */
export function estimateArrival(start: Date, country: string | null, opts: { reviewHours?: number; catalogue?: DeliveryCatalogue } = {}): ArrivalEstimate {
  const c = opts.catalogue ?? DELIVERY;
  const d = c.dispatch;
  const holidays = new Set(d.public_holidays);
  const ready = new Date(start.getTime() + (opts.reviewHours ?? d.review_hours) * HOUR);
  const at = local(ready, d.time_zone);
  const dispatchable = (day: string) => d.dispatch_weekdays.includes(weekdayOf(day)) && !holidays.has(day);
  let dispatch = at.day;
  if (!dispatchable(dispatch) || at.minutes >= minutesOf(d.carrier_cutoff)) {
    dispatch = nextDay(dispatch);
    while (!dispatchable(dispatch)) dispatch = nextDay(dispatch);
  }
  const transit = (country ? c.transit_business_days[country] : undefined) ?? c.default_transit_business_days;
  const deliverable = (day: string) => d.delivery_weekdays.includes(weekdayOf(day)) && !holidays.has(day);
  let delivery = dispatch;
  for (let i = 0; i < transit; i++) {
    delivery = nextDay(delivery);
    while (!deliverable(delivery)) delivery = nextDay(delivery);
  }
  return { dispatch_on: dispatch, delivery_on: delivery, estimated_arrival: zonedInstant(delivery, d.delivery_by, d.time_zone).toISOString(), transit_business_days: transit };
}

export interface EcDeliveryVerdict extends ArrivalEstimate {
  treatment_id: string;
  /** The pill's window ends (unprotected sex + 72 h levonorgestrel, + 120 h ulipristal). */
  window_ends_at: string;
  margin_hours: number;
  /** True when the parcel arrives at least the margin before the window ends. */
  arrives_in_time: boolean;
  /** When it does not: get it from a pharmacy near you now (sold without prescription in most EU countries) or collect it. */
  advice: 'pharmacy_or_click_and_collect' | null;
  sources: string[];
}

/**
 * Whether a delivered pill reaches the patient well inside its window. Null for a treatment that is
 * not time-critical (no window in the catalogue).
 */
export function ecDeliveryVerdict(input: { treatmentId: string; country: string | null; start: Date; unprotectedSexAt: Date; reviewHours?: number; catalogue?: DeliveryCatalogue }): EcDeliveryVerdict | null {
  const c = input.catalogue ?? DELIVERY;
  const window = c.windows[input.treatmentId];
  if (!window) return null;
  const estimate = estimateArrival(input.start, input.country, { reviewHours: input.reviewHours, catalogue: c });
  const ends = new Date(input.unprotectedSexAt.getTime() + window.hours * HOUR);
  const inTime = Date.parse(estimate.estimated_arrival) + c.margin_hours * HOUR <= ends.getTime();
  return {
    treatment_id: input.treatmentId,
    ...estimate,
    window_ends_at: ends.toISOString(),
    margin_hours: c.margin_hours,
    arrives_in_time: inTime,
    advice: inTime ? null : 'pharmacy_or_click_and_collect',
    sources: [window.source, c.dispatch.carrier_source, c.dispatch.holidays_source, c.transit_source, c.margin_source],
  };
}

/** The answer that records the hours since unprotected sex (a number question that elapses). */
export const HOURS_SINCE_SEX_KEY = 'hours_since_unprotected_sex';

/**
 * The delivery verdicts of a submission's time-critical treatments: the time of unprotected sex is
 * the submission time minus the hours the patient gave. Empty without that answer or such a treatment.
 */
export function submissionDeliveryVerdicts(input: { answers: unknown; answeredAt: Date; treatments: string[]; country: string | null; start: Date; reviewHours?: number }): EcDeliveryVerdict[] {
  const list = Array.isArray(input.answers) ? (input.answers as { question_key?: unknown; value?: unknown }[]) : [];
  const hours = list.find((a) => a && a.question_key === HOURS_SINCE_SEX_KEY)?.value;
  if (typeof hours !== 'number' || !Number.isFinite(hours)) return [];
  const unprotectedSexAt = new Date(input.answeredAt.getTime() - hours * HOUR);
  return input.treatments.flatMap((t) => ecDeliveryVerdict({ treatmentId: t, country: input.country, start: input.start, unprotectedSexAt, reviewHours: input.reviewHours }) ?? []);
}
