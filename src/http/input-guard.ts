// One rule for every route: text containing U+0000 is refused with a field-keyed 400 before it
// reaches validation or the database (PostgreSQL cannot store NUL in text or jsonb).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { fieldErrors, type FieldErrors } from './errors.ts';

const NUL_MESSAGE = 'Null characters are not allowed.';
const MAX_DEPTH = 64;

/** Field paths (dot-joined, as validation errors name them) whose key or text contains U+0000. */
function nulFields(value: unknown, path: string[] = [], found: string[] = [], depth = 0): string[] {
  if (typeof value === 'string') {
    if (value.includes('\u0000')) found.push(path.join('.') || 'non_field_errors');
  } else if (value !== null && typeof value === 'object' && depth < MAX_DEPTH && !Buffer.isBuffer(value)) {
    for (const [key, child] of Object.entries(value)) {
      if (key.includes('\u0000')) found.push(path.join('.') || 'non_field_errors');
      else nulFields(child, [...path, key], found, depth + 1);
    }
  }
  return found;
}

function check(request: FastifyRequest) {
  const errors = Object.create(null) as FieldErrors;
  for (const part of [request.params, request.query, request.body]) {
    for (const field of nulFields(part)) errors[field] = [NUL_MESSAGE];
  }
  if (Object.keys(errors).length > 0) throw fieldErrors(errors);
}

export function installInputGuard(app: FastifyInstance) {
  // preValidation: after authentication (onRequest) and body parsing, before the schemas.
  app.addHook('preValidation', (request, _reply, done) => {
    check(request);
    done();
  });
}

/** For bodies read inside a handler (multipart): the same rule, for one named field. */
export function refuseNul(field: string, value: string | undefined) {
  if (value?.includes('\u0000')) throw fieldErrors({ [field]: [NUL_MESSAGE] });
}
