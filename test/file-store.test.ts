// Attachments where every process sees them (src/modules/messages/file-stores.ts): uploaded
// through one instance of the service and downloaded through another on the same database, sealed
// with the data-encryption keys, in the database by default or in an S3-compatible store (a fake S3
// server here), and files left in DATA_DIR/uploads by older versions moved into the store at start.
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import type { Db } from '../src/db/index.ts';
import { openBytes, sealBytes, sealedKeyId } from '../src/lib/crypto.ts';
import { keyRing } from '../src/lib/keys.ts';
import { memoryTransport } from '../src/mail/transports.ts';
import { fileStoreOf, resealStoredFiles } from '../src/modules/messages/file-stores.ts';
import { createRuntime } from '../src/runtime.ts';
import { startFakeS3, type FakeS3 } from './support/fake-s3.ts';
import { anotherInstance, call, createTestContext, firstRow, newStaff, seedPatient, type Instance, type Patient, type TestContext } from './support/harness.ts';
import { multipart, pdfPart } from './support/multipart.ts';

const PDF = Buffer.concat([Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n'), Buffer.from('LAB-RESULT-HBA1C-6.1\n'), randomBytes(64 * 1024), Buffer.from('\n%%EOF\n')]);

const threadOf = async (on: { app: TestContext['app'] }, p: Patient) => (await call(on, 'GET', '/v1/users/conversations/', { token: p.access })).body.results[0].id as string;

async function uploadThrough(on: { app: TestContext['app'] }, p: Patient, data = PDF) {
  const id = await threadOf(on, p);
  const r = await call(on, 'POST', `/v1/users/conversations/${id}/messages/`, { token: p.access, ...multipart({ content: 'My blood test' }, pdfPart(data)) });
  expect(r.status, r.text).toBe(201);
  const url: string = r.body.last_message.file;
  return { id, path: url.replace('http://api.test.local', ''), messageId: url.split('/').at(-3)! };
}

async function download(on: { app: TestContext['app'] }, path: string, token: string) {
  return on.app.inject({ method: 'GET', url: path, headers: { authorization: `Bearer ${token}` } });
}

describe('in the database (FILE_STORE=database, the default)', () => {
  let ctx: TestContext;
  let other: Instance;
  beforeAll(async () => {
    ctx = await createTestContext();
    other = await anotherInstance(ctx);
  });
  afterAll(async () => {
    await other?.close();
    await ctx?.close();
  });

  it('a file uploaded through one instance downloads through another (patient and medical team)', async () => {
    const p = await seedPatient(ctx);
    const { id, path, messageId } = await uploadThrough(ctx, p);
    const dl = await download(other, path, p.access);
    expect(dl.statusCode).toBe(200);
    expect(dl.headers['content-type']).toBe('application/pdf');
    expect(dl.rawPayload.equals(PDF)).toBe(true);
    // ...and the other way round, and the medical team's download through the second instance.
    const q = await seedPatient(ctx);
    const second = await uploadThrough(other, q);
    expect((await download(ctx, second.path, q.access)).rawPayload.equals(PDF)).toBe(true);
    const doctor = await newStaff(ctx, 'doctor');
    const team = await download(other, `/v1/clinician/conversations/${id}/messages/${messageId}/file/`, doctor.access);
    expect(team.statusCode).toBe(200);
    expect(team.rawPayload.equals(PDF)).toBe(true);
    // Nothing went to either process's disk.
    expect(existsSync(join(ctx.config.DATA_DIR, 'uploads'))).toBe(false);
    expect(existsSync(join(other.config.DATA_DIR, 'uploads'))).toBe(false);
  });

  it('stores the bytes sealed with the data-encryption key, bound to their storage key', async () => {
    const p = await seedPatient(ctx);
    const { id } = await uploadThrough(ctx, p);
    const row = firstRow(
      await ctx.db.query(
        'select b.storage_key, b.key_id, b.sealed from file_blobs b join message_files f on f.storage_key = b.storage_key join messages m on m.file_id = f.id where m.conversation_id = $1',
        [id],
      ),
    );
    const sealed = Buffer.from(row.sealed);
    expect(row.key_id).toBe('db');
    expect(sealed.includes('LAB-RESULT-HBA1C')).toBe(false);
    expect(sealed.includes('%PDF')).toBe(false);
    expect(openBytes(ctx.deps.secrets.documentKeys, sealed, row.storage_key).equals(PDF)).toBe(true);
    // The same bytes under another file's name do not open (GCM's associated data).
    expect(() => openBytes(ctx.deps.secrets.documentKeys, sealed, randomUUID())).toThrow();
  });

  it('bytes are written in the caller\'s transaction: rolled back with it, and refused without their file row', async () => {
    const store = fileStoreOf(ctx.deps);
    const count = async () => firstRow(await ctx.db.query<{ n: number }>('select count(*)::int as n from file_blobs')).n;
    const before = await count();
    await expect(
      ctx.deps.db.tx(async (q) => {
        await store.put(PDF, q);
        throw new Error('the message failed');
      }),
    ).rejects.toThrow('the message failed');
    expect(await count()).toBe(before);
    // No file row names the key by the commit: the deferred reference refuses the bytes.
    await expect(ctx.deps.db.tx((q) => store.put(PDF, q))).rejects.toMatchObject({ code: '23503' });
    expect(await count()).toBe(before);
  });

  it('a rotated key ring still opens files sealed with the old key, and seals new ones with the new key', async () => {
    const k1 = randomBytes(32).toString('base64url');
    const rotated = await anotherInstance(ctx, { DATA_ENCRYPTION_KEYS: `k1:${k1}` });
    try {
      const p = await seedPatient(ctx);
      const old = await uploadThrough(ctx, p);
      expect((await download(rotated, old.path, p.access)).rawPayload.equals(PDF)).toBe(true);
      const q = await seedPatient(ctx);
      const fresh = await uploadThrough(rotated, q);
      const row = firstRow(
        await ctx.db.query('select b.key_id from file_blobs b join message_files f on f.storage_key = b.storage_key join messages m on m.file_id = f.id where m.conversation_id = $1', [fresh.id]),
      );
      expect(row.key_id).toBe('k1');
      // An instance without k1 cannot open it (the key lives outside the database).
      expect((await download(ctx, fresh.path, q.access)).statusCode).toBe(500);
    } finally {
      await rotated.close();
    }
  });

  it('moves files left in DATA_DIR/uploads by older versions into the database at start', async () => {
    const p = await seedPatient(ctx);
    const { id, path } = await uploadThrough(ctx, p);
    // Make that file look like one stored by the old disk store: bytes on disk, none in the database.
    const { storage_key: key } = firstRow(await ctx.db.query('select f.storage_key from message_files f join messages m on m.file_id = f.id where m.conversation_id = $1', [id]));
    await ctx.db.query('delete from file_blobs where storage_key = $1', [key]);
    expect((await download(ctx, path, p.access)).statusCode).toBe(500);
    const dataDir = mkdtempSync(join(tmpdir(), 'pts-legacy-'));
    const uploads = join(dataDir, 'uploads');
    mkdirSync(uploads);
    writeFileSync(join(uploads, key), PDF);
    const stray = randomUUID();
    writeFileSync(join(uploads, stray), 'an upload whose message was never stored');
    writeFileSync(join(uploads, `.${randomUUID()}.tmp`), 'half written');

    const config = loadConfig({ DATA_DIR: dataDir, BRAND_SLUG: 'test-brand', PUBLIC_BASE_URL: 'http://api.test.local', LOG_LEVEL: 'silent' });
    const runtime = await createRuntime(config, { db: { ...ctx.db, close: async () => undefined } as Db, transport: memoryTransport(), migrate: false });
    await runtime.close();

    expect(existsSync(join(uploads, key))).toBe(false);
    expect(existsSync(join(uploads, stray))).toBe(true); // unreferenced: left for the operator
    const dl = await download(other, path, p.access);
    expect(dl.statusCode).toBe(200);
    expect(dl.rawPayload.equals(PDF)).toBe(true);
    const row = firstRow(await ctx.db.query('select sealed from file_blobs where storage_key = $1', [key]));
    expect(Buffer.from(row.sealed).includes('LAB-RESULT-HBA1C')).toBe(false);
  });
});

describe('in an S3-compatible store (FILE_STORE=s3)', () => {
  const bucket = 'pts-attachments';
  const region = 'eu-central-1';
  const accessKeyId = 'AKIATESTFAKE0001';
  let s3: FakeS3;
  let ctx: TestContext;
  let other: Instance;
  let env: Record<string, string>;
  beforeAll(async () => {
    s3 = await startFakeS3({ bucket, accessKeyId, region });
    env = {
      FILE_STORE: 's3',
      S3_BUCKET: bucket,
      S3_REGION: region,
      S3_ENDPOINT: s3.url,
      S3_FORCE_PATH_STYLE: 'true',
      S3_ACCESS_KEY_ID: accessKeyId,
      S3_SECRET_ACCESS_KEY: 'fake-secret-key-for-tests-only',
    };
    ctx = await createTestContext(env);
    other = await anotherInstance(ctx, env);
  });
  afterAll(async () => {
    await other?.close();
    await ctx?.close();
    await s3?.close();
  });

  it('a file uploaded through one instance downloads through another, sealed in the bucket and absent from the database', async () => {
    const p = await seedPatient(ctx);
    const { id, path } = await uploadThrough(ctx, p);
    const dl = await download(other, path, p.access);
    expect(dl.statusCode).toBe(200);
    expect(dl.rawPayload.equals(PDF)).toBe(true);
    const { storage_key: key } = firstRow(await ctx.db.query('select f.storage_key from message_files f join messages m on m.file_id = f.id where m.conversation_id = $1', [id]));
    const object = s3.objects.get(`${bucket}/${key}`);
    expect(object).toBeDefined();
    expect(object!.includes('LAB-RESULT-HBA1C')).toBe(false);
    expect(openBytes(ctx.deps.secrets.documentKeys, object!, key).equals(PDF)).toBe(true);
    expect(await ctx.db.query('select 1 from file_blobs where storage_key = $1', [key])).toHaveLength(0);
    // Signed requests, path-style, no checksum the store did not ask for.
    const put = s3.requests.find((r) => r.method === 'PUT' && r.path === `/${bucket}/${key}`);
    expect(put?.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIATESTFAKE0001\//);
    expect(Object.keys(put!.headers).filter((h) => h.startsWith('x-amz-checksum-'))).toEqual([]);
  });

  it('reencrypt re-seals the bucket\'s objects with the active key; the files still download', async () => {
    const p = await seedPatient(ctx);
    const { id, path } = await uploadThrough(ctx, p);
    const { storage_key: key } = firstRow(await ctx.db.query('select f.storage_key from message_files f join messages m on m.file_id = f.id where m.conversation_id = $1', [id]));
    const rotated = await anotherInstance(ctx, { ...env, DATA_ENCRYPTION_KEYS: `k9:${randomBytes(32).toString('base64url')}` });
    try {
      const report = await resealStoredFiles(rotated.deps);
      expect(report.s3).toBeGreaterThanOrEqual(1);
      expect(sealedKeyId(s3.objects.get(`${bucket}/${key}`)!)).toBe('k9');
      const dl = await download(rotated, path, p.access);
      expect(dl.statusCode).toBe(200);
      expect(dl.rawPayload.equals(PDF)).toBe(true);
      expect((await resealStoredFiles(rotated.deps)).s3).toBe(0);
    } finally {
      await rotated.close();
    }
  });

  it('files stored in the database before the switch to s3 stay readable', async () => {
    const before = await anotherInstance(ctx); // FILE_STORE=database on the same database
    try {
      const p = await seedPatient(ctx);
      const { path } = await uploadThrough(before, p);
      const objects = s3.objects.size;
      const dl = await download(ctx, path, p.access);
      expect(dl.statusCode).toBe(200);
      expect(dl.rawPayload.equals(PDF)).toBe(true);
      expect(s3.objects.size).toBe(objects);
    } finally {
      await before.close();
    }
  });

  it('a missing object is a server error, not a crash; an unreachable store is not a client error either', async () => {
    const p = await seedPatient(ctx);
    const { id, path } = await uploadThrough(ctx, p);
    const { storage_key: key } = firstRow(await ctx.db.query('select f.storage_key from message_files f join messages m on m.file_id = f.id where m.conversation_id = $1', [id]));
    s3.objects.delete(`${bucket}/${key}`);
    const gone = await download(ctx, path, p.access);
    expect(gone.statusCode).toBe(500);
    expect(JSON.parse(gone.body).code).toBe('server_error');
    const { path: stored } = await uploadThrough(ctx, p);
    const cut = await anotherInstance(ctx, { ...env, S3_ENDPOINT: 'http://127.0.0.1:9' });
    try {
      // The SDK's connection error (ECONNREFUSED) takes the database's 503 path: a retry may succeed.
      const down = await download(cut, stored, p.access);
      expect(down.statusCode).toBe(503);
      expect(down.headers['retry-after']).toBe('2');
    } finally {
      await cut.close();
    }
  });
});

describe('sealing and configuration', () => {
  it('seals with the active key and opens with any key of the ring', () => {
    const a = { id: 'a', key: randomBytes(32) };
    const b = { id: 'b', key: randomBytes(32) };
    const sealed = sealBytes(keyRing([a]), PDF, 'k');
    expect(openBytes(keyRing([b, a]), sealed, 'k').equals(PDF)).toBe(true);
    expect(() => openBytes(keyRing([b]), sealed, 'k')).toThrow(/key id/);
    const tampered = Buffer.from(sealed);
    tampered[tampered.length - 1]! ^= 1;
    expect(() => openBytes(keyRing([a]), tampered, 'k')).toThrow();
  });

  it('checks the file store settings at start', () => {
    const problems = (env: Record<string, string>) => {
      try {
        loadConfig(env);
        return [];
      } catch (err) {
        return (err as { problems: string[] }).problems;
      }
    };
    expect(problems({})).toEqual([]);
    expect(problems({ FILE_STORE: 'disk' })).toEqual(['FILE_STORE: must be database or s3']);
    expect(problems({ FILE_STORE: 's3' })).toEqual(['S3_BUCKET: required when FILE_STORE=s3', 'S3_REGION: required when FILE_STORE=s3']);
    expect(problems({ FILE_STORE: 's3', S3_BUCKET: 'b1', S3_REGION: 'eu-west-1', S3_ACCESS_KEY_ID: 'AKIA' })).toEqual([
      'S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY: set both or neither (neither: the AWS SDK default credentials)',
    ]);
    expect(problems({ S3_BUCKET: 'b1' })).toEqual(['S3_BUCKET: only used with FILE_STORE=s3 (FILE_STORE is database)']);
    expect(problems({ FILE_STORE: 's3', S3_BUCKET: 'b1', S3_REGION: 'eu-west-1', S3_ENDPOINT: 'ftp://x' })).toEqual(['S3_ENDPOINT: must be a https:// or http:// URL with a host']);
    expect(problems({ FILE_STORE: 's3', S3_BUCKET: 'b1', S3_REGION: 'eu-west-1', S3_FORCE_PATH_STYLE: 'yes' })).toEqual(['S3_FORCE_PATH_STYLE: must be true or false']);
    expect(loadConfig({ FILE_STORE: 's3', S3_BUCKET: 'b1', S3_REGION: 'eu-west-1', S3_FORCE_PATH_STYLE: '1' }).S3_FORCE_PATH_STYLE).toBe(true);
  });
});
