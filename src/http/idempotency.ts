// `Idempotency-Key` (the IETF httpapi draft) on the POSTs that create something. A route opts in with
// `config: { idempotent: true }`; this file gives it the header (validated, and documented through
// the route's schema) and two hooks:
// - preHandler (after authentication and body validation): claims (account, key) with the request's
//   fingerprint (method, route, path parameters, validated body). A key already answered for the same
//   request within 24 hours replays that answer (same status, same body, `Idempotent-Replayed: true`)
//   without running the handler; the same key with another request answers
//   `422 {error, code: "idempotency_key_reused"}`; a key whose first request is still being answered,
//   `409 {error, code: "idempotency_key_in_use"}`.
// - onSend: keeps the answer (any status below 500) for the key; a 5xx gives the key back, so that the
//   retry runs the request again.
// Keys are stored in the database (idempotency_keys), per account, so they hold across processes;
// answers older than 24 hours are swept by the scheduled job idempotency.expire. Multipart bodies
// (a message with a file) are streamed by the handler and cannot be fingerprinted first: the header is
// ignored on them. See docs/operations.md.
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { z } from 'zod';
import type { Deps } from '../deps.ts';
import { errorSummary } from '../lib/error-fields.ts';
import { fail } from './error-catalogue.ts';
import { claimKey, expireAnswersForScheduler, findAnswer, releaseKey, storeAnswer } from './idempotency.repository.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Accepts `Idempotency-Key` (src/http/idempotency.ts). */
    idempotent?: boolean;
  }
}

/** How long an answer is replayed. */
export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;
/** A claim unanswered for this long belongs to a request whose process died: the same request may take it over. */
export const ABANDONED_CLAIM_MS = 60 * 1000;

export const IDEMPOTENCY_HEADER = 'idempotency-key';

const KeySchema = z
  .string()
  .min(1, { error: 'Use 1 to 255 printable characters (a UUID, for example).' })
  .max(255, { error: 'Use 1 to 255 printable characters (a UUID, for example).' })
  .regex(/^[\x21-\x7e]+$/, { error: 'Use 1 to 255 printable characters (a UUID, for example).' })
  .meta({
    description:
      'A unique value (a UUID) per request: the same key with the same request within 24 hours replays the first answer (same status and body, header `Idempotent-Replayed: true`) instead of creating a second record; with another request it is refused (422 idempotency_key_reused).',
    example: '8e03978e-40d5-43e8-bc93-6894a57f9324',
  });

interface Claim {
  userId: string;
  key: string;
  fingerprint: string;
}

const claims = new WeakMap<FastifyRequest, Claim>();

/**
 * What "the same request" means for a key. A multipart body (a message with a file) is streamed by
 * the handler after this runs, so its fingerprint is the route and its parameters alone: a retry of
 * an upload replays the first answer (no duplicate), and another upload under the same key replays
 * it too rather than answering 422 (docs/operations.md).
 */
function fingerprintOf(request: FastifyRequest): string {
  const body = request.isMultipart() ? 'multipart' : (request.body ?? null);
  return createHash('sha256')
    .update(JSON.stringify([request.method, request.routeOptions.url, request.params ?? null, body]))
    .digest('base64url');
}

/** Call before the modules register their routes. */
export function installIdempotency(app: FastifyInstance, deps: Deps): void {
  deps.scheduler.register('idempotency.expire', async () => {
    await expireAnswersForScheduler(deps.db, new Date(deps.clock.now().getTime() - IDEMPOTENCY_TTL_MS));
  });

  async function claim(request: FastifyRequest, reply: FastifyReply) {
    const key = request.headers[IDEMPOTENCY_HEADER];
    const user = request.user;
    if (typeof key !== 'string' || !user) return;
    const fingerprint = fingerprintOf(request);
    const now = deps.clock.now();
    const claimed = await claimKey(deps.db, user.id, key, fingerprint, now, new Date(now.getTime() - IDEMPOTENCY_TTL_MS), new Date(now.getTime() - ABANDONED_CLAIM_MS));
    if (claimed) {
      claims.set(request, { userId: user.id, key, fingerprint });
      return;
    }
    const stored = await findAnswer(deps.db, user.id, key);
    if (stored && stored.fingerprint !== fingerprint) throw fail('idempotency_key_reused');
    if (!stored || stored.status_code === null || stored.response_body === null) throw fail('idempotency_key_in_use');
    reply.code(stored.status_code).header('idempotent-replayed', 'true');
    if (stored.response_type) reply.type(stored.response_type);
    return reply.send(stored.response_body);
  }

  // Keeping the answer can fail when the database goes away right after the request's commit: it is
  // tried again for a while, within the time a claim counts as live, so a retry finds the answer.
  const RETRY_DELAYS_MS = [1000, 3000, 8000, 20_000];
  const keep = (c: Claim, status: number, type: string | null, body: string, log: FastifyRequest['log'], attempt = 0): void => {
    storeAnswer(deps.db, c.userId, c.key, c.fingerprint, status, type, body).catch((err: unknown) => {
      const delay = RETRY_DELAYS_MS[attempt];
      log.warn({ err: errorSummary(err), attempt: attempt + 1, retry: delay !== undefined }, 'idempotency: answer not stored');
      if (delay !== undefined) setTimeout(() => keep(c, status, type, body, log, attempt + 1), delay).unref();
    });
  };

  async function remember(request: FastifyRequest, reply: FastifyReply, payload: unknown) {
    const c = claims.get(request);
    if (!c) return payload;
    claims.delete(request);
    const status = reply.statusCode;
    if (status < 500 && typeof payload === 'string') {
      const type = reply.getHeader('content-type');
      const contentType = typeof type === 'string' ? type : null;
      try {
        await storeAnswer(deps.db, c.userId, c.key, c.fingerprint, status, contentType, payload);
      } catch (err) {
        request.log.warn({ err: errorSummary(err) }, 'idempotency: answer not stored, retrying');
        keep(c, status, contentType, payload, request.log);
      }
    } else {
      // A server-side failure (or an answer that is not text): the retry must run the request again.
      await releaseKey(deps.db, c.userId, c.key, c.fingerprint).catch((err: unknown) => request.log.warn({ err: errorSummary(err) }, 'idempotency: key not released'));
    }
    return payload;
  }

  app.addHook('onRoute', (route: RouteOptions) => {
    if (!route.config?.idempotent) return;
    const schema = (route.schema ??= {});
    if (schema.headers) throw new Error(`Route ${route.url}: an idempotent route's headers schema is made by src/http/idempotency.ts`);
    schema.headers = z.looseObject({ [IDEMPOTENCY_HEADER]: KeySchema.optional() });
    route.preHandler = [claim, ...[route.preHandler ?? []].flat()];
    route.onSend = [remember, ...[route.onSend ?? []].flat()];
  });
}

/** Erasure (docs/privacy.md): the account's stored answers are deleted with the account's other data. */
export { deleteAnswersOfAccount as deleteIdempotentAnswersOfAccount } from './idempotency.repository.ts';
