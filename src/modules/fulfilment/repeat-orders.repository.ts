// The patient's repeat orders (docs/prescriptions.md, "Repeats"): the prescription as a repeat
// needs it and the order a paid repeat checkout opens. Account-scoped: another account's
// prescription is not found.
import type { Queryable } from '../../db/index.ts';
import { sql, sqlOf } from '../../db/kysely.ts';
import { forAccount } from '../../db/scope.ts';

/** The account's prescription with its consultation's plan and its orders' state; locked with `lock` (a repeat's checkout and finalisation). */
export async function prescriptionForRepeatOf(q: Queryable, userId: string, id: string, lock: boolean) {
  let query = forAccount(q, userId)
    .selectFrom('prescriptions as r')
    .innerJoin('consultations as c', 'c.id', 'r.consultation_id')
    .select(['r.id', 'r.status', 'r.repeats', 'r.repeat_interval_days', 'r.valid_until', 'r.category', 'r.treatment_id', 'r.treatment_name', 'r.dosage', 'r.supply_days', 'r.consultation_id', 'c.plan', 'c.subscription_id'])
    .where('r.id', '=', id);
  if (lock) query = query.forUpdate('r');
  return (await query.executeTakeFirst()) ?? null;
}

/** The prescription's order still waiting for the pharmacy's dispensing (null: none). */
export async function openOrderOfPrescriptionOf(q: Queryable, userId: string, prescriptionId: string): Promise<string | null> {
  const row = await forAccount(q, userId)
    .selectFrom('orders')
    .select('id')
    .where('prescription_id', '=', prescriptionId)
    .where('status', '=', 'awaiting_fulfilment')
    .where('dispensed_at', 'is', null)
    .orderBy('created_at')
    .executeTakeFirst();
  return row?.id ?? null;
}

/** How many distinct orders of the prescription were dispensed (the supplies used). */
export async function dispensedOrdersOf(q: Queryable, userId: string, prescriptionId: string): Promise<number> {
  const row = await forAccount(q, userId)
    .selectFrom('prescriptions as r')
    .select(sql<number>`(select count(distinct pd.order_id)::int from prescription_dispensings pd where pd.prescription_id = r.id)`.as('n'))
    .where('r.id', '=', prescriptionId)
    .executeTakeFirst();
  return row?.n ?? 0;
}

/** The prescription's latest order (what a repeat ships: the same item, address and collection pharmacy). */
export async function latestOrderOfPrescriptionOf(q: Queryable, userId: string, prescriptionId: string) {
  return (
    (await forAccount(q, userId)
      .selectFrom('orders')
      .select(['items', 'shipping_address', 'collection_pharmacy_id'])
      .where('prescription_id', '=', prescriptionId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .executeTakeFirst()) ?? null
  );
}

/** Opens a repeat order, bound to the checkout session that paid it (unique: once per session). */
export async function insertRepeatOrder(
  q: Queryable,
  o: { userId: string; consultationId: string; prescriptionId: string; checkoutSessionId: string; items: unknown; shippingAddress: unknown; collectionPharmacyId: string | null; at: Date },
): Promise<{ id: string }> {
  return sqlOf(q)
    .insertInto('orders')
    .values({
      user_id: o.userId,
      consultation_id: o.consultationId,
      prescription_id: o.prescriptionId,
      checkout_session_id: o.checkoutSessionId,
      status: 'awaiting_fulfilment',
      items: JSON.stringify(o.items ?? []),
      shipping_address: o.shippingAddress == null ? null : JSON.stringify(o.shippingAddress),
      collection_pharmacy_id: o.collectionPharmacyId,
      created_at: o.at,
      updated_at: o.at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
}
