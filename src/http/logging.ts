// pino options: request logs carry method, path and status, never bodies; secrets are redacted
// wherever they could appear (headers, and any logged object with these keys).
import type { FastifyServerOptions } from 'fastify';

export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'headers.authorization',
  '*.password',
  '*.new_password',
  '*.otp',
  '*.code',
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
      req: (req: any) => ({ method: req.method, url: String(req.url).replace(/([?&](?:token|code|otp)=)[^&]*/gi, '$1[redacted]').replace(/(\/sandbox\/portal\/)[^/]+/, '$1[redacted]'), reqId: req.id, remoteAddress: req.ip }),
    },
  };
}
