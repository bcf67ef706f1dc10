// The error every refusal a client can see is thrown as: its HTTP status, the exact body of spec
// section 7 and any headers. It lives in lib (and src/http/errors.ts builds the catalogue on it) so
// that lib's services, such as the rate limiter, can refuse without importing the HTTP layer.
export class ApiError extends Error {
  constructor(
    public readonly status: number,
    public readonly body: Record<string, unknown>,
    public readonly headers: Record<string, string> = {},
  ) {
    super(typeof body.detail === 'string' ? body.detail : typeof body.error === 'string' ? body.error : `HTTP ${status}`);
  }
}

// Shape: `{detail, code: "throttled"}` + Retry-After (DRF's throttling answer).
export const throttled = (retryAfterSeconds: number) => {
  const seconds = String(Math.max(1, Math.ceil(retryAfterSeconds)));
  return new ApiError(429, { detail: `Request was throttled. Expected available in ${seconds} seconds.`, code: 'throttled' }, { 'retry-after': seconds });
};
