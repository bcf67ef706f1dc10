// Wall-clock times in an IANA time zone, with the platform's time-zone data (Intl): the local
// date and time of an instant, and the instant of a local date and time. Daylight-saving changes
// are handled by asking the zone's offset at the instant itself; a local time that does not exist
// (clocks go forward over it) comes out moved forward by the gap, and one that exists twice
// (clocks go back) as its first occurrence.

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
    formatters.set(timeZone, f);
  }
  return f;
}

export function isTimeZone(timeZone: string): boolean {
  try {
    formatter(timeZone);
    return true;
  } catch {
    return false;
  }
}

export interface LocalTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  /** 0 = Monday ... 6 = Sunday. */
  weekday: number;
}

export function localTime(at: Date, timeZone: string): LocalTime {
  const parts: Record<string, number> = {};
  for (const p of formatter(timeZone).formatToParts(at)) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  const { year = 1970, month = 1, day = 1, hour = 0, minute = 0, second = 0 } = parts;
  const weekday = (new Date(Date.UTC(year, month - 1, day)).getUTCDay() + 6) % 7;
  return { year, month, day, hour, minute, second, weekday };
}

/** The zone's offset from UTC at an instant, in ms. */
function offsetAt(ms: number, timeZone: string): number {
  const l = localTime(new Date(ms), timeZone);
  return Date.UTC(l.year, l.month - 1, l.day, l.hour, l.minute, l.second) - Math.floor(ms / 1000) * 1000;
}

/** The instant of a local date and time in the zone (the day may overflow: Date.UTC's arithmetic). */
export function zonedInstant(year: number, month: number, day: number, hour: number, minute: number, timeZone: string): Date {
  const wall = Date.UTC(year, month - 1, day, hour, minute);
  // The offsets in force half a day either side cover any change on that day (they are hours apart).
  const candidates = [wall - offsetAt(wall - 12 * 3600_000, timeZone), wall - offsetAt(wall + 12 * 3600_000, timeZone)];
  const target = new Date(wall);
  const mapsBack = (ms: number) => {
    const l = localTime(new Date(ms), timeZone);
    return l.day === target.getUTCDate() && l.hour === target.getUTCHours() && l.minute === target.getUTCMinutes();
  };
  const valid = candidates.filter(mapsBack);
  // Exists (once or twice): the first. In the gap: the offset before the change, i.e. moved forward by the gap.
  return new Date(valid.length ? Math.min(...valid) : Math.max(...candidates));
}

/** A local calendar date as YYYY-MM-DD. */
export const isoDate = (l: Pick<LocalTime, 'year' | 'month' | 'day'>) => `${String(l.year).padStart(4, '0')}-${String(l.month).padStart(2, '0')}-${String(l.day).padStart(2, '0')}`;

const pad = (n: number, w = 2) => String(Math.abs(n)).padStart(w, '0');

/** The instant as an ISO 8601 time in the zone with its offset, e.g. 2026-12-03T10:00:00+01:00. */
export function isoInZone(at: Date, timeZone: string): string {
  const l = localTime(at, timeZone);
  const offsetMin = Math.round(offsetAt(at.getTime(), timeZone) / 60_000);
  const sign = offsetMin < 0 ? '-' : '+';
  return `${isoDate(l)}T${pad(l.hour)}:${pad(l.minute)}:${pad(l.second)}${sign}${pad(Math.floor(Math.abs(offsetMin) / 60))}:${pad(Math.abs(offsetMin) % 60)}`;
}
