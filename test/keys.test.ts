// Keys apart from the data they protect: key lists from the environment with ids, the first active,
// the others still verifying and decrypting (rotation); production on PostgreSQL refuses to start
// without them.
import { randomBytes } from 'node:crypto';
import { decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { verifyAccessToken } from '../src/http/auth.ts';
import { decrypt, encrypt } from '../src/lib/crypto.ts';
import { loadSecrets } from '../src/lib/secrets.ts';
import { call, createTestContext, seedPatient, type TestContext, firstRow } from './support/harness.ts';

const key = () => randomBytes(32).toString('base64url');
const K1 = `k1:${key()}`;
const K2 = `k2:${key()}`;
const D1 = `d1:${key()}`;
const D2 = `d2:${key()}`;

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext({ JWT_SIGNING_KEYS: K1, DATA_ENCRYPTION_KEYS: D1 });
});
afterAll(async () => ctx?.close());

describe('key lists', () => {
  it('sign tokens and encrypt document numbers with the first key, named by its id', async () => {
    const p = await seedPatient(ctx);
    expect(decodeProtectedHeader(p.access).kid).toBe('k1');
    await call(ctx, 'PATCH', '/v1/users/profile/me/', { token: p.access, json: { document_number: 'C01X00T47' } });
    const row = firstRow(await ctx.db.query('select document_number_enc from users where id = $1', [p.id]));
    expect(row.document_number_enc).toMatch(/^v2\.d1\./);
    expect((await call(ctx, 'GET', '/v1/users/profile/me/', { token: p.access })).body.document_number).toBe('C01X00T47');
  });

  it('rotate: after a new first key, old tokens and ciphertexts still work; after the old key is dropped they do not', async () => {
    const p = await seedPatient(ctx);
    const sealed = encrypt(ctx.deps.secrets.documentKeys, 'X1234567');
    const rotated = await loadSecrets(ctx.db, { JWT_SIGNING_KEYS: `${K2},${K1}`, DATA_ENCRYPTION_KEYS: `${D2},${D1}` });
    const deps = { ...ctx.deps, secrets: rotated };
    expect((await verifyAccessToken(deps, p.access)).id).toBe(p.id);
    expect(decrypt(rotated.documentKeys, sealed)).toBe('X1234567');
    expect(encrypt(rotated.documentKeys, 'Y').startsWith('v2.d2.')).toBe(true);
    const dropped = await loadSecrets(ctx.db, { JWT_SIGNING_KEYS: K2, DATA_ENCRYPTION_KEYS: D2 });
    await expect(verifyAccessToken({ ...ctx.deps, secrets: dropped }, p.access)).rejects.toMatchObject({ status: 401 });
    expect(() => decrypt(dropped.documentKeys, sealed)).toThrow();
  });

  it('still read what the generated key made before keys were configured (v1 ciphertexts, tokens without kid)', async () => {
    const generated = await loadSecrets(ctx.db);
    expect(generated.documentKeys.active.id).toBe('db');
    const legacy = encrypt(generated.documentKeys, 'Z').replace(/^v2\.db\./, 'v1.');
    expect(decrypt(ctx.deps.secrets.documentKeys, legacy)).toBe('Z');
  });
});

describe('configuration', () => {
  it('refuses production on PostgreSQL without key lists, naming each variable', () => {
    const seller = { SELLER_NAME: 'Example GmbH', SELLER_ADDRESS: 'Friedrichstraße 10|10117 Berlin', SELLER_VAT_ID: 'DE123456789', SELLER_COUNTRY: 'DEU', DISTANCE_SELLING_REGISTER_URL: 'https://register.example.de/versandapotheke/1', DISTANCE_SELLING_PHARMACY_NAME: 'Example Apotheke', DISTANCE_SELLING_COUNTRY: 'DEU', SELLER_PHONE: '+4930123456' };
    const prod = { NODE_ENV: 'production', DATABASE_URL: 'postgres://u@db.example:5432/pts', ...seller };
    expect(() => loadConfig(prod)).toThrow(/JWT_SIGNING_KEYS: required in production[\s\S]*DATA_ENCRYPTION_KEYS: required in production/);
    expect(() => loadConfig({ ...prod, JWT_SIGNING_KEYS: K1, DATA_ENCRYPTION_KEYS: D1 })).not.toThrow();
    // The embedded default keeps its zero set-up.
    expect(() => loadConfig({ NODE_ENV: 'production', ...seller })).not.toThrow();
  });

  it('refuses malformed key lists', () => {
    expect(() => loadConfig({ JWT_SIGNING_KEYS: 'k1:short' })).toThrow(/JWT_SIGNING_KEYS: key "k1" is shorter than 32 bytes/);
    expect(() => loadConfig({ DATA_ENCRYPTION_KEYS: `${D1},${D1}` })).toThrow(/DATA_ENCRYPTION_KEYS: duplicate key ids/);
    expect(() => loadConfig({ JWT_SIGNING_KEYS: key() })).toThrow(/JWT_SIGNING_KEYS: each entry is id:base64url-key/);
    expect(() => loadConfig({ JWT_SIGNING_KEYS: `db:${key()}` })).toThrow(/reserved/);
  });
});
