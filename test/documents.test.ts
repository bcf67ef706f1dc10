// Documents people read: invoices and prescriptions print every supported country's alphabet (text
// extracted back from the PDF), the seller comes from configuration (SAMPLE without it, refused in
// production), the patient's country, the service period and one product name on every charge of a
// plan, and the prescriber's name and licence number.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { COUNTRIES } from '../src/lib/countries.ts';
import { billingTreatment } from '../src/modules/payments/index.ts';
import { chargeSubscriptionCycle } from '../src/modules/subscriptions/index.ts';
import { FONT_FILES, SAMPLE_SELLER, invoicePdf, prescriptionPdf, sellerFrom } from '../src/lib/pdf.ts';
import { paySandbox, readyPatient } from './billing-fixtures.ts';
import { call, createTestContext, newStaff, type Patient, type TestContext, firstRow } from './support/harness.ts';
import { pdfText } from './support/pdf-text.ts';

/** A name written in the alphabet of each supported country (catalogue/countries.json). */
const NAMES: Record<string, string> = {
  AUT: 'Jürgen Größl',
  BEL: 'Françoise Lemaître',
  BGR: 'Димитър Петров-Щърбанов',
  CHE: 'Zoë Müller-Brändli',
  CYP: 'Ανδρέας Χριστοδούλου',
  CZE: 'Jiří Dvořák-Růžičková',
  DEU: 'Jörg Weiß',
  DNK: 'Søren Ærø Kierkegård',
  ESP: 'Íñigo Muñoz Peña',
  EST: 'Jüri Õunapuu-Šmidt',
  FIN: 'Väinö Äyräpää',
  FRA: 'Cécile Lœuvre-Bélanger',
  GBR: 'Siobhán Ó Briain',
  GRC: 'Σοφία Παπαδοπούλου',
  HRV: 'Đurđica Šimić-Žužić',
  HUN: 'Őrs Szűcs-Kövér',
  IRL: 'Seán Ó Dónaill',
  ISL: 'Þórður Guðjónsson',
  ITA: 'Niccolò Bertè',
  LIE: 'Zoë Bühler',
  LTU: 'Žydrūnas Ąžuolaitis-Ėglė',
  LUX: 'Léonie Schäfer',
  LVA: 'Ģirts Ķēniņš-Ļaviņa',
  MLT: 'Ġużè Ħabibi Żammit',
  NLD: 'Anneke Geëlen-Ruïs',
  NOR: 'Bjørn Ålesund',
  POL: 'Łukasz Wańkowicz-Żółć Ślęzak',
  PRT: 'João Gonçalves',
  ROU: 'Ștefan Țăranu-Îndrăgit',
  SVK: 'Ľubomír Ďurčo-Kôň',
  SVN: 'Žiga Čeh',
  SWE: 'Åsa Öberg',
};

const flat = (s: string) => s.replace(/\s+/g, ' ');

let ctx: TestContext;
let configured: TestContext;
const SELLER_ENV = {
  SELLER_NAME: 'Ιατρική Υπηρεσία Łódź Sp. z o.o.',
  SELLER_ADDRESS: 'ul. Piotrkowska 104|90-926 Łódź',
  SELLER_VAT_ID: 'PL7251234567',
  SELLER_COUNTRY: 'POL',
  SELLER_EMAIL: 'faktury@example.org',
};
const DISTANCE_SELLING_ENV = { DISTANCE_SELLING_REGISTER_URL: 'https://register.example.pl/apteka/1', DISTANCE_SELLING_PHARMACY_NAME: 'Apteka Przykładowa', DISTANCE_SELLING_COUNTRY: 'POL' };

beforeAll(async () => {
  ctx = await createTestContext();
  configured = await createTestContext(SELLER_ENV);
});
afterAll(async () => {
  await ctx?.close();
  await configured?.close();
});

async function pdf(c: TestContext, url: string, token: string): Promise<{ status: number; text: string; type: string }> {
  const res = await c.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
  return { status: res.statusCode, type: String(res.headers['content-type']), text: res.statusCode === 200 ? flat(await pdfText(res.rawPayload)) : '' };
}

describe('fonts', () => {
  it('the embedded font is resolved through its package, not a path under src/', () => {
    expect(FONT_FILES.regular).toMatch(/node_modules\/@expo-google-fonts\/noto-sans\/400Regular\/NotoSans_400Regular\.ttf$/);
    expect(FONT_FILES.bold).toMatch(/NotoSans_700Bold\.ttf$/);
  });

  it('every supported country has a test name, and every name and country name round-trips through invoices and prescriptions', async () => {
    expect(Object.keys(NAMES).sort()).toEqual(COUNTRIES.map((c) => c.code).sort());
    // Four countries per document (a PDF costs real CPU time): the patient and three more names.
    const codes = COUNTRIES.map((c) => c.code);
    for (let i = 0; i < codes.length; i += 4) {
      const group = [0, 1, 2, 3].map((k) => COUNTRIES[(i + k) % codes.length]!);
      const [a, b, c, d] = group.map((g) => NAMES[g.code] ?? g.code) as [string, string, string, string];
      const invoice = await invoicePdf({
        number: 'INV-1',
        issuedAt: new Date('2026-03-01T10:00:00Z'),
        seller: SAMPLE_SELLER,
        patient: { name: a, email: 'p@example.org', address: [`c/o ${b}`, `c/o ${c}`, `c/o ${d}`, group.map((g) => g.name).join(' / ')], country: group[0]!.name },
        payment: { id: 'x', provider: 'sandbox', provider_payment_id: 'ch_1', status: 'succeeded', captured_at: new Date('2026-03-01T10:00:00Z'), description: 'Product', amount_cents: 1000, refunded_amount_cents: 0, currency: 'EUR', is_recurring: false },
        service: { kind: 'date', date: new Date('2026-03-01T10:00:00Z'), supply_days: 28 },
        refunds: [],
      });
      const text = flat(await pdfText(invoice));
      for (const g of group) {
        expect(text, g.code).toContain(NAMES[g.code]);
        expect(text, g.code).toContain(g.name);
      }
      const rx = await prescriptionPdf({
        id: 'rx-1',
        issuedAt: new Date('2026-03-01T10:00:00Z'),
        validUntil: null,
        seller: SAMPLE_SELLER,
        patient: { name: `${a} ${b}`, date_of_birth: '1985-04-12', email: 'p@example.org' },
        doctor: { first_name: c, last_name: d, license: `${codes[i]}-123` },
        treatment_name: 'Treatment',
        dosage: '1 mg',
        supply_days: 30,
        instructions: '',
      });
      const rxText = flat(await pdfText(rx));
      expect(rxText, codes[i]).toContain(`${a} ${b}`);
      expect(rxText, codes[i]).toContain(`Prescribing doctor: ${c} ${d}`);
    }
  }, 180_000);
});

describe('invoices over HTTP', () => {
  async function paidPlan(c: TestContext, first: string, last: string, country: string): Promise<{ p: Patient; paymentId: string; subscriptionId: string }> {
    const p = await readyPatient(c, 'weight_loss', 'eligible', {
      first_name: first,
      last_name: last,
      country_of_residence: country,
      addresses: [{ label: '', line1: 'ul. Świętokrzyska 12', line2: '', city: 'Kraków', postal_code: '30-001', country, is_default: true }],
    });
    const { session } = await paySandbox(c, p, { category: 'weight_loss', plan: 'subscription' });
    return { p, paymentId: session.payment_id, subscriptionId: session.subscription_id };
  }

  it('prints the name, the country name, the service period and SAMPLE for an unconfigured seller', async () => {
    const { p, paymentId } = await paidPlan(ctx, 'Łukasz', 'Dvořák-Őry Şahin', 'POL');
    const pay = firstRow(await ctx.db.query('select * from payments where id = $1', [paymentId]));
    const r = await pdf(ctx, `/v1/users/payments/${paymentId}/invoice/`, p.access);
    expect(r.status).toBe(200);
    expect(r.type).toBe('application/pdf');
    expect(r.text).toContain('Łukasz Dvořák-Őry Şahin');
    expect(r.text).toContain('ul. Świętokrzyska 12');
    expect(r.text).toContain('30-001 Kraków');
    expect(r.text).toContain('Poland');
    const start = new Date(pay.period_start);
    const end = new Date(start.getTime() + 27 * 24 * 3600 * 1000);
    expect(r.text).toContain(`Service period: ${start.toISOString().slice(0, 10)} to ${end.toISOString().slice(0, 10)}`);
    expect(r.text).toContain('SAMPLE');
    expect(r.text).toContain('Musterstraße 1');
    expect(r.text).toContain(`INV-${pay.invoice_number}`);
  });

  it('a stored refund that does not parse is left off the invoice and out of the next refund (not a 500)', async () => {
    const { p, paymentId } = await paidPlan(ctx, 'Jörg', 'Weiß', 'DEU');
    const good = { id: 're_readable', amount_cents: 500, status: 'succeeded', reason: 'goodwill', created_at: '2026-03-02T10:00:00.000Z' };
    const record = { ...good, total_refunded_cents: 500, currency: 'EUR', refunds: [good, { id: 7, amount_cents: 'a lot' }] };
    await ctx.db.query("update payments set refund = $2::jsonb, refunded_amount_cents = 500, status = 'partially_refunded' where id = $1", [paymentId, JSON.stringify(record)]);
    const r = await pdf(ctx, `/v1/users/payments/${paymentId}/invoice/`, p.access);
    expect(r.status).toBe(200);
    expect(r.text).toContain('2026-03-02 re_readable -5.00 EUR');

    const admin = await newStaff(ctx, 'backoffice_admin');
    const refunded = await call(ctx, 'POST', `/v1/backoffice/payments/${paymentId}/refund/`, { token: admin.access, json: { amount_cents: 100, reason: 'goodwill' } });
    expect(refunded.status).toBe(200);
    const stored = firstRow(await ctx.db.query('select refund, refunded_amount_cents from payments where id = $1', [paymentId]));
    expect(stored.refunded_amount_cents).toBe(600);
    expect(stored.refund.refunds.map((e: { id: unknown }) => e.id)).toEqual(['re_readable', refunded.body.refund.id]);
  });

  it('a configured seller is printed (no SAMPLE); the first and the recurring invoice of a plan name the same product', async () => {
    const { p, paymentId, subscriptionId } = await paidPlan(configured, 'Σοφία', 'Παπαδοπούλου', 'GRC');
    const first = await pdf(configured, `/v1/users/payments/${paymentId}/invoice/`, p.access);
    expect(first.text).toContain('Ιατρική Υπηρεσία Łódź Sp. z o.o.');
    expect(first.text).toContain('ul. Piotrkowska 104');
    expect(first.text).toContain('90-926 Łódź');
    expect(first.text).toContain('VAT ID: PL7251234567');
    expect(first.text).toContain('faktury@example.org');
    expect(first.text).not.toContain('SAMPLE');
    expect(first.text).not.toContain('Musterstraße');
    expect(first.text).toContain('Σοφία Παπαδοπούλου');
    expect(first.text).toContain('Greece');

    const charge = await chargeSubscriptionCycle(configured.deps, subscriptionId, 'subscription_cycle', { force: true });
    expect(charge.outcome).toBe('charged');
    const [a, b] = await configured.db.query('select id, description, period_start from payments where subscription_id = $1 order by created_at, is_recurring', [subscriptionId]);
    expect(b?.id).toBe(charge.paymentId);
    expect(b?.description).toBe(a?.description);
    // The catalogue's name of the treatment, not its id, on both.
    const name = (billingTreatment('weight_loss', 'semaglutide'))!.name;
    expect(a?.description).toBe(`${name} 0.25 mg: treatment plan, 28-day cycle`);
    const second = await pdf(configured, `/v1/users/payments/${b?.id}/invoice/`, p.access);
    const product = /1 x (.+?) \d+\.\d\d EUR/;
    expect(product.exec(second.text)?.[1]).toBe(product.exec(first.text)?.[1]);
    expect(second.text).toContain(`Service period: ${new Date(b?.period_start).toISOString().slice(0, 10)} to`);
    expect(second.text).toContain('Recurring plan charge.');
  });
});

describe('seller configuration', () => {
  it('refuses to start in production without the seller, and refuses a partial seller anywhere', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/SELLER_NAME, SELLER_ADDRESS, SELLER_VAT_ID, SELLER_COUNTRY: required to issue invoices/);
    expect(() => loadConfig({ SELLER_NAME: 'X GmbH' })).toThrow(/SELLER_ADDRESS, SELLER_VAT_ID, SELLER_COUNTRY: required to issue invoices \(set all four/);
    expect(() => loadConfig({ ...SELLER_ENV, SELLER_VAT_ID: 'not a vat id' })).toThrow(/SELLER_VAT_ID/);
    expect(() => loadConfig({ ...SELLER_ENV, SELLER_COUNTRY: 'Poland' })).toThrow(/SELLER_COUNTRY/);
    const c = loadConfig({ ...SELLER_ENV, ...DISTANCE_SELLING_ENV, SELLER_PHONE: '+48421234567', NODE_ENV: 'production' });
    expect(sellerFrom(c)).toEqual({
      name: SELLER_ENV.SELLER_NAME,
      address: ['ul. Piotrkowska 104', '90-926 Łódź'],
      vat_id: 'PL7251234567',
      country: 'Poland',
      email: 'faktury@example.org',
      sample: false,
    });
    expect(sellerFrom(loadConfig({})).sample).toBe(true);
  });
});

describe('prescriptions', () => {
  it('name the prescribing doctor and licence number', async () => {
    const { createStaff } = await import('../src/modules/accounts/service.ts');
    const doctorEmail = `doc-${Date.now().toString(36)}@example.org`.replace(/\d/g, 'x');
    await createStaff(configured.deps, { email: doctorEmail, password: 'Ward-Lantern-Harbour-2026', role: 'doctor', firstName: 'Ζωή', lastName: 'Kowalczyk-Năstase', licenseNumber: 'LANR 987654321' });
    const tok = await call(configured, 'POST', '/v1/users/token/', { brand: true, json: { email: doctorEmail, password: 'Ward-Lantern-Harbour-2026' } });
    expect(tok.status).toBe(200);
    const p = await readyPatient(configured, 'weight_loss', 'eligible', { first_name: 'Ђорђе', last_name: 'Іваненко' });
    const { session } = await paySandbox(configured, p, { category: 'weight_loss', plan: 'one_off' });
    const ok = await call(configured, 'POST', `/v1/clinician/consultations/${session.consultation_id}/approve/`, { token: tok.body.access, json: {} });
    expect(ok.status).toBe(200);
    const list = await call(configured, 'GET', '/v1/users/prescriptions/', { token: p.access });
    const rx = list.body.results[0];
    expect(rx.doctor).toMatchObject({ first_name: 'Ζωή', last_name: 'Kowalczyk-Năstase', doctor_license_number: 'LANR 987654321' });
    const r = await pdf(configured, `/v1/users/prescriptions/${rx.id}/pdf/`, p.access);
    expect(r.status).toBe(200);
    expect(r.text).toContain('Prescribing doctor: Ζωή Kowalczyk-Năstase');
    expect(r.text).toContain('Licence number: LANR 987654321');
    expect(r.text).toContain('Ђорђе Іваненко');
    expect(r.text, r.text).toContain('Ιατρική Υπηρεσία Łódź Sp. z o.o.');
    // Without its names and licence a doctor account is refused.
    await expect(createStaff(configured.deps, { email: 'nolicence@example.org', password: 'Ward-Lantern-Harbour-2026', role: 'doctor', firstName: 'A', lastName: 'B' })).rejects.toThrow(/licence number/);
    await expect(createStaff(configured.deps, { email: 'noname@example.org', password: 'Ward-Lantern-Harbour-2026', role: 'doctor', firstName: ' ', lastName: 'B', licenseNumber: 'X-1' })).rejects.toThrow(/first name/);
  });
});
