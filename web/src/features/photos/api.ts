// The photos feature's calls: uploads are multipart (the typed client speaks JSON), and a photo's
// bytes need the session, so they are fetched and shown as an object URL.
import { authFetch, errorText } from '../../api/client';

export interface UploadedPhoto {
  id: string;
  url: string;
  created_at: string;
}

/** The API path of an absolute address the API gave (photo urls carry PUBLIC_BASE_URL). */
export const apiPath = (url: string) => {
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
};

async function post(path: string, fields: Record<string, string>, file: File, fallback: string): Promise<UploadedPhoto> {
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) fd.append(k, v);
  fd.append('file', file);
  const r = await authFetch(path, { method: 'POST', body: fd });
  const body: unknown = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(errorText(body, fallback));
  return body as UploadedPhoto;
}

export const uploadQuestionPhoto = (slug: string, questionKey: string, file: File, fallback: string) =>
  post(`/v1/users/questionnaires/${encodeURIComponent(slug)}/photos/`, { question_key: questionKey }, file, fallback);

export const addConsultationPhoto = (consultationId: string, file: File, fallback: string) => post(`/v1/users/consultations/${encodeURIComponent(consultationId)}/images/`, {}, file, fallback);

/** A photo's bytes as an object URL (revoked by the caller). */
export async function photoObjectUrl(url: string): Promise<string> {
  const r = await authFetch(apiPath(url));
  if (!r.ok) throw new Error(String(r.status));
  return URL.createObjectURL(await r.blob());
}

/** Where the patient's own photo is served (the address `url` names, without the origin). */
export const patientPhotoPath = (id: string) => `/v1/users/photos/${encodeURIComponent(id)}/`;
