// POST /v1/users/change-password/ through the generated client: body {current_password,
// new_password} -> 200 {message}; 400 field-keyed errors {current_password: [...]} (wrong current
// password) or {new_password: [...]} (weak). The service ends the account's other sessions; this one
// stays signed in.
import { api } from './client';

export interface ChangePasswordBody {
  current_password: string;
  new_password: string;
}
export type ChangePasswordResult =
  | { ok: true; message: string }
  | { ok: false; status: number; fields: Partial<Record<keyof ChangePasswordBody, string>>; body: unknown };

export async function changePassword(body: ChangePasswordBody): Promise<ChangePasswordResult> {
  const { data, error, response } = await api.POST('/v1/users/change-password/', { body });
  if (data) return { ok: true, message: data.message };
  const fields: Partial<Record<keyof ChangePasswordBody, string>> = {};
  const json: unknown = error;
  if (json && typeof json === 'object')
    for (const k of ['current_password', 'new_password'] as const) {
      const v = (json as Record<string, unknown>)[k];
      if (Array.isArray(v) && typeof v[0] === 'string') fields[k] = v[0];
    }
  return { ok: false, status: response.status, fields, body: json };
}
