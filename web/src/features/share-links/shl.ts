// SMART Health Links in the browser (docs/interoperability.md): read a `shlink:/` payload, ask its
// manifest for the file, and decrypt the JWE (`dir`, `A256GCM`) with the key from the link, which
// never leaves the page (it is in the URL fragment, which browsers do not send).
export interface ShlPayload {
  url: string;
  key: string;
  exp?: number;
  flag?: string;
  label?: string;
  v?: number;
}

const fromB64url = (s: string) => Uint8Array.from(atob(s.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (s.length % 4)) % 4)), (c) => c.charCodeAt(0));

/** The payload of a `shlink:/…` (alone, or after `#` in a viewer URL); null when it is not one. */
export function parseShlink(text: string): ShlPayload | null {
  const m = /shlink:\/([A-Za-z0-9_-]+)/.exec(text);
  if (!m) return null;
  try {
    const p = JSON.parse(new TextDecoder().decode(fromB64url(m[1]!))) as ShlPayload;
    return typeof p.url === 'string' && typeof p.key === 'string' && p.key.length === 43 ? p : null;
  } catch {
    return null;
  }
}

/** Decrypts a compact JWE with `alg: dir`, `enc: A256GCM` (RFC 7516; the AAD is the protected header as sent). */
export async function decryptJwe(jwe: string, keyB64url: string): Promise<string> {
  const [header = '', encryptedKey, iv = '', ciphertext = '', tag = ''] = jwe.split('.');
  const h = JSON.parse(new TextDecoder().decode(fromB64url(header))) as { alg?: string; enc?: string };
  if (h.alg !== 'dir' || h.enc !== 'A256GCM' || encryptedKey !== '') throw new Error('unsupported JWE');
  const key = await crypto.subtle.importKey('raw', fromB64url(keyB64url), 'AES-GCM', false, ['decrypt']);
  const ct = fromB64url(ciphertext);
  const t = fromB64url(tag);
  const data = new Uint8Array(ct.length + t.length);
  data.set(ct);
  data.set(t, ct.length);
  const plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: fromB64url(iv), additionalData: new TextEncoder().encode(header), tagLength: 128 }, key, data);
  return new TextDecoder().decode(plain);
}

export type ManifestResult = { kind: 'ok'; bundle: FhirBundle } | { kind: 'passcode'; remaining: number } | { kind: 'gone' } | { kind: 'error' };

/** Asks the manifest (POST, as the spec says) and decrypts its embedded file. */
export async function openShlink(p: ShlPayload, recipient: string, passcode?: string): Promise<ManifestResult> {
  const res = await fetch(p.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ recipient, ...(passcode ? { passcode } : {}) }) });
  if (res.status === 404) return { kind: 'gone' };
  if (res.status === 401) return { kind: 'passcode', remaining: ((await res.json()) as { remainingAttempts?: number }).remainingAttempts ?? 0 };
  if (!res.ok) return { kind: 'error' };
  const body = (await res.json()) as { files?: { contentType: string; embedded?: string }[] };
  const file = body.files?.find((f) => f.contentType === 'application/fhir+json' && f.embedded);
  if (!file?.embedded) return { kind: 'error' };
  return { kind: 'ok', bundle: JSON.parse(await decryptJwe(file.embedded, p.key)) as FhirBundle };
}

/** The few parts of a FHIR document bundle the viewer shows. */
export interface FhirBundle {
  resourceType: 'Bundle';
  timestamp?: string;
  entry?: { resource?: { resourceType: string; title?: string; name?: { text?: string }[]; birthDate?: string; section?: { title?: string; text?: { div?: string } }[] } }[];
}

/** The document's title, patient and sections with their lines (from the narrative's list items, as text). */
export function summaryOf(bundle: FhirBundle) {
  const resources = (bundle.entry ?? []).map((e) => e.resource).filter((r): r is NonNullable<typeof r> => !!r);
  const composition = resources.find((r) => r.resourceType === 'Composition');
  const patient = resources.find((r) => r.resourceType === 'Patient');
  const lines = (div = '') => {
    const doc = new DOMParser().parseFromString(div, 'text/html');
    return [...doc.querySelectorAll('li')].map((li) => li.textContent ?? '');
  };
  return {
    title: composition?.title ?? '',
    patient: patient?.name?.[0]?.text ?? '',
    birthDate: patient?.birthDate ?? '',
    generated: bundle.timestamp ?? '',
    sections: (composition?.section ?? []).map((s) => ({ title: s.title ?? '', items: lines(s.text?.div) })),
  };
}
