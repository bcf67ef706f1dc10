// The floor: a bare Fastify + pg + jose server, run as its own process by bench/run.ts, against the
// same PostgreSQL database and with the same signing keys as the service. It verifies the same
// bearer token (HS256, same issuer, key by `kid`) and answers
//   GET /same/consultations/?limit=&offset=  the route's own statements (bench/floor-sql.ts)
//   GET /cached/consultations/?limit=&offset= the same page behind a page cache as the service's (the
//                                            session check, the data version; the page's bytes again
//                                            while the version is unchanged, else /same/'s statements)
//   GET /min/consultations/?limit=&offset=   one page query by owner and date (no session check,
//                                            no count, no summary)
//   GET /min/profile/                        the session check and one primary-key read of the profile
//   PATCH /min/profile/                      the session check and one update ... returning
//                                            (body {first_name}); raises the account's data version
//                                            as any write of the row does
//   GET /identical/consultations/            /same/'s statements, answered with the service's own bytes:
//   GET /identical-cached/consultations/     the page mapped by the consultations module's own code
//                                            (listForUser) and the envelope (pageEnvelope), written with
//                                            JSON.stringify; the second behind /cached/'s page cache. This
//                                            is the floor as the performance goals define it ("returns byte-identical
//                                            pages"); bench/run.ts checks the bytes equal the service's
//                                            before it measures (PUBLIC_BASE_URL: the service's)
// /same/ and /cached/ open each consultation's sealed answers (form_snapshot_enc, AES-256-GCM with
// DATA_ENCRYPTION_KEYS) as the service must: the same content, not the ciphertext.
//   GET /healthz                             for start-up polling
// No logging, no schemas, no access-control layer: what is left is the cost of HTTP, the token check,
// the database round trips and JSON.stringify, the least any implementation of the route pays.
//
// Environment: DATABASE_URL, PORT, JWT_SIGNING_KEYS, DATA_ENCRYPTION_KEYS (the `id:base64url` lists the service gets),
// PUBLIC_BASE_URL (the service's, for the page links of /identical/).
import Fastify, { type FastifyRequest } from 'fastify';
import { jwtVerify } from 'jose';
import pg from 'pg';
import { keyRing, parseKeyList, type KeyRing } from '../src/lib/keys.ts';
import { decrypt } from '../src/lib/crypto.ts';
import { MINIMAL_SQL, PREPARED, PROFILE_SQL, PROFILE_UPDATE_SQL, SAME_SQL, sameSqlPage, type RunQuery } from './floor-sql.ts';
import { DEFAULT_PG_TIMEOUTS, openPostgres } from '../src/db/index.ts';
import type { Deps } from '../src/deps.ts';
import { pageEnvelope, pageParams } from '../src/http/pagination.ts';
import { bindDataKeys } from '../src/lib/sealed.ts';
import { listForUser } from '../src/modules/consultations/repository.ts';

// Must equal TOKEN_ISSUER in src/http/auth.ts (not imported: that module pulls in the service's
// error layer, which the floor deliberately does without).
const TOKEN_ISSUER = 'patient-treatment-service';

const url = process.env.DATABASE_URL;
const keys = process.env.JWT_SIGNING_KEYS;
const dataKeys = process.env.DATA_ENCRYPTION_KEYS;
if (!url || !keys || !dataKeys) throw new Error('floor: DATABASE_URL, JWT_SIGNING_KEYS and DATA_ENCRYPTION_KEYS are required');
const dataRing = keyRing(parseKeyList('DATA_ENCRYPTION_KEYS', dataKeys));
/** A page item with its answers opened (form_snapshot_enc decrypted and parsed into form_snapshot). */
const openItem = (item: Record<string, unknown>): Record<string, unknown> => {
  const sealed = item.form_snapshot_enc;
  if (typeof sealed !== 'string') return item;
  const { form_snapshot_enc: _, ...rest } = item;
  return { ...rest, form_snapshot: JSON.parse(decrypt(dataRing, sealed)) as unknown };
};
// jose's key resolver: the token's `kid` picks the key (the floor is "Fastify + pg + jose" as issue
// 11 defines it; the service verifies with fast-jwt, src/lib/jwt.ts).
const verificationKey = (ring: KeyRing) => (header: { kid?: string }) => {
  const key = ring.byId(header.kid ?? 'db');
  if (!key) throw new Error('unknown key id');
  return key.key;
};
const resolveKey = verificationKey(keyRing(parseKeyList('JWT_SIGNING_KEYS', keys)));

// The service's pool size (src/db/index.ts openPostgres).
const pool = new pg.Pool({ connectionString: url, max: 10 });
pool.on('error', () => undefined);

const run: RunQuery = async (statement, values) =>
  (await pool.query(PREPARED ? { name: statement.name, text: statement.text, values } : { text: statement.text, values })).rows;

async function authenticate(header: string | undefined): Promise<{ userId: string; sessionId: string } | null> {
  const m = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  if (!m?.[1]) return null;
  try {
    const { payload } = await jwtVerify(m[1], resolveKey, { algorithms: ['HS256'], issuer: TOKEN_ISSUER });
    if (payload.token_type !== 'access' || typeof payload.user_id !== 'string' || typeof payload.sid !== 'string') return null;
    return { userId: payload.user_id, sessionId: payload.sid };
  } catch {
    return null;
  }
}

function paging(query: unknown): { limit: number; offset: number } {
  const q = (query ?? {}) as Record<string, string | undefined>;
  const limit = Math.min(Math.max(Number.parseInt(q.limit ?? '20', 10) || 20, 1), 100);
  const offset = Math.max(Number.parseInt(q.offset ?? '0', 10) || 0, 0);
  return { limit, offset };
}

const app = Fastify({ logger: false });

app.get('/healthz', async () => ({ status: 'ok' }));

app.get('/same/consultations/', async (request, reply) => {
  const auth = await authenticate(request.headers.authorization);
  if (!auth) return reply.code(401).send({ detail: 'not authenticated' });
  const { limit, offset } = paging(request.query);
  const page = await sameSqlPage(run, auth, limit, offset, openItem);
  if (!page) return reply.code(401).send({ detail: 'session ended' });
  return { count: page.count, results: page.results };
});

type Page = { body: string; version: string | undefined };

/**
 * A page behind a page cache as the service's: per account and URL, the bytes and the data version
 * they were read at. The session check; on a hit, the version check and the kept bytes while the
 * version is unchanged; otherwise the page (whose statement carries its own version), kept.
 */
function cachedPages(path: string, page: (request: FastifyRequest, userId: string) => Promise<Page>): void {
  const pages = new Map<string, { version: string; body: string }>();
  app.get(path, async (request, reply) => {
    const auth = await authenticate(request.headers.authorization);
    if (!auth) return reply.code(401).send({ detail: 'not authenticated' });
    const [me] = await run(SAME_SQL.session, [auth.userId, auth.sessionId]);
    if (!me) return reply.code(401).send({ detail: 'session ended' });
    const key = `${auth.userId} ${request.url}`;
    const hit = pages.get(key);
    if (hit) {
      const [v] = await run(SAME_SQL.version, [auth.userId]);
      if (v?.data_version === hit.version) return reply.type('application/json; charset=utf-8').send(hit.body);
    }
    const { body, version } = await page(request, auth.userId);
    if (version !== undefined) pages.set(key, { version, body });
    return reply.type('application/json; charset=utf-8').send(body);
  });
}

// /cached/: /same/'s page (the list statement, the answers opened) behind the page cache.
cachedPages('/cached/consultations/', async (request, userId) => {
  const { limit, offset } = paging(request.query);
  const [row] = await run(SAME_SQL.list, [userId, limit, offset]);
  const results = ((row?.page ?? []) as Record<string, unknown>[]).map(openItem);
  const body = JSON.stringify({ count: row?.consultation_count ?? 0, results });
  return { body, version: typeof row?.data_version === 'string' ? row.data_version : undefined };
});

app.get('/min/profile/', async (request, reply) => {
  const auth = await authenticate(request.headers.authorization);
  if (!auth) return reply.code(401).send({ detail: 'not authenticated' });
  const [me] = await run(SAME_SQL.session, [auth.userId, auth.sessionId]);
  if (!me) return reply.code(401).send({ detail: 'session ended' });
  const [row] = await run(PROFILE_SQL, [auth.userId]);
  return row;
});

app.patch('/min/profile/', async (request, reply) => {
  const auth = await authenticate(request.headers.authorization);
  if (!auth) return reply.code(401).send({ detail: 'not authenticated' });
  const body = (request.body ?? {}) as { first_name?: unknown };
  if (typeof body.first_name !== 'string') return reply.code(400).send({ first_name: ['required'] });
  const [me] = await run(SAME_SQL.session, [auth.userId, auth.sessionId]);
  if (!me) return reply.code(401).send({ detail: 'session ended' });
  const [row] = await run(PROFILE_UPDATE_SQL, [auth.userId, body.first_name]);
  return row;
});

// /identical/: the service's bytes. The module's mapping reads the data-encryption keys bound to its
// database handle and, for document numbers, from deps.secrets; the page links need the service's base.
const publicBase = (process.env.PUBLIC_BASE_URL ?? 'http://localhost').replace(/\/+$/, '');
// The service's own database layer (src/db/index.ts: its type parsers: counts and money as numbers,
// dates as text), so that the module reads the rows exactly as in the service; its statements named
// as the service's, or unnamed with the other routes' for the bare floor (FLOOR_UNNAMED=1).
const queryable = await openPostgres(url, 10, DEFAULT_PG_TIMEOUTS, { namedStatements: PREPARED });
bindDataKeys(queryable, dataRing);
const moduleDeps = { config: { PUBLIC_BASE_URL: publicBase }, secrets: { documentKeys: dataRing } } as unknown as Deps;

/** The page in the service's bytes, and the data version it was read at. */
async function identicalPage(request: FastifyRequest, userId: string): Promise<Page> {
  const p = pageParams(request.query as Record<string, unknown>);
  const { count, results, dataVersion } = await listForUser(queryable, moduleDeps, userId, p.limit, p.offset);
  // The links name the service's path (the floor answers under its own).
  const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
  const asService = { url: `/v1/users/consultations/${query}` } as FastifyRequest;
  return { body: JSON.stringify(pageEnvelope(asService, publicBase, p, count, results)), version: dataVersion };
}

app.get('/identical/consultations/', async (request, reply) => {
  const auth = await authenticate(request.headers.authorization);
  if (!auth) return reply.code(401).send({ detail: 'not authenticated' });
  const [me] = await run(SAME_SQL.session, [auth.userId, auth.sessionId]);
  if (!me) return reply.code(401).send({ detail: 'session ended' });
  return reply.type('application/json; charset=utf-8').send((await identicalPage(request, auth.userId)).body);
});

// /cached/'s scheme over /identical/'s bytes.
cachedPages('/identical-cached/consultations/', identicalPage);

app.get('/min/consultations/', async (request, reply) => {
  const auth = await authenticate(request.headers.authorization);
  if (!auth) return reply.code(401).send({ detail: 'not authenticated' });
  const { limit, offset } = paging(request.query);
  return { results: await run(MINIMAL_SQL, [auth.userId, limit, offset]) };
});

const shutdown = async () => {
  await app.close();
  await pool.end();
  await queryable.close();
  process.exit(0);
};
process.on('SIGTERM', () => void shutdown());
process.on('SIGINT', () => void shutdown());

await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
