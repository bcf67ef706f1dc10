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
 * list request's CPU (issue 28).
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

/**
 * The process's log destination (stdout): written asynchronously, so a burst of lines becomes one
 * write off the event loop instead of a blocking write per line (a synchronous write per line was
 * ~3-5 % of a request's CPU). Info lines may be lost if the process is killed outright (SIGKILL, OOM);
 * an error or fatal line is written synchronously before the call that logged it returns, and pino
 * flushes the rest on a normal exit (process.exit included).
 */
export function asyncLogDestination(fd = 1): { write(line: string): void; flushSync(): void } {
  const dest = pino.destination({ dest: fd, sync: false });
  return {
    write(line: string) {
      dest.write(line);
      if (FLUSHED_LEVEL.test(line)) flushNow(dest);
    },
    flushSync: () => flushNow(dest),
  };
}

function flushNow(dest: ReturnType<typeof pino.destination>): void {
  try {
    dest.flushSync();
  } catch {
    // Not open yet (the first milliseconds of the process): the asynchronous write goes out anyway.
  }
}
