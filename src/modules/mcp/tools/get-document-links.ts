import { pagePrescriptions, toPrescription } from '../../fulfilment/index.ts';
import { pagePayments, paymentOrder } from '../../payments/index.ts';
import { appLinks } from '../../../mail/links.ts';
import * as s from '../schemas.ts';
import { tool, paging } from './tool.ts';

export const getDocumentLinksTool = tool({
  name: 'get_document_links',
  title: 'Invoice and prescription downloads',
  description:
    'Where the patient downloads their invoices and prescriptions (PDF): the app page to open signed in, and the API address (it needs the patient’s own app session, not this connector’s token). Newest first.',
  scope: 'patient:read',
  input: s.PageInput,
  output: s.DocumentLinksOut,
  readOnly: true,
  async run({ deps, auth }, args) {
    const { limit, offset } = paging(args);
    const base = deps.config.PUBLIC_BASE_URL;
    const [payments, prescriptions] = await Promise.all([
      pagePayments(deps.db, auth.userId, paymentOrder(undefined), limit, offset),
      pagePrescriptions(deps.db, auth.userId, limit, offset),
    ]);
    const invoices = payments
      .filter((p) => p.status !== 'pending' && p.status !== 'failed')
      .map((p) => ({ payment_id: p.id, description: p.description, api_url: `${base}/v1/users/payments/${p.id}/invoice/`, page_url: appLinks.payments(deps.config) }));
    const rx = prescriptions.map((row) => {
      const p = toPrescription(row, base);
      return { prescription_id: p.id, treatment_name: p.treatment_name, api_url: p.pdf_url, page_url: appLinks.prescriptions(deps.config) };
    });
    return {
      data: { note: 'Open the page signed in to download; the connector does not hand out the files.', invoices, prescriptions: rx },
      text: `${invoices.length} invoice(s) and ${rx.length} prescription(s) to download from ${appLinks.payments(deps.config)} and ${appLinks.prescriptions(deps.config)}.`,
    };
  },
});
