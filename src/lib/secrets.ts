// Keys the service generates itself on first start and keeps in the database (so every process
// behind a load balancer shares them; on the embedded database they live under DATA_DIR with it).
import { randomBytes } from 'node:crypto';
import type { Db } from '../db/index.ts';

export interface Secrets {
  /** HS256 key for access and refresh tokens. */
  jwtKey: Uint8Array;
  /** AES-256-GCM key for identity document numbers. */
  documentKey: string;
  /** Key for hashing one-time codes. */
  codeKey: string;
}

async function getOrCreate(db: Db, name: string, make: () => string): Promise<string> {
  await db.query('insert into app_secrets (name, value) values ($1, $2) on conflict (name) do nothing', [name, make()]);
  const [row] = await db.query<{ value: string }>('select value from app_secrets where name = $1', [name]);
  return row.value;
}

export async function loadSecrets(db: Db): Promise<Secrets> {
  const gen = () => randomBytes(32).toString('base64url');
  return {
    jwtKey: Buffer.from(await getOrCreate(db, 'jwt_hs256', () => randomBytes(64).toString('base64url')), 'base64url'),
    documentKey: await getOrCreate(db, 'document_aes256', gen),
    codeKey: await getOrCreate(db, 'code_hash', gen),
  };
}
