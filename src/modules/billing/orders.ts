// Orders: what the pharmacy ships after a doctor approves. The item shape is ours (spec 2.11 leaves
// it open) and is shared by GET /v1/users/orders/ and the profile's `orders` field.
import { z } from 'zod';
import type { Queryable } from '../../db/index.ts';
import { iso } from '../../lib/iso.ts';

export const OrderItemSchema = z.object({
  treatment_id: z.string(),
  name: z.string(),
  dosage: z.string(),
  quantity: z.number().int(),
  supply_days: z.number().int().nullable(),
});

export const OrderSchema = z
  .object({
    id: z.uuid(),
    status: z.enum(['awaiting_fulfilment', 'shipped', 'delivered', 'cancelled']),
    consultation_id: z.uuid().nullable(),
    prescription_id: z.uuid().nullable(),
    items: z.array(OrderItemSchema),
    shipping_address: z.record(z.string(), z.unknown()).nullable(),
    carrier: z.string().nullable(),
    tracking_number: z.string().nullable(),
    tracking_url: z.string().nullable(),
    shipped_at: z.iso.datetime({ offset: true }).nullable(),
    delivered_at: z.iso.datetime({ offset: true }).nullable(),
    created_at: z.iso.datetime({ offset: true }),
    updated_at: z.iso.datetime({ offset: true }),
  })
  .meta({ id: 'Order' });

export type Order = z.infer<typeof OrderSchema>;


export function toOrder(row: any): Order {
  return {
    id: row.id,
    status: row.status,
    consultation_id: row.consultation_id,
    prescription_id: row.prescription_id,
    items: row.items ?? [],
    shipping_address: row.shipping_address ?? null,
    carrier: row.carrier,
    tracking_number: row.tracking_number,
    tracking_url: row.tracking_url,
    shipped_at: iso(row.shipped_at),
    delivered_at: iso(row.delivered_at),
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  };
}

/** The account's orders, newest first. */
export async function listOrders(q: Queryable, userId: string): Promise<Order[]> {
  const rows = await q.query('select * from orders where user_id = $1 order by created_at desc, id desc', [userId]);
  return rows.map(toOrder);
}
