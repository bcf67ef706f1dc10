// POST /v1/users/change-password/ — HAND-WRITTEN TYPES, NOT GENERATED. The endpoint is being added to
// the service in parallel (contract below); until the service's OpenAPI document has it, the typed
// client (schema.d.ts) cannot, so this calls it through authFetch with these local types. Once the
// route is in the document, replace this file with `api.POST('/v1/users/change-password/', …)`.
//
// Contract: body {current_password, new_password} -> 200 {message}; 400 field-keyed errors
// {current_password: [...]} (wrong current password) or {new_password: [...]} (weak); 401 without a
// session. The service ends the account's other sessions; this one stays signed in.
import { authFetch } from './client';

export interface ChangePasswordBody {
  current_password: string;
  new_password: string;
}
export type ChangePasswordResult =
  | { ok: true; message: string }
  | { ok: false; status: number; fields: Partial<Record<keyof ChangePasswordBody, string>>; body: unknown };

export async function changePassword(body: ChangePasswordBody): Promise<ChangePasswordResult> {
  const r = await authFetch('/v1/users/change-password/', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json: unknown = await r.json().catch(() => null);
  if (r.ok) return { ok: true, message: typeof (json as { message?: unknown })?.message === 'string' ? (json as { message: string }).message : '' };
  const fields: Partial<Record<keyof ChangePasswordBody, string>> = {};
  if (json && typeof json === 'object')
    for (const k of ['current_password', 'new_password'] as const) {
      const v = (json as Record<string, unknown>)[k];
      if (Array.isArray(v) && typeof v[0] === 'string') fields[k] = v[0];
    }
  return { ok: false, status: r.status, fields, body: json };
}
