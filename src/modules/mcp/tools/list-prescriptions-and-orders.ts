import { countPrescriptions, listOrders, pagePrescriptions, toPrescription } from '../../fulfilment/index.ts';
import * as s from '../schemas.ts';
import { tool, paging } from './tool.ts';

export const listPrescriptionsAndOrdersTool = tool({
  name: 'list_prescriptions_and_orders',
  title: 'Prescriptions and orders',
  description: 'Prescriptions issued by the patient’s doctors and the pharmacy orders with their shipping status, newest first.',
  scope: 'patient:read',
  input: s.PageInput,
  output: s.PrescriptionsOrdersOut,
  readOnly: true,
  async run({ deps, auth }, args) {
    const { limit, offset } = paging(args);
    const base = deps.config.PUBLIC_BASE_URL;
    const [count, rows, orders] = await Promise.all([
      countPrescriptions(deps.db, auth.userId),
      pagePrescriptions(deps.db, auth.userId, limit, offset),
      listOrders(deps.db, auth.userId),
    ]);
    const prescriptions = rows.map((row) => {
      const p = toPrescription(row, base);
      return {
        id: p.id,
        consultation_id: p.consultation_id,
        category: p.category,
        treatment_name: p.treatment_name,
        dosage: p.dosage,
        instructions: p.instructions,
        supply_days: p.supply_days,
        issued_at: p.issued_at,
        valid_until: p.valid_until,
        doctor: { first_name: p.doctor.first_name, last_name: p.doctor.last_name },
      };
    });
    const orderList = orders.map((o) => ({
      id: o.id,
      status: o.status,
      consultation_id: o.consultation_id,
      prescription_id: o.prescription_id,
      items: o.items.map((i) => ({ name: i.name, dosage: i.dosage, quantity: i.quantity, supply_days: i.supply_days })),
      carrier: o.carrier,
      tracking_number: o.tracking_number,
      tracking_url: o.tracking_url,
      shipped_at: o.shipped_at,
      delivered_at: o.delivered_at,
      created_at: o.created_at,
    }));
    return { data: { prescriptions: { count, results: prescriptions }, orders: orderList }, text: `${count} prescription(s), ${orderList.length} order(s).` };
  },
});
