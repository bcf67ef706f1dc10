// Response serialisation (issue 11). In development and tests every response is validated against
// its zod schema before it is written (fastify-type-provider-zod's serializer: a drifted response
// fails loudly there). In production that validation cost ~16 % of the CPU of a list request, so
// responses are written by fast-json-stringify from the same schema converted to JSON Schema: the
// same keys in the same order, extra keys dropped, the same bytes (test/serialisation.test.ts
// compares both modes route by route).
import type { FastifySerializerCompiler } from 'fastify/types/schema.js';
import fastJson from 'fast-json-stringify';
import { serializerCompiler as zodSerializerCompiler } from 'fastify-type-provider-zod';
import { z } from 'zod';

export type ResponseSerialisation = 'validate' | 'schema';

/** `schema` in production, `validate` everywhere else. */
export const defaultSerialisation = (nodeEnv: string | undefined): ResponseSerialisation => (nodeEnv === 'production' ? 'schema' : 'validate');

type RouteSchema = Parameters<FastifySerializerCompiler<unknown>>[0];

/** A writer from the route's zod schema: JSON Schema -> fast-json-stringify, built on first use. */
function schemaWriter(route: RouteSchema): (data: unknown) => string {
  const schema = route.schema;
  const fallback = zodSerializerCompiler(route as Parameters<typeof zodSerializerCompiler>[0]);
  if (!(schema instanceof z.ZodType)) return fallback;
  // Built lazily: converting and compiling every route's schemas up front would add about a second
  // to start-up for routes that may never answer.
  let write: ((data: unknown) => string) | undefined;
  return (data) => {
    if (!write) {
      try {
        const json = z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any', target: 'draft-7' });
        write = fastJson(json as fastJson.Schema);
      } catch {
        // A schema JSON Schema cannot express keeps the validating writer.
        write = fallback;
      }
    }
    return write(data);
  };
}

export function responseSerializerCompiler(mode: ResponseSerialisation): FastifySerializerCompiler<unknown> {
  if (mode === 'validate') return zodSerializerCompiler as FastifySerializerCompiler<unknown>;
  return (route) => schemaWriter(route);
}
