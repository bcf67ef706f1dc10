// The floor: a bare Fastify + pg + jose server, run as its own process by bench/run.ts, against the
// same PostgreSQL database and with the same signing keys as the service. It verifies the same
// bearer token (HS256, same issuer, key by `kid`) and answers
//   GET /same/consultations/?limit=&offset=  the route's own statements (bench/floor-sql.ts)
//   GET /min/consultations/?limit=&offset=   one page query by owner and date (no session check,
//                                            no count, no summary)
//   GET /healthz                             for start-up polling
// No logging, no schemas, no access-control layer: what is left is the cost of HTTP, the token check,
// the database round trips and JSON.stringify, the least any implementation of the route pays.
//
// Environment: DATABASE_URL, PORT, JWT_SIGNING_KEYS (the `id:base64url` list the service gets).
import Fastify from 'fastify';
import { jwtVerify } from 'jose';
import pg from 'pg';
import { keyRing, parseKeyList, type KeyRing } from '../src/lib/keys.ts';
import { MINIMAL_SQL, PREPARED, sameSqlPage, type RunQuery } from './floor-sql.ts';

// Must equal TOKEN_ISSUER in src/http/auth.ts (not imported: that module pulls in the service's
// error layer, which the floor deliberately does without).
const TOKEN_ISSUER = 'patient-treatment-service';

const url = process.env.DATABASE_URL;
const keys = process.env.JWT_SIGNING_KEYS;
if (!url || !keys) throw new Error('floor: DATABASE_URL and JWT_SIGNING_KEYS are required');
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
  const body = await sameSqlPage(run, auth, limit, offset);
  if (!body) return reply.code(401).send({ detail: 'session ended' });
  return body;
});

app.get('/min/consultations/', async (request, reply) => {
  const auth = await authenticate(request.headers.authorization);
  if (!auth) return reply.code(401).send({ detail: 'not authenticated' });
  const { limit, offset } = paging(request.query);
  return { results: await run(MINIMAL_SQL, [auth.userId, limit, offset]) };
});

const shutdown = async () => {
  await app.close();
  await pool.end();
  process.exit(0);
};
process.on('SIGTERM', () => void shutdown());
process.on('SIGINT', () => void shutdown());

await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
