// A jsonb list the service writes itself (an order's items, a payment's refunds) comes back from the
// driver as `unknown`. Readers parse it element by element: an element that does not parse (a row
// edited by hand, an older shape) is left out instead of failing the whole read, and counted so that
// a caller with a logger can report it by row id and count only (these lists can hold health data,
// such as an order's treatment and dosage).
import type { z } from 'zod';

export interface ParsedList<T> {
  items: T[];
  /** Elements that did not parse, left out of `items`. */
  skipped: number;
}

/** The elements of `value` that parse with `schema`; no list at all reads as an empty one. */
export function parseList<T>(schema: z.ZodType<T>, value: unknown): ParsedList<T> {
  if (!Array.isArray(value)) return { items: [], skipped: 0 };
  const items: T[] = [];
  for (const element of value) {
    const parsed = schema.safeParse(element);
    if (parsed.success) items.push(parsed.data);
  }
  return { items, skipped: value.length - items.length };
}
