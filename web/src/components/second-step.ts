// What a 403 of sign-in asks for next (docs/accounts.md, "Second factor"). Apart from the step's own
// components (SecondFactor.tsx, loaded only when a second step is asked for), so the sign-in page's
// first load stays small.

/** The second step a 403 of sign-in asks for, if any. */
export type SecondStep = { kind: 'mfa' | 'enrol'; token: string; methods: string[] };
export function secondStepOf(err: unknown): SecondStep | null {
  const e = (err ?? {}) as { code?: unknown; mfa_token?: unknown; enrolment_token?: unknown; methods?: unknown };
  const methods = Array.isArray(e.methods) ? e.methods.filter((m): m is string => typeof m === 'string') : ['totp'];
  if (e.code === 'mfa_required' && typeof e.mfa_token === 'string') return { kind: 'mfa', token: e.mfa_token, methods };
  if (e.code === 'mfa_enrolment_required' && typeof e.enrolment_token === 'string') return { kind: 'enrol', token: e.enrolment_token, methods };
  return null;
}
