// A remote-signing adapter over the Cloud Signature Consortium API v2 (docs/prescriptions.md), the
// interface qualified trust service providers expose for remote (server-side) signing:
//   oauth2/token (client credentials) or a configured bearer token,
//   credentials/list (the prescriber's credentials, by userID = the prescriber's e-mail),
//   credentials/info (the certificate chain, to embed and to name in signing-certificate-v2),
//   credentials/authorize (the Signature Activation Data for exactly this hash),
//   signatures/signHash (RSASSA-PKCS1-v1_5 over the SHA-256 the CMS signs).
// Any failure (network, timeout, an error answer) is a CscError: the approval that signs answers
// 503 and nothing is issued.
import { createHash } from 'node:crypto';
import type { Config } from '../../config.ts';

export class CscError extends Error {}

const SHA256_OID = '2.16.840.1.101.3.4.2.1';
const RSA_OID = '1.2.840.113549.1.1.1';

export interface CscCredential {
  credentialId: string;
  /** The certificate (PEM) and the chain above it (PEM), as the provider gives them. */
  certificatePem: string;
  chainPem: string[];
}

type CscSettings = Pick<Config, 'CSC_BASE_URL' | 'CSC_OAUTH_URL' | 'CSC_CLIENT_ID' | 'CSC_CLIENT_SECRET' | 'CSC_BEARER_TOKEN' | 'CSC_PIN' | 'CSC_TIMEOUT_MS'>;

const pem = (b64: string) => `-----BEGIN CERTIFICATE-----\n${b64.replace(/\s+/g, '').replace(/(.{64})/g, '$1\n').replace(/\n$/, '')}\n-----END CERTIFICATE-----\n`;
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

export class CscClient {
  private token: { value: string; until: number } | null = null;

  constructor(
    private readonly settings: CscSettings,
    private readonly now: () => Date,
  ) {}

  private get base(): string {
    if (!this.settings.CSC_BASE_URL) throw new CscError('CSC_BASE_URL is not set');
    return this.settings.CSC_BASE_URL.replace(/\/+$/, '');
  }

  private async post(url: string, body: unknown, bearer: string | null, form = false): Promise<Record<string, unknown>> {
    let res: Response;
    try {
      res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json', accept: 'application/json', ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
        body: form ? new URLSearchParams(body as Record<string, string>).toString() : JSON.stringify(body),
        signal: AbortSignal.timeout(this.settings.CSC_TIMEOUT_MS),
      });
    } catch (err) {
      throw new CscError(`CSC ${new URL(url).pathname}: ${err instanceof Error ? err.name : 'request failed'}`);
    }
    let json: unknown;
    try {
      json = await res.json();
    } catch {
      json = null;
    }
    if (!res.ok || !isRecord(json)) {
      const code = isRecord(json) && typeof json.error === 'string' ? json.error : `HTTP ${res.status}`;
      throw new CscError(`CSC ${new URL(url).pathname}: ${code}`);
    }
    return json;
  }

  private async bearer(): Promise<string> {
    if (this.settings.CSC_BEARER_TOKEN) return this.settings.CSC_BEARER_TOKEN;
    const now = this.now().getTime();
    if (this.token && this.token.until > now) return this.token.value;
    const oauth = (this.settings.CSC_OAUTH_URL ?? this.base).replace(/\/+$/, '');
    const answer = await this.post(
      `${oauth}/oauth2/token`,
      { grant_type: 'client_credentials', client_id: this.settings.CSC_CLIENT_ID ?? '', client_secret: this.settings.CSC_CLIENT_SECRET ?? '', scope: 'service' },
      null,
      true,
    );
    if (typeof answer.access_token !== 'string') throw new CscError('CSC oauth2/token: no access_token');
    const lifetime = typeof answer.expires_in === 'number' ? answer.expires_in : 300;
    // Renewed a minute early so a token never expires between authorize and signHash.
    this.token = { value: answer.access_token, until: now + Math.max(0, lifetime - 60) * 1000 };
    return this.token.value;
  }

  /** The prescriber's first signing credential with its certificate chain. */
  async credentialFor(userId: string): Promise<CscCredential> {
    const bearer = await this.bearer();
    const list = await this.post(`${this.base}/credentials/list`, { userID: userId, maxResults: 10 }, bearer);
    const [credentialId] = strings(list.credentialIDs);
    if (!credentialId) throw new CscError('CSC credentials/list: the prescriber has no signing credential');
    const info = await this.post(`${this.base}/credentials/info`, { credentialID: credentialId, certificates: 'chain', certInfo: true, authInfo: true }, bearer);
    const cert = isRecord(info.cert) ? info.cert : {};
    if (cert.status !== undefined && cert.status !== 'valid') throw new CscError(`CSC credentials/info: certificate ${JSON.stringify(cert.status)}`);
    const key = isRecord(info.key) ? info.key : {};
    if (key.status !== undefined && key.status !== 'enabled') throw new CscError(`CSC credentials/info: key ${JSON.stringify(key.status)}`);
    const [leaf, ...chain] = strings(cert.certificates);
    if (!leaf) throw new CscError('CSC credentials/info: no certificate');
    return { credentialId, certificatePem: pem(leaf), chainPem: chain.map(pem) };
  }

  /** Authorises one signature for exactly this hash (the SAD) and signs it. */
  async signAttributes(credentialId: string, signedAttributesDer: Buffer): Promise<Buffer> {
    const bearer = await this.bearer();
    const hash = createHash('sha256').update(signedAttributesDer).digest('base64');
    const auth = await this.post(
      `${this.base}/credentials/authorize`,
      { credentialID: credentialId, numSignatures: 1, hashes: [hash], hashAlgorithmOID: SHA256_OID, ...(this.settings.CSC_PIN ? { PIN: this.settings.CSC_PIN } : {}) },
      bearer,
    );
    if (typeof auth.SAD !== 'string') throw new CscError('CSC credentials/authorize: no SAD');
    const signed = await this.post(`${this.base}/signatures/signHash`, { credentialID: credentialId, SAD: auth.SAD, hashes: [hash], hashAlgorithmOID: SHA256_OID, signAlgo: RSA_OID }, bearer);
    const [signature] = strings(signed.signatures);
    if (!signature) throw new CscError('CSC signatures/signHash: no signature');
    return Buffer.from(signature, 'base64');
  }
}
