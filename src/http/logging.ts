// pino options: request logs carry method, path and status, never bodies; secrets are redacted
// wherever they could appear (headers, and any logged object with these keys). Error codes stay
// readable (no `*.code` rule). A database error is logged by its SQLSTATE code, constraint and
// statement label only: its message and detail can quote the values a statement carried.
import type { FastifyServerOptions } from 'fastify';
import pino from 'pino';

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
      err: (err: any) => {
        const serialised = pino.stdSerializers.err(err);
        if (typeof err?.statement !== 'string') return serialised;
        const frames = String(serialised.stack ?? '').split('\n').slice(1).join('\n');
        return { type: serialised.type, message: `database error ${String(err.code ?? '')}`, code: err.code, constraint: err.constraint, statement: err.statement, stack: frames };
      },
      req: (req: any) => ({ method: req.method, url: String(req.url).replace(/([?&](?:token|code|otp)=)[^&]*/gi, '$1[redacted]').replace(/(\/sandbox\/portal\/)[^/]+/, '$1[redacted]'), reqId: req.id, remoteAddress: req.ip }),
    },
  };
}
