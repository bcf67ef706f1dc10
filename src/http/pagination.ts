// Limit/offset pagination with DRF LimitOffsetPagination's semantics: absolute next/previous links,
// null at the ends, invalid limit/offset fall back to the defaults, `page_size` ignored.
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { fieldErrors } from './errors.ts';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

/** Query parameters of every paginated list (strings, so that a bad value falls back, not 400s). */
export const PageQuery = z.object({
  limit: z.string().optional().meta({ description: `Page size, 1 to ${MAX_PAGE_SIZE} (default ${DEFAULT_PAGE_SIZE}); an invalid value falls back to the default` }),
  offset: z.string().optional().meta({ description: 'Index of the first result (default 0); an invalid value falls back to 0' }),
});

/** An `ordering` value: a field, or `-field` for descending. */
export type OrderValue<F extends string> = F | `-${F}`;

/** The order a list was asked for: one of its whitelisted fields and a direction (the id breaks ties the same way). */
export interface Order<F extends string> {
  field: F;
  direction: 'asc' | 'desc';
}

/** A list's ordering whitelist: its fields (always with `created_at`) and its default. */
export interface ListOrdering<F extends string> {
  fields: readonly F[];
  fallback: OrderValue<F>;
  values: readonly string[];
  /** PageQuery with `ordering` restricted to this list's values (published as an enum in the document). */
  query: ReturnType<typeof orderingQuery>;
}

function orderingQuery(values: readonly string[], defaultText: string) {
  const message = `Select a valid choice. Use one of: ${values.join(', ')}.`;
  return PageQuery.extend({
    ordering: z
      .enum(values as [string, ...string[]], { error: () => message })
      .optional()
      .meta({ description: `Sort field, \`-\` prefix for descending (default ${defaultText}); ties are broken by the id in the same direction. Any other value: 400 \`{ordering: [...]}\`.` }),
  });
}

/**
 * Declares a list's ordering: `created_at` plus its own fields, and its default order. A desk whose
 * default is not one field (urgent first, flagged first...) names it in `defaultText` and reads the
 * asked order with explicitOrder (undefined when none was asked).
 */
export function listOrdering<const F extends string>(fields: readonly F[], fallback: OrderValue<F | 'created_at'>, defaultText?: string): ListOrdering<F | 'created_at'> {
  const all: (F | 'created_at')[] = ['created_at', ...fields.filter((f) => f !== 'created_at')];
  const values = all.flatMap((f) => [f, `-${f}`]);
  return { fields: all, fallback, values, query: orderingQuery(values, defaultText ?? `\`${fallback}\``) };
}

/**
 * The order of a list from `?ordering=`, checked against the list's whitelist (own fields only:
 * `constructor` or `__proto__` are unknown). Absent: the list's default. Anything else: 400
 * `{ordering: [...]}` (the route's query schema refuses it first; this is the same rule for callers
 * that read a raw query).
 */
export function orderBy<F extends string>(query: Record<string, unknown>, list: ListOrdering<F>): Order<F> {
  const value = query.ordering === undefined ? list.fallback : query.ordering;
  const desc = typeof value === 'string' && value.startsWith('-');
  const key = typeof value === 'string' ? (desc ? value.slice(1) : value) : undefined;
  const field = list.fields.find((f) => f === key);
  if (field === undefined) {
    throw fieldErrors({ ordering: [`Select a valid choice. Use one of: ${list.values.join(', ')}.`] });
  }
  return { field, direction: desc ? 'desc' : 'asc' };
}

export interface PageParams {
  limit: number;
  offset: number;
}

function positiveInt(raw: unknown): number | undefined {
  if (typeof raw !== 'string' || !/^\d+$/.test(raw)) return undefined;
  const n = Number(raw);
  return Number.isSafeInteger(n) ? n : undefined;
}

export function pageParams(query: Record<string, unknown>): PageParams {
  const limitRaw = positiveInt(query.limit);
  const limit = limitRaw === undefined || limitRaw === 0 ? DEFAULT_PAGE_SIZE : Math.min(limitRaw, MAX_PAGE_SIZE);
  const offset = positiveInt(query.offset) ?? 0;
  return { limit, offset };
}

/** The order asked with `?ordering=` (checked like orderBy), or undefined when none was asked: the list's own default then applies. */
export function explicitOrder<F extends string>(query: Record<string, unknown>, list: ListOrdering<F>): Order<F> | undefined {
  return query.ordering === undefined ? undefined : orderBy(query, list);
}

export interface Page<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

export function pageEnvelope<T>(request: FastifyRequest, baseUrl: string, params: PageParams, count: number, results: T[]): Page<T> {
  const url = new URL(request.url, baseUrl + '/');
  const link = (offset: number | null) => {
    const u = new URL(baseUrl + url.pathname);
    url.searchParams.forEach((v, k) => u.searchParams.set(k, v));
    u.searchParams.set('limit', String(params.limit));
    if (offset === null) u.searchParams.delete('offset');
    else u.searchParams.set('offset', String(offset));
    return u.toString();
  };
  const next = params.offset + params.limit < count ? link(params.offset + params.limit) : null;
  let previous: string | null = null;
  if (params.offset > 0) previous = params.offset - params.limit <= 0 ? link(null) : link(Math.min(params.offset, count) - params.limit);
  return { count, next, previous, results };
}

/** Answers a list route: reads limit/offset, fetches that page, and wraps it in the envelope. */
export async function respondPage<T>(
  request: FastifyRequest,
  baseUrl: string,
  fetch: (params: PageParams) => Promise<{ count: number; results: T[] }>,
): Promise<Page<T>> {
  const params = pageParams(request.query as Record<string, unknown>);
  const { count, results } = await fetch(params);
  return pageEnvelope(request, baseUrl, params, count, results);
}

export const pageSchema = <T extends z.ZodType>(item: T) =>
  z.object({
    count: z.number().int(),
    next: z.string().nullable(),
    previous: z.string().nullable(),
    results: z.array(item),
  });
