// Thrown values are `unknown`: drivers and libraries attach fields (code, constraint, statement,
// responseCode...) that callers branch on and log. These read one without trusting its type.
export function errorField(err: unknown, key: string): unknown {
  return typeof err === 'object' && err !== null ? (err as Record<string, unknown>)[key] : undefined;
}

export function errorString(err: unknown, key: string): string | undefined {
  const value = errorField(err, key);
  return typeof value === 'string' ? value : undefined;
}

/** The message and code of a failure, for a log line (never the whole object: it can hold data). */
export const errorSummary = (err: unknown) => ({ message: errorString(err, 'message') ?? String(err), code: errorString(err, 'code') });
