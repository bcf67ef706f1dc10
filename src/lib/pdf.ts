// PDF documents: the invoice of a payment and a prescription, with pdfkit.
//
// Fonts: pdfkit's built-in Helvetica only encodes WinAnsi (Western European), so Polish, Czech,
// Hungarian, Romanian, Greek and Cyrillic names came out as garbage. Every document embeds Noto Sans
// (SIL Open Font License 1.1; Latin incl. Extended-A/B, Greek, Cyrillic) from the npm package
// @expo-google-fonts/noto-sans. pdfkit subsets it (only the glyphs used) and writes a ToUnicode map,
// so the text can be searched and copied. The font files are resolved through the package (not a
// path relative to this file), so a build in dist/ finds them too.
//
// VAT treatment: the service sells a medical consultation by a registered doctor together with the
// prescribed treatment as one supply of medical care. Medical care provided by members of the
// medical professions is exempt from VAT under Article 132(1)(c) of Council Directive
// 2006/112/EC (in Germany § 4 Nr. 14 UStG), so invoices show VAT 0 % with that exemption note.
// See docs/billing.md.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Config } from '../config.ts';
import { countryByCode } from './countries.ts';

const require = createRequire(import.meta.url);
/** Absolute paths of the embedded fonts (regular and bold). */
export const FONT_FILES = {
  regular: require.resolve('@expo-google-fonts/noto-sans/400Regular/NotoSans_400Regular.ttf'),
  bold: require.resolve('@expo-google-fonts/noto-sans/700Bold/NotoSans_700Bold.ttf'),
};
// The bytes are read once; each document parses them itself. (A parsed fontkit font shared between
// documents corrupts the text map of later documents: test/documents.test.ts catches that.)
let fontBytes: { regular: Buffer; bold: Buffer } | undefined;
const fonts = () => (fontBytes ??= { regular: readFileSync(FONT_FILES.regular), bold: readFileSync(FONT_FILES.bold) });

export interface Seller {
  name: string;
  address: string[];
  vat_id: string;
  /** Country name (from catalogue/countries.json), or the code when not listed. */
  country: string;
  email: string | null;
  /** True when no seller is configured: the placeholder below, marked SAMPLE on every document. */
  sample: boolean;
}

/** The placeholder seller used when SELLER_* is not set (refused with NODE_ENV=production, see config.ts). */
export const SAMPLE_SELLER: Seller = {
  name: 'Patient Treatment Service GmbH',
  address: ['Musterstraße 1', '10115 Berlin'],
  vat_id: 'DE000000000',
  country: 'Germany',
  email: 'billing@example.org',
  sample: true,
};

export const countryName = (code: string | null | undefined): string => (code ? (countryByCode(code.toUpperCase())?.name ?? code) : '');

/** The seller from configuration (SELLER_NAME, SELLER_ADDRESS, SELLER_VAT_ID, SELLER_COUNTRY, SELLER_EMAIL). */
export function sellerFrom(config: Pick<Config, 'SELLER_NAME' | 'SELLER_ADDRESS' | 'SELLER_VAT_ID' | 'SELLER_COUNTRY' | 'SELLER_EMAIL'>): Seller {
  if (!config.SELLER_NAME || !config.SELLER_ADDRESS || !config.SELLER_VAT_ID || !config.SELLER_COUNTRY) return SAMPLE_SELLER;
  return {
    name: config.SELLER_NAME,
    // Address lines are separated by "|" (or newlines).
    address: config.SELLER_ADDRESS.split(/\||\r?\n|\\n/)
      .map((l) => l.trim())
      .filter(Boolean),
    vat_id: config.SELLER_VAT_ID,
    country: countryName(config.SELLER_COUNTRY),
    email: config.SELLER_EMAIL ?? null,
    sample: false,
  };
}

export const VAT_NOTE =
  'VAT exempt: medical care by members of the medical professions, Art. 132(1)(c) Council Directive 2006/112/EC (§ 4 Nr. 14 UStG).';
export const SAMPLE_NOTE =
  'SAMPLE: the seller is not configured (SELLER_NAME, SELLER_ADDRESS, SELLER_VAT_ID, SELLER_COUNTRY). Not valid for tax purposes.';

const money = (cents: number, currency: string) => `${(cents / 100).toFixed(2)} ${currency}`;
const day = (d: Date) => d.toISOString().slice(0, 10);
const DAY_MS = 24 * 3600 * 1000;

async function render(build: (doc: PDFKit.PDFDocument) => void, title: string, seller: Seller): Promise<Buffer> {
  // Loaded on the first document, not at start-up: pdfkit and its font code are a good part of
  // the server's start time, and readiness does not need them.
  const { default: PDFDocument } = await import('pdfkit');
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument({ size: 'A4', margin: 50, info: { Title: seller.sample ? `${title} (SAMPLE)` : title, Author: seller.name } });
    const chunks: Buffer[] = [];
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    const f = fonts();
    doc.registerFont('body', f.regular);
    doc.registerFont('bold', f.bold);
    doc.font('body');
    if (seller.sample) {
      doc.font('bold').fontSize(12).fillColor('#b00020').text(SAMPLE_NOTE, { width: 495 }).fillColor('black').font('body').moveDown();
    }
    build(doc);
    doc.end();
  });
}

export interface InvoiceData {
  number: string;
  issuedAt: Date;
  seller: Seller;
  patient: { name: string; email: string; address: string[]; country: string };
  payment: { id: string; provider: string; provider_payment_id: string; status: string; captured_at: Date | null; description: string; amount_cents: number; refunded_amount_cents: number; currency: string; is_recurring: boolean };
  /** Plan charges: the period the payment covers (both days included); one-off: the day of supply. */
  service: { kind: 'period'; start: Date; end: Date } | { kind: 'date'; date: Date; supply_days: number | null };
  refunds: { id: string; amount_cents: number; created_at: string }[];
}

/** What an invoice prints of a payment, its patient, its plan and its consultation. */
export interface InvoiceSource {
  id: string;
  invoice_number: number | null;
  provider: string;
  provider_payment_id: string;
  status: string;
  captured_at: Date | null;
  created_at: Date;
  description: string;
  amount_cents: number;
  refunded_amount_cents: number;
  currency: string;
  is_recurring: boolean;
  subscription_id: string | null;
  period_start: Date | null;
  /** Parsed by the payments ledger, which owns the refund column's shape (lib imports no module). */
  refunds: InvoiceData['refunds'];
  first_name: string | null;
  last_name: string | null;
  email: string;
  addresses: unknown;
  country_of_residence: string | null;
  plan_cycle_days: number | null;
  consultation_supply_days: number | null;
}

interface Address {
  line1?: unknown;
  line2?: unknown;
  postal_code?: unknown;
  city?: unknown;
  country?: unknown;
  is_default?: unknown;
}

const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);

/** The invoice data of a payment (payments repository `paymentForInvoice`). */
export function invoiceDataFrom(p: InvoiceSource, seller: Seller): InvoiceData {
  const addresses: Address[] = Array.isArray(p.addresses) ? p.addresses.filter((a): a is Address => typeof a === 'object' && a !== null) : [];
  const addr = addresses.find((a) => a.is_default) ?? addresses[0] ?? null;
  const address = addr
    ? [str(addr.line1), str(addr.line2), [str(addr.postal_code), str(addr.city)].filter(Boolean).join(' '), countryName(str(addr.country))].filter((x): x is string => typeof x === 'string' && x !== '')
    : [];
  const number = p.invoice_number ? `INV-${p.invoice_number}` : `FAILED-${p.id.slice(0, 8)}`;
  const captured = p.captured_at ? new Date(p.captured_at) : null;
  const issuedAt = new Date(p.captured_at ?? p.created_at);
  let service: InvoiceData['service'];
  if (p.subscription_id && p.plan_cycle_days) {
    const start = new Date(p.period_start ?? p.captured_at ?? p.created_at);
    service = { kind: 'period', start, end: new Date(start.getTime() + (p.plan_cycle_days - 1) * DAY_MS) };
  } else {
    service = { kind: 'date', date: issuedAt, supply_days: p.consultation_supply_days ?? null };
  }
  return {
    number,
    issuedAt,
    seller,
    patient: { name: `${p.first_name ?? ''} ${p.last_name ?? ''}`.trim(), email: p.email, address, country: countryName(str(addr?.country) ?? p.country_of_residence) },
    payment: {
      id: p.id,
      provider: p.provider,
      provider_payment_id: p.provider_payment_id,
      status: p.status,
      captured_at: captured,
      description: p.description ?? '',
      amount_cents: p.amount_cents,
      refunded_amount_cents: p.refunded_amount_cents,
      currency: p.currency,
      is_recurring: p.is_recurring,
    },
    service,
    refunds: p.refunds,
  };
}

function sellerBlock(doc: PDFKit.PDFDocument, s: Seller) {
  doc.font('bold').fontSize(11).text(s.sample ? `${s.name} (SAMPLE)` : s.name).font('body');
  doc.fontSize(9);
  for (const l of s.address) doc.text(l);
  doc.text(s.country);
  doc.text(`VAT ID: ${s.vat_id}`);
  if (s.email) doc.text(s.email);
}

export function invoicePdf(d: InvoiceData): Promise<Buffer> {
  return render(
    (doc) => {
      doc.font('bold').fontSize(20).text('Invoice', { align: 'right' }).font('body');
      doc.fontSize(10).text(`Invoice number: ${d.number}`, { align: 'right' });
      doc.text(`Date: ${day(d.issuedAt)}`, { align: 'right' });
      doc.moveDown();
      sellerBlock(doc, d.seller);
      doc.moveDown();
      doc.fontSize(10).font('bold').text('Billed to:').font('body');
      doc.text(d.patient.name || d.patient.email);
      for (const l of d.patient.address) doc.text(l);
      if (d.patient.country && !d.patient.address.includes(d.patient.country)) doc.text(`Country: ${d.patient.country}`);
      doc.text(d.patient.email);
      doc.moveDown(1.5);
      doc.fontSize(10).font('bold').text('Description', 50, doc.y, { continued: false }).font('body');
      const y = doc.y;
      doc.moveTo(50, y).lineTo(545, y).stroke();
      doc.moveDown(0.5);
      const lineTop = doc.y;
      doc.text(`1 x ${d.payment.description || 'Medical consultation'}`, 50, lineTop, { width: 360 });
      const afterLine = doc.y;
      doc.text(money(d.payment.amount_cents, d.payment.currency), 420, lineTop, { width: 125, align: 'right' });
      doc.y = afterLine;
      doc.fontSize(9).text(
        d.service.kind === 'period'
          ? `Service period: ${day(d.service.start)} to ${day(d.service.end)}`
          : `Service date: ${day(d.service.date)}${d.service.supply_days ? ` (${d.service.supply_days}-day supply)` : ''}`,
        50,
        doc.y,
        { width: 360 },
      );
      doc.fontSize(10).moveDown();
      doc.text(`Net amount: ${money(d.payment.amount_cents, d.payment.currency)}`, 50, doc.y, { align: 'right', width: 495 });
      doc.text(`VAT 0 %: ${money(0, d.payment.currency)}`, { align: 'right', width: 495 });
      doc.font('bold').fontSize(11).text(`Total: ${money(d.payment.amount_cents, d.payment.currency)}`, { align: 'right', width: 495 }).font('body');
      doc.fontSize(9).moveDown(0.5).text(VAT_NOTE, 50, doc.y, { width: 495 });
      doc.moveDown();
      if (d.refunds.length) {
        doc.fontSize(10).font('bold').text('Refunds').font('body');
        for (const r of d.refunds) doc.fontSize(9).text(`${r.created_at.slice(0, 10)}  ${r.id}  -${money(r.amount_cents, d.payment.currency)}`);
        doc.fontSize(10).text(`Amount after refunds: ${money(d.payment.amount_cents - d.payment.refunded_amount_cents, d.payment.currency)}`);
        doc.moveDown();
      }
      doc.fontSize(9).text(
        d.payment.status === 'failed'
          ? 'This charge failed and was not collected.'
          : `Paid${d.payment.captured_at ? ` on ${day(d.payment.captured_at)}` : ''} by card through ${d.payment.provider} (reference ${d.payment.provider_payment_id}).${d.payment.is_recurring ? ' Recurring plan charge.' : ''}`,
      );
    },
    `Invoice ${d.number}`,
    d.seller,
  );
}

/** The product as Implementing Directive 2012/52/EU's annex names it (catalogue/prescription-products.json). */
export interface PrescribedProduct {
  /** Common name (INN). */
  inn: string;
  /** Only where the annex allows it, with the reason printed. */
  brand: { name: string; reason: string } | null;
  form: string;
  strength: string;
  quantity: string;
  regimen: string;
}

export interface PrescriptionData {
  id: string;
  issuedAt: Date;
  validUntil: Date | null;
  seller: Seller;
  patient: { name: string; date_of_birth: string | null; email: string; first_name?: string; last_name?: string };
  doctor: { first_name: string; last_name: string; license: string | null; qualification?: string; email?: string; phone?: string };
  treatment_name: string;
  dosage: string;
  supply_days: number | null;
  instructions: string;
  /** The 2012/52/EU product block; absent on prescriptions issued before it (their treatment name stands). */
  product?: PrescribedProduct;
  /** Dispensings after the first (0: dispense once). */
  repeats?: number;
  /** The minimum days between two dispensings (with repeats, or a reissue's from the original's last). */
  repeat_interval_days?: number | null;
  /** Signed with the prescriber's advanced electronic signature (embedded PAdES); where a pharmacy checks it. */
  signature?: { verify_url: string; ca_url: string | null };
}

export function prescriptionPdf(d: PrescriptionData): Promise<Buffer> {
  return render(
    (doc) => {
      const label = (l: string, v: string) => doc.font('bold').text(`${l}: `, { continued: true }).font('body').text(v);
      doc.font('bold').fontSize(20).text('Prescription').font('body');
      doc.fontSize(9).text(`Reference: ${d.id}`);
      doc.text(`Date of issue: ${day(d.issuedAt)}${d.validUntil ? `   Valid until: ${day(d.validUntil)}` : ''}`);
      doc.moveDown();
      doc.font('bold').fontSize(11).text('Patient').font('body');
      doc.fontSize(10).text(d.patient.name || d.patient.email);
      if (d.patient.last_name || d.patient.first_name) {
        label('Surname', d.patient.last_name ?? '');
        label('First name(s)', d.patient.first_name ?? '');
      }
      if (d.patient.date_of_birth) doc.text(`Date of birth: ${d.patient.date_of_birth}`);
      doc.moveDown();
      doc.font('bold').fontSize(11).text('Medication').font('body');
      doc.fontSize(10);
      if (d.product) {
        label('Common name (INN)', d.product.inn);
        if (d.product.brand) label('Brand name', `${d.product.brand.name} (brand prescribed: ${d.product.brand.reason})`);
        label('Pharmaceutical form', d.product.form);
        label('Strength', d.product.strength);
        label('Quantity', d.product.quantity);
        label('Dosage instructions', d.instructions ? `${d.product.regimen}. ${d.instructions}` : d.product.regimen);
        label('Dispensings', d.repeats ? `1 + ${d.repeats} repeat(s)` : 'once (no repeats)');
        if (d.repeat_interval_days) label('Minimum interval between dispensings', `${d.repeat_interval_days} days (from the last dispensing)`);
      } else {
        doc.text(`${d.treatment_name}${d.dosage ? `, ${d.dosage}` : ''}`);
        if (d.instructions) doc.text(`Instructions: ${d.instructions}`);
      }
      if (d.supply_days) doc.text(`Supply: ${d.supply_days} days`);
      doc.moveDown();
      doc.font('bold').fontSize(11).text('Prescriber').font('body');
      const name = `${d.doctor.first_name} ${d.doctor.last_name}`.trim();
      doc.fontSize(10).text(`Prescribing doctor: ${name || 'not recorded'}`);
      if (d.doctor.qualification) {
        label('Surname', d.doctor.last_name);
        label('First name(s)', d.doctor.first_name);
        label('Professional qualification', d.doctor.qualification);
      }
      doc.text(`Licence number: ${d.doctor.license || 'not recorded'}`);
      if (d.doctor.email) label('E-mail', d.doctor.email);
      if (d.doctor.phone) label('Telephone', d.doctor.phone);
      label('Work address', [d.seller.sample ? `${d.seller.name} (SAMPLE)` : d.seller.name, ...d.seller.address].join(', '));
      label('Country', d.seller.country);
      if (d.signature) {
        doc.moveDown();
        label('Signature', `advanced electronic signature of ${name} (PAdES), embedded in this file.`);
        doc.fontSize(9).text('A pharmacy verifies it (upload this file) at:');
        doc.text(d.signature.verify_url);
        doc.text(`${d.signature.ca_url ? `Sandbox root certificate: ${d.signature.ca_url}. ` : ''}A printed copy carries no signature.`);
      }
      doc.moveDown();
      doc.fontSize(9).text(`${d.seller.sample ? `${d.seller.name} (SAMPLE)` : d.seller.name}, ${[...d.seller.address, d.seller.country].join(', ')}`);
    },
    `Prescription ${d.id}`,
    d.seller,
  );
}

/** One language's version of a letter to the patient's own doctor: its heading, opening, labelled lines and closing. */
export interface LetterPart {
  lang: string;
  title: string;
  opening: string;
  /** A heading and its lines (label, value); a line without a label is a paragraph. */
  sections: { heading: string; lines: [string | null, string][] }[];
  closing: string;
}

/**
 * A letter to the patient's own doctor (docs/interoperability.md): the recipient, then one part per
 * language (the patient's, then English), each on its own page.
 */
export function gpLetterPdf(d: { id: string; seller: Seller; recipient: string[]; parts: LetterPart[] }): Promise<Buffer> {
  return render(
    (doc) => {
      d.parts.forEach((p, i) => {
        if (i > 0) doc.addPage();
        doc.fontSize(9).text([d.seller.sample ? `${d.seller.name} (SAMPLE)` : d.seller.name, ...d.seller.address, d.seller.country].join(', '));
        doc.moveDown();
        doc.fontSize(10);
        for (const line of d.recipient) doc.text(line);
        doc.moveDown();
        doc.font('bold').fontSize(16).text(p.title).font('body');
        doc.fontSize(8).text(`${d.id} · ${p.lang}`);
        doc.moveDown();
        doc.fontSize(10).text(p.opening);
        for (const s of p.sections) {
          doc.moveDown();
          doc.font('bold').fontSize(11).text(s.heading).font('body').fontSize(10);
          for (const [label, value] of s.lines) {
            if (label) doc.font('bold').text(`${label}: `, { continued: true }).font('body').text(value);
            else doc.text(value);
          }
        }
        doc.moveDown();
        doc.text(p.closing);
      });
    },
    `Letter ${d.id}`,
    d.seller,
  );
}
