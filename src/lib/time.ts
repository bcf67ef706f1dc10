// The one ISO-8601 serialiser of timestamps for API responses: rows carry Date (node-postgres and
// PGlite both parse timestamptz), a missing value stays null.
export function iso(d: Date | string | null | undefined): string | null {
  return d ? new Date(d).toISOString() : null;
}

/** A timestamp column that is never null (created_at, updated_at). */
export function isoRequired(d: Date | string): string {
  return new Date(d).toISOString();
}
