// PDF documents: the invoice of a payment and a prescription, with pdfkit (standard fonts only).
//
// VAT treatment: the service sells a medical consultation by a registered doctor together with the
// prescribed treatment as one supply of medical care. Medical care provided by members of the
// medical professions is exempt from VAT under Article 132(1)(c) of Council Directive
// 2006/112/EC (in Germany § 4 Nr. 14 UStG), so invoices show VAT 0 % with that exemption note.
// See docs/billing.md.
import PDFDocument from 'pdfkit';

export const SELLER = {
  name: 'Patient Treatment Service GmbH',
  address: ['Musterstraße 1', '10115 Berlin', 'Germany'],
  vat_id: 'DE000000000',
  email: 'billing@example.org',
};

export const VAT_NOTE =
  'VAT exempt: medical care by members of the medical professions, Art. 132(1)(c) Council Directive 2006/112/EC (§ 4 Nr. 14 UStG).';

const money = (cents: number, currency: string) => `${(cents / 100).toFixed(2)} ${currency}`;

function render(build: (doc: PDFKit.PDFDocument) => void, title: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument({ size: 'A4', margin: 50, info: { Title: title, Author: SELLER.name } });
    const chunks: Buffer[] = [];
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    build(doc);
    doc.end();
  });
}

export interface InvoiceData {
  number: string;
  issuedAt: Date;
  patient: { name: string; email: string; address: string[] };
  payment: { id: string; provider: string; provider_payment_id: string; status: string; captured_at: Date | null; description: string; amount_cents: number; refunded_amount_cents: number; currency: string; is_recurring: boolean };
  refunds: { id: string; amount_cents: number; created_at: string }[];
}

export function invoicePdf(d: InvoiceData): Promise<Buffer> {
  return render((doc) => {
    doc.fontSize(20).text('Invoice', { align: 'right' });
    doc.fontSize(10).text(`Invoice number: ${d.number}`, { align: 'right' });
    doc.text(`Date: ${d.issuedAt.toISOString().slice(0, 10)}`, { align: 'right' });
    doc.moveDown();
    doc.fontSize(11).text(SELLER.name);
    doc.fontSize(9);
    for (const l of SELLER.address) doc.text(l);
    doc.text(`VAT ID: ${SELLER.vat_id}`);
    doc.text(SELLER.email);
    doc.moveDown();
    doc.fontSize(10).text('Billed to:');
    doc.text(d.patient.name || d.patient.email);
    for (const l of d.patient.address) doc.text(l);
    doc.text(d.patient.email);
    doc.moveDown(1.5);
    doc.fontSize(10).text('Description', 50, doc.y, { continued: false });
    const y = doc.y;
    doc.moveTo(50, y).lineTo(545, y).stroke();
    doc.moveDown(0.5);
    doc.text(`1 x ${d.payment.description || 'Medical consultation'}`, 50, doc.y, { width: 360 });
    doc.text(money(d.payment.amount_cents, d.payment.currency), 420, doc.y - 12, { width: 125, align: 'right' });
    doc.moveDown();
    doc.text(`Net amount: ${money(d.payment.amount_cents, d.payment.currency)}`, 50, doc.y, { align: 'right', width: 495 });
    doc.text(`VAT 0 %: ${money(0, d.payment.currency)}`, { align: 'right', width: 495 });
    doc.fontSize(11).text(`Total: ${money(d.payment.amount_cents, d.payment.currency)}`, { align: 'right', width: 495 });
    doc.fontSize(9).moveDown(0.5).text(VAT_NOTE, 50, doc.y, { width: 495 });
    doc.moveDown();
    if (d.refunds.length) {
      doc.fontSize(10).text('Refunds');
      for (const r of d.refunds) doc.fontSize(9).text(`${r.created_at.slice(0, 10)}  ${r.id}  -${money(r.amount_cents, d.payment.currency)}`);
      doc.fontSize(10).text(`Amount after refunds: ${money(d.payment.amount_cents - d.payment.refunded_amount_cents, d.payment.currency)}`);
      doc.moveDown();
    }
    doc.fontSize(9).text(
      d.payment.status === 'failed'
        ? 'This charge failed and was not collected.'
        : `Paid${d.payment.captured_at ? ` on ${d.payment.captured_at.toISOString().slice(0, 10)}` : ''} by card through ${d.payment.provider} (reference ${d.payment.provider_payment_id}).${d.payment.is_recurring ? ' Recurring plan charge.' : ''}`,
    );
  }, `Invoice ${d.number}`);
}

export interface PrescriptionData {
  id: string;
  issuedAt: Date;
  validUntil: Date | null;
  patient: { name: string; date_of_birth: string | null; email: string };
  doctor: { name: string; license: string | null };
  treatment_name: string;
  dosage: string;
  supply_days: number | null;
  instructions: string;
}

export function prescriptionPdf(d: PrescriptionData): Promise<Buffer> {
  return render((doc) => {
    doc.fontSize(20).text('Prescription');
    doc.fontSize(9).text(`Reference: ${d.id}`);
    doc.text(`Issued: ${d.issuedAt.toISOString().slice(0, 10)}${d.validUntil ? `   Valid until: ${d.validUntil.toISOString().slice(0, 10)}` : ''}`);
    doc.moveDown();
    doc.fontSize(11).text('Patient');
    doc.fontSize(10).text(d.patient.name || d.patient.email);
    if (d.patient.date_of_birth) doc.text(`Date of birth: ${d.patient.date_of_birth}`);
    doc.moveDown();
    doc.fontSize(11).text('Medication');
    doc.fontSize(10).text(`${d.treatment_name}${d.dosage ? `, ${d.dosage}` : ''}`);
    if (d.supply_days) doc.text(`Supply: ${d.supply_days} days`);
    if (d.instructions) doc.text(`Instructions: ${d.instructions}`);
    doc.moveDown();
    doc.fontSize(11).text('Prescriber');
    doc.fontSize(10).text(d.doctor.name);
    if (d.doctor.license) doc.text(`Licence number: ${d.doctor.license}`);
    doc.moveDown();
    doc.fontSize(9).text(`${SELLER.name}, ${SELLER.address.join(', ')}`);
  }, `Prescription ${d.id}`);
}
