// Response serialisation. In development and tests every response is validated against
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

type JsonSchema = { [key: string]: unknown };
const isSchema = (v: unknown): v is JsonSchema => typeof v === 'object' && v !== null && !Array.isArray(v);
const PRIMITIVES = new Set(['string', 'number', 'integer', 'boolean', 'null']);

/**
 * The JSON Schema as fast-json-stringify should see it. A union (anyOf/oneOf) makes it run an ajv
 * validation of the value against each branch to pick one (for `decided_at` that is a date-time
 * regex, for `doctor` a whole object with uuid formats) on every value of every response: a
 * third of its time on the list. Two shapes of union need no choice and are rewritten:
 *   X | null                  -> X with `nullable: true` (null written as null, anything else as X)
 *   primitive | primitive ... -> `type: [...]` (picked by typeof)
 * Other unions stay as they are. The written bytes do not change (test/serialisation.test.ts).
 */
export function forSerialisation(root: unknown): unknown {
  const definitions = isSchema(root) && isSchema(root.definitions) ? root.definitions : {};
  // A branch that is only a local reference is read through it (fast-json-stringify follows a
  // $ref and would drop a `nullable` beside it).
  const inlining = new Set<string>();
  const deref = (b: JsonSchema): JsonSchema => {
    const ref = typeof b.$ref === 'string' && Object.keys(b).length === 1 ? /^#\/definitions\/(.+)$/.exec(b.$ref)?.[1] : undefined;
    const target = ref === undefined ? undefined : definitions[ref];
    // A recursive definition stays a reference (and its union a union).
    if (ref === undefined || !isSchema(target) || inlining.has(ref)) return b;
    inlining.add(ref);
    const inlined = rewrite(target) as JsonSchema;
    inlining.delete(ref);
    return inlined;
  };
  function rewrite(schema: unknown): unknown {
    if (Array.isArray(schema)) return schema.map(rewrite);
    if (!isSchema(schema)) return schema;
    const out: JsonSchema = {};
    for (const [k, v] of Object.entries(schema)) out[k] = k === 'enum' || k === 'const' || k === 'required' ? v : rewrite(v);
    const union = out.anyOf ?? out.oneOf;
    if (!Array.isArray(union) || union.length < 2 || !union.every(isSchema)) return out;
    const branches = union.map(deref);
    const { anyOf: _a, oneOf: _o, ...rest } = out;
    const isNull = (b: JsonSchema) => b.type === 'null' && Object.keys(b).length === 1;
    const others = branches.filter((b) => !isNull(b));
    if (others.length === 1 && branches.length === 2 && typeof others[0]!.type === 'string' && others[0]!.nullable === undefined) {
      return { ...rest, ...others[0], nullable: true };
    }
    const simple = (b: JsonSchema) => typeof b.type === 'string' && PRIMITIVES.has(b.type) && Object.keys(b).every((k) => k === 'type' || k === 'description');
    if (branches.every(simple)) return { ...rest, type: [...new Set(branches.map((b) => b.type as string))] };
    return out;
  }
  return rewrite(root);
}

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
        write = fastJson(forSerialisation(json) as fastJson.Schema);
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
