// The share-link viewer's crypto and parsing (docs/interoperability.md): a `shlink:/` payload is read,
// a JWE made by the server's library (jose: dir + A256GCM) is opened with the link's key by WebCrypto,
// a wrong key does not open it, and the summary's sections are read as text (never as HTML).
import { CompactEncrypt } from 'jose';
import { describe, expect, it } from 'vitest';
import { decryptJwe, parseShlink, summaryOf, type FhirBundle } from '../src/features/share-links/shl';

const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');

describe('share links in the browser', () => {
  it('parses a link, decrypts its JWE with the key, refuses another key, and reads the sections as text', async () => {
    const key = crypto.getRandomValues(new Uint8Array(32));
    const bundle: FhirBundle = {
      resourceType: 'Bundle',
      timestamp: '2026-12-01T10:00:00Z',
      entry: [
        { resource: { resourceType: 'Composition', title: 'Patient summary of Ada', section: [{ title: 'Medication summary', text: { div: '<div xmlns="http://www.w3.org/1999/xhtml"><ul><li>Semaglutide 0.25 mg &lt;weekly&gt;</li></ul></div>' } }] } },
        { resource: { resourceType: 'Patient', name: [{ text: 'Ada Lovelace' }], birthDate: '1985-04-12' } },
      ],
    };
    const jwe = await new CompactEncrypt(new TextEncoder().encode(JSON.stringify(bundle))).setProtectedHeader({ alg: 'dir', enc: 'A256GCM', cty: 'application/fhir+json' }).encrypt(key);
    const payload = { url: 'https://api.example.org/v1/public/shl/abc/', key: b64url(key), exp: 1, flag: 'P', label: 'For Dr. Weber', v: 1 };
    const link = `https://app.example.org/shl#shlink:/${b64url(new TextEncoder().encode(JSON.stringify(payload)))}`;
    expect(parseShlink(link)).toEqual(payload);
    expect(parseShlink('https://app.example.org/shl#nothing')).toBeNull();
    expect(parseShlink(`shlink:/${b64url(new TextEncoder().encode(JSON.stringify({ ...payload, key: 'short' })))}`)).toBeNull();

    const opened = JSON.parse(await decryptJwe(jwe, payload.key)) as FhirBundle;
    expect(opened).toEqual(bundle);
    await expect(decryptJwe(jwe, b64url(new Uint8Array(32)))).rejects.toThrow();

    expect(summaryOf(opened)).toEqual({
      title: 'Patient summary of Ada',
      patient: 'Ada Lovelace',
      birthDate: '1985-04-12',
      generated: '2026-12-01T10:00:00Z',
      sections: [{ title: 'Medication summary', items: ['Semaglutide 0.25 mg <weekly>'] }],
    });
  });
});
