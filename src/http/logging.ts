// pino options: request logs carry method, path and status, never bodies; secrets are redacted
// wherever they could appear (headers, and any logged object with these keys). Error codes stay
// readable (no `*.code` rule). A database error is logged by its SQLSTATE code, constraint and
// statement label only: its message and detail can quote the values a statement carried.
import type { FastifyRequest, FastifyServerOptions } from 'fastify';
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
