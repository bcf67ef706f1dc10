// The one timestamp formatter of API answers: ISO 8601 in UTC with milliseconds
// (`2026-01-31T09:30:00.000Z`), null for a missing value.
//
// Lists format their timestamps in SQL already (see ISO_SQL) and hand over that canonical text;
// canonical text is a fixed point of `new Date(s).toISOString()`, so it is returned as is instead of
// being parsed and formatted again for every timestamp of every row.
const CANONICAL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export function iso(d: unknown): string | null {
  if (!d) return null;
  if (d instanceof Date) return d.toISOString();
  if (typeof d === 'string' && d.length === 24 && CANONICAL.test(d)) return d;
  return new Date(d as string | number).toISOString();
}

/**
 * SQL expression formatting a timestamptz column exactly as `iso` formats the Date the drivers
 * parse from it: UTC, milliseconds truncated (both drivers and to_char's MS drop the microseconds).
 */
export const ISO_SQL = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
