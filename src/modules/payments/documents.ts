// The invoice of a payment as a file (PDF), for its download route and the data export's zip.
import type { Config } from '../../config.ts';
import type { Queryable } from '../../db/index.ts';
import { invoiceDataFrom, invoicePdf, sellerFrom } from '../../lib/pdf.ts';
import { paymentForInvoice } from './repository.ts';

/** The account's invoice for one of its payments (null: no such payment of this account). */
export async function invoiceFile(q: Queryable, config: Config, userId: string, paymentId: string): Promise<{ name: string; data: Buffer } | null> {
  const p = await paymentForInvoice(q, userId, paymentId);
  if (!p) return null;
  const data = invoiceDataFrom(p, sellerFrom(config));
  return { name: `invoice-${data.number.replace(/[^A-Za-z0-9-]/g, '')}.pdf`, data: await invoicePdf(data) };
}
