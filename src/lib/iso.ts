// The one timestamp formatter of API answers: ISO 8601 in UTC with milliseconds
// (`2026-01-31T09:30:00.000Z`), null for a missing value.
//
// Two kinds of text reach it without a Date round trip (parsing and formatting every timestamp of
// every row of a list showed in its profile):
// - canonical text (ISO_SQL's), a fixed point of `new Date(s).toISOString()`: returned as is;
// - PostgreSQL's JSON text of a timestamptz in a UTC session (`2026-01-31T09:30:00.123456+00:00`,
//   what json_build_object writes): cut to milliseconds, as the drivers' Dates are. Formatting in
//   SQL with to_char instead cost the list statement a fifth of its database time.
// Anything else (another session time zone, a fraction PostgreSQL trimmed to under 3 digits) goes
// through Date, which is always right.
const CANONICAL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const PG_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3,6}\+00(?::00)?$/;

export function iso(d: unknown): string | null {
  if (!d) return null;
  if (d instanceof Date) return d.toISOString();
  if (typeof d === 'string') {
    if (d.length === 24 && CANONICAL.test(d)) return d;
    if (PG_UTC.test(d)) return `${d.slice(0, 23)}Z`;
  }
  return new Date(d as string | number).toISOString();
}

/**
 * SQL expression formatting a timestamptz column exactly as `iso` formats the Date the drivers
 * parse from it: UTC, milliseconds truncated (both drivers and to_char's MS drop the microseconds).
 */
export const ISO_SQL = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
