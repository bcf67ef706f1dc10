// The verification feature's calls: the generated client for JSON, the session's fetch for the
// multipart photo upload and the desk's images (binary, behind the doctor's token).
import { api, authFetch } from '../../api/client';

export const loadVerification = () => api.GET('/v1/users/verification/');
export type VerificationState = NonNullable<Awaited<ReturnType<typeof loadVerification>>['data']>;

export const startIdentity = () => api.POST('/v1/users/verification/identity/', { body: { return_url: `${window.location.origin}/verification?identity=done` } });

export async function sendWeight(file: File, weightKg: string): Promise<{ ok: boolean; body: unknown }> {
  const form = new FormData();
  form.append('weight_kg', weightKg);
  form.append('file', file);
  const r = await authFetch('/v1/users/verification/weight/', { method: 'POST', body: form });
  return { ok: r.ok, body: await r.json().catch(() => null) };
}

export const loadWeightQueue = () => api.GET('/v1/clinician/weight-verifications/', { params: { query: { limit: 50 } } });

export const decideWeight = (id: string, body: { decision: 'verified' | 'rejected'; weight_kg?: number; reason?: string }) =>
  api.POST('/v1/clinician/weight-verifications/{id}/decide/', { params: { path: { id } }, body });

/** An image of the desk as an object URL (the request carries the doctor's token). */
export async function imageUrl(url: string): Promise<string | null> {
  const r = await authFetch(new URL(url, window.location.origin).pathname);
  if (!r.ok) return null;
  return URL.createObjectURL(await r.blob());
}

export const loadIdentityQueue = () => api.GET('/v1/clinician/identity-verifications/', { params: { query: { limit: 50 } } });

export const decideIdentity = (id: string, body: { decision: 'verified' | 'rejected'; reason: string }) =>
  api.POST('/v1/clinician/identity-verifications/{id}/decide/', { params: { path: { id } }, body });
