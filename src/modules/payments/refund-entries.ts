// The refunds kept in a payment's `refund` column (jsonb): one shape, read by the next refund
// (refunds.ts) and by the invoice (repository.ts), and answered in the payment's `refund.refunds`
// (schemas.ts). A file of its own: the repository reads it without loading schemas.ts, whose
// evaluation order fixes the order of the OpenAPI document's components.
import { z } from 'zod';
import { parseList, type ParsedList } from '../../lib/json-list.ts';

/** One refund of a payment, as recordRefund writes it. */
export const RefundEntrySchema = z.object({ id: z.string(), amount_cents: z.number().int(), status: z.string(), reason: z.string(), created_at: z.iso.datetime({ offset: true }) });
export type RefundEntry = z.infer<typeof RefundEntrySchema>;

/** Every refund kept in a payment's `refund` column that parses (none when the column is empty). */
export const storedRefunds = (refund: unknown): ParsedList<RefundEntry> =>
  parseList(RefundEntrySchema, typeof refund === 'object' && refund !== null && 'refunds' in refund ? refund.refunds : undefined);
