// Limit/offset pagination with DRF LimitOffsetPagination's semantics: absolute next/previous links,
// null at the ends, invalid limit/offset fall back to the defaults, `page_size` ignored.
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

/** Query parameters of every paginated list (strings, so that a bad value falls back, not 400s). */
export const PageQuery = z.object({
  limit: z.string().optional().meta({ description: `Page size, 1 to ${MAX_PAGE_SIZE} (default ${DEFAULT_PAGE_SIZE}); an invalid value falls back to the default` }),
  offset: z.string().optional().meta({ description: 'Index of the first result (default 0); an invalid value falls back to 0' }),
  ordering: z.string().optional().meta({ description: 'Sort field, `-` prefix for descending; unknown values fall back to the default order' }),
});

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

/** An ORDER BY clause from an `ordering` value and a whitelist; the default when unknown. */
export function orderBy(query: Record<string, unknown>, allowed: Record<string, string>, fallback: string): string {
  const raw = typeof query.ordering === 'string' ? query.ordering.trim() : '';
  const desc = raw.startsWith('-');
  const key = desc ? raw.slice(1) : raw;
  // Own keys only: `constructor`, `__proto__` or `toString` must not find Object.prototype's members.
  const column = Object.hasOwn(allowed, key) ? allowed[key] : undefined;
  return column ? `${column} ${desc ? 'desc' : 'asc'}, id ${desc ? 'desc' : 'asc'}` : fallback;
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
