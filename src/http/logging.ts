// pino options: request logs carry method, path and status, never bodies; secrets are redacted
// wherever they could appear (headers, and any logged object with these keys). Error codes stay
// readable (no `*.code` rule). A database error is logged by its SQLSTATE code, constraint and
// statement label only: its message and detail can quote the values a statement carried.
import { LogController, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import pino from 'pino';
import { errorString } from '../lib/error-fields.ts';

export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'headers.authorization',
  '*.password',
  '*.new_password',
  '*.otp',
  '*.token',
  '*.refresh',
  '*.access',
  '*.credential',
  '*.id_token',
  '*.content',
  '*.answers',
  '*.document_number',
];

export function loggerOptions(level: string): Exclude<FastifyServerOptions['logger'], boolean | undefined> {
  return {
    level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    serializers: {
      err: (err: Error) => {
        const serialised = pino.stdSerializers.err(err);
        const statement = errorString(err, 'statement');
        if (statement === undefined) return serialised;
        const frames = String(serialised.stack ?? '').split('\n').slice(1).join('\n');
        const code = errorString(err, 'code');
        return { type: serialised.type, message: `database error ${code ?? ''}`, code, constraint: errorString(err, 'constraint'), statement, stack: frames };
      },
      req: (req: FastifyRequest) => ({ method: req.method, url: String(req.url).replace(/([?&](?:token|code|otp)=)[^&]*/gi, '$1[redacted]').replace(/(\/sandbox\/portal\/)[^/]+/, '$1[redacted]'), reqId: req.id, remoteAddress: req.ip }),
    },
  };
}

/**
 * One line per answer instead of Fastify's two (`incoming request` + `request completed`): the
 * completion line carries the request (method, redacted url, reqId, address) as well, so nothing is
 * lost but a line for a request that never answers (its error, when it fails, is logged as before).
 * Each line costs its JSON, its redaction pass and its write: two per request were ~7 % of a cached
 * list request's CPU.
 */
export class OneLinePerRequest extends LogController {
  override incomingRequest(): void {
    // The completion line says it all (see above).
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) reply.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
    else reply.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}

/** pino's numeric levels from which a line is written out at once (error, fatal). */
const FLUSHED_LEVEL = /^\{"level":(?:[5-9]\d|\d{3,})\b/;
/** Pending bytes past which the batch is written without waiting for the end of the turn. */
const MAX_PENDING = 64 * 1024;

/**
 * The process's log destination (stdout), batched: the lines logged during one turn of the event
 * loop are written together by one write at its end (setImmediate) instead of one blocking write
 * per line (those were ~3-5 % of a request's CPU under load). An error or fatal line is
 * written, with everything before it, before the call that logged it returns, and the batch is
 * written on exit (process.exit and a crash included). Writes stay synchronous and in order: an
 * asynchronous destination (pino's `sync: false`) could only flush an error line ahead of the
 * lines still in flight, out of order. At most one turn's info lines are lost if the process is
 * killed outright (SIGKILL, OOM).
 */
export function batchedLogDestination(fd = 1): { write(line: string): void; flushSync(): void } {
  // sonic-boom, synchronous: it retries a full pipe (EAGAIN) as pino's default destination does.
  const dest = pino.destination({ dest: fd, sync: true });
  let pending = '';
  let scheduled = false;
  const flushSync = () => {
    if (pending === '') return;
    const batch = pending;
    pending = '';
    dest.write(batch);
  };
  const endOfTurn = () => {
    scheduled = false;
    flushSync();
  };
  process.once('exit', flushSync);
  return {
    write(line: string) {
      pending += line;
      if (FLUSHED_LEVEL.test(line) || pending.length > MAX_PENDING) flushSync();
      else if (!scheduled) {
        scheduled = true;
        setImmediate(endOfTurn);
      }
    },
    flushSync,
  };
}
