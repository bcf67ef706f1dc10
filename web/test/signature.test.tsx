// Signed prescriptions in the web app against stand-in API answers (no network): the desk's "signed
// by" (name, qualification, time, certificate serial and fingerprint, valid or revoked), the patient's
// signature line with its link to verify, the verify page (public: upload; the pharmacy desk: by
// code, then record the dispensing once), the prescriber's details (telephone only), and the desk's
// photo views named in the page's language.
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { I18nProvider, LOCALES, makeI18n, type Locale } from '../src/i18n';
import { DeskPhotos } from '../src/features/photos/DeskPhotos';
import { DeskSignatures, SignatureDetails, type StaffPrescription } from '../src/features/signature/DeskSignature';
import { PrescriberPage } from '../src/features/signature/PrescriberPage';
import { PrescriptionSignatureLine } from '../src/features/signature/PrescriptionSignatureLine';
import { SIGNATURE_STRINGS } from '../src/features/signature/strings';
import { VerifyPrescriptionPage } from '../src/features/signature/VerifyPrescription';

const wrap = (node: React.ReactNode, locale: Locale = 'en') => <I18nProvider value={makeI18n(locale)}>{node}</I18nProvider>;

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const RX = '11111111-2222-4333-8444-555555555555';
const ORDER = '99999999-2222-4333-8444-555555555555';
const SHA = 'ab'.repeat(32);
const ONCE = { dispensings_allowed: 1, dispensed_count: 0, repeats_left: 0, repeat_interval_days: null, next_dispensing_from: null };

function staffRx(over: Partial<StaffPrescription> = {}): StaffPrescription {
  return {
    id: RX,
    consultation_id: '00000000-0000-4000-8000-000000000001',
    treatment_name: 'Finasteride 1 mg',
    dosage: '1 mg',
    issued_at: '2026-12-01T10:00:00Z',
    valid_until: null,
    status: 'active',
    cancelled_at: null,
    repeats: 0,
    patient: { first_name: 'Zofia', last_name: 'Wójcik', date_of_birth: '1985-04-12' },
    signature: {
      level: 'B-B',
      signer: 'Anna Berg',
      qualification: 'Fachärztin für Dermatologie',
      licence_number: 'LANR-123456789',
      signed_at: '2026-12-01T10:00:00Z',
      certificate: { provider: 'sandbox', serial_number: '0a1b2c3d', sha256: SHA, subject: 'CN=Anna Berg', not_after: '2027-12-01T10:00:00Z', status: 'active' },
    },
    verification: { valid: true, reason: null, prescription_id: RX, signer: 'Anna Berg', signed_at: '2026-12-01T10:00:00Z', status: 'active', certificate_sha256: SHA, dispensing: ONCE },
    dispensing: { status: 'not_dispensed', pharmacy: null, dispensed_at: null, dispensings_allowed: 1, dispensed_count: 0, repeats_used: 0, repeats_left: 0, repeat_interval_days: null, next_dispensing_from: null },
    orders_to_dispense: [{ id: ORDER, attempt: 1, created_at: '2026-12-01T10:00:00Z' }],
    ...over,
  };
}

type Handler = (body: unknown) => [number, unknown];
/** Stands in for the API: `METHOD /path` -> handler; records what was sent. Takes a Request (typed client) or (url, init) (multipart). */
function stubApi(routes: Record<string, Handler>) {
  const sent: { key: string; body: unknown }[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: Request | string, init?: RequestInit) => {
      const req = typeof input === 'string' ? new Request(new URL(input, 'http://localhost'), init) : input;
      const key = `${req.method} ${new URL(req.url).pathname}`;
      const type = req.headers.get('content-type') ?? '';
      const body = req.method === 'GET' ? undefined : type.includes('json') ? await req.clone().json() : init?.body;
      sent.push({ key, body });
      const route = routes[key];
      const [status, out] = route ? route(body) : [404, { detail: 'Not found.' }];
      return new Response(JSON.stringify(out), { status, headers: { 'content-type': 'application/json' } });
    }),
  );
  return sent;
}

describe("the desk's signature", () => {
  it('names who signed, the qualification, when, the certificate serial and fingerprint, and that it is valid', () => {
    render(wrap(<SignatureDetails rx={staffRx()} />));
    expect(screen.getByText(/Signed by Anna Berg, Fachärztin für Dermatologie, /)).toBeTruthy();
    expect(screen.getByText('0a1b2c3d')).toBeTruthy();
    expect(screen.getByText(SHA)).toBeTruthy();
    expect(screen.getByText('LANR-123456789')).toBeTruthy();
    expect(screen.getByTestId('rx-signature-status').textContent).toBe('Valid');
  });

  it('shows a revoked certificate as revoked, and an unsigned prescription as such', () => {
    const revoked = staffRx({ verification: { ...staffRx().verification!, valid: false, reason: 'certificate_revoked', certificate_sha256: null } });
    revoked.signature!.certificate.status = 'revoked';
    const { unmount } = render(wrap(<SignatureDetails rx={revoked} />));
    expect(screen.getByTestId('rx-signature-status').textContent).toBe('Revoked: the signature no longer verifies');
    unmount();
    render(wrap(<SignatureDetails rx={staffRx({ signature: null, verification: null })} />));
    expect(screen.getByTestId('rx-signature-none')).toBeTruthy();
  });

  it('loads each prescription of the consultation from the desk route, in German on a German desk', async () => {
    const sent = stubApi({ [`GET /v1/clinician/prescriptions/${RX}/`]: () => [200, staffRx()] });
    render(wrap(<DeskSignatures prescriptionIds={[RX]} />, 'de'));
    await screen.findByText(/Signiert von Anna Berg/);
    expect(screen.getByTestId('rx-signature-status').textContent).toBe('Gültig');
    expect(sent.map((s) => s.key)).toEqual([`GET /v1/clinician/prescriptions/${RX}/`]);
  });

  it('shows nothing before a prescription exists', () => {
    const { container } = render(wrap(<DeskSignatures prescriptionIds={[]} />));
    expect(container.textContent).toBe('');
  });
});

describe("the patient's prescription", () => {
  /** The patient's signed prescription as the API answers it, with `dispensing` as given. */
  const patientRx = (dispensing: Record<string, unknown>) =>
    stubApi({
      [`GET /v1/users/prescriptions/${RX}/`]: () => [
        200,
        { id: RX, status: 'active', signature: { level: 'B-B', signer: 'Anna Berg', signed_at: '2026-12-01T10:00:00Z', certificate_sha256: SHA }, dispensing: { pharmacy: { id: null, name: 'Apotheke am Markt' }, dispensed_at: '2026-12-02T09:00:00Z', ...dispensing } },
      ],
    });

  it('says it is signed, by whom, links to verify, and where it was dispensed', async () => {
    patientRx({ status: 'dispensed', dispensings_allowed: 1, dispensed_count: 1, repeats_used: 0, repeats_left: 0, repeat_interval_days: null, next_dispensing_from: null });
    render(wrap(<PrescriptionSignatureLine id={RX} />));
    await screen.findByText(/Electronically signed by Anna Berg on/);
    expect(screen.getByRole('link', { name: 'Verify a prescription' }).getAttribute('href')).toBe(`/verify?code=${RX}`);
    expect(screen.getByText(/Dispensed at Apotheke am Markt on/)).toBeTruthy();
    expect(screen.queryByTestId('rx-repeats')).toBeNull(); // dispensed once: no repeats line
  });

  it('with repeats: how many are used and left, the interval and the next earliest date', async () => {
    patientRx({ status: 'partly_dispensed', dispensings_allowed: 3, dispensed_count: 2, repeats_used: 1, repeats_left: 1, repeat_interval_days: 30, next_dispensing_from: '2027-01-01T09:00:00Z' });
    render(wrap(<PrescriptionSignatureLine id={RX} />));
    const line = await screen.findByTestId('rx-repeats');
    expect(line.textContent).toContain('Repeats: 1 used, 1 left, at least 30 days apart');
    expect(line.textContent).toMatch(/Next dispensing from .*2027/);
  });
});

describe('verify a prescription', () => {
  it('public: a printed link names the prescription (?code=); a file of another one is flagged; repeats are shown', async () => {
    window.history.pushState({}, '', `/verify?code=${RX}`);
    try {
      const other = '22222222-2222-4333-8444-555555555555';
      stubApi({
        'POST /v1/prescriptions/verify/': () => [200, { valid: true, reason: null, prescription_id: other, signer: 'Anna Berg', signed_at: '2026-12-01T10:00:00Z', status: 'active', certificate_sha256: SHA, dispensing: { dispensings_allowed: 2, dispensed_count: 1, repeats_left: 1, repeat_interval_days: 28, next_dispensing_from: '2026-12-29T10:00:00Z' } }],
      });
      const { container } = render(wrap(<VerifyPrescriptionPage />));
      expect(screen.getByTestId('verify-expected').textContent).toContain(RX);
      fireEvent.change(container.querySelector('input[type=file]')!, { target: { files: [new File(['%PDF-1.7'], 'rx.pdf', { type: 'application/pdf' })] } });
      fireEvent.submit(screen.getByRole('form', { name: 'Prescription PDF' }));
      await screen.findByText(`This file is another prescription than ${RX}.`);
      expect(screen.getByTestId('rx-repeats').textContent).toContain('Repeats: 0 used, 1 left, at least 28 days apart');
    } finally {
      window.history.pushState({}, '', '/');
    }
  });

  it('pharmacy desk: the link’s code is prefilled; a repeat before the interval is refused with the date', async () => {
    window.history.pushState({}, '', `/pharmacy/verify?code=${RX}`);
    try {
      stubApi({
        [`GET /v1/pharmacy/prescriptions/${RX}/`]: () => [
          200,
          staffRx({
            repeats: 1,
            dispensing: { status: 'partly_dispensed', pharmacy: { id: null, name: 'Praxis Nord' }, dispensed_at: '2026-12-02T09:00:00Z', dispensings_allowed: 2, dispensed_count: 1, repeats_used: 0, repeats_left: 1, repeat_interval_days: 30, next_dispensing_from: '2027-01-01T09:00:00Z' },
          }),
        ],
        [`POST /v1/pharmacy/orders/${ORDER}/dispense/`]: () => [409, { detail: 'Too early.', code: 'repeat_too_early', earliest_at: '2027-01-01T09:00:00Z' }],
      });
      render(wrap(<VerifyPrescriptionPage desk />));
      expect((screen.getByRole('textbox', { name: 'Prescription code' }) as HTMLInputElement).value).toBe(RX);
      fireEvent.submit(screen.getByRole('form', { name: 'Prescription code' }));
      await screen.findByText('Valid prescription');
      expect(screen.getByTestId('rx-repeats').textContent).toContain('Repeats: 0 used, 1 left, at least 30 days apart');
      fireEvent.change(screen.getByLabelText('Batch number'), { target: { value: 'LOT-1' } });
      fireEvent.change(screen.getByLabelText('Expiry date'), { target: { value: '2027-06-30' } });
      fireEvent.submit(screen.getByRole('form', { name: `Order ${ORDER.slice(0, 8)}` }));
      await screen.findByText(/Too early for this repeat: it can be dispensed from .*2027/);
    } finally {
      window.history.pushState({}, '', '/');
    }
  });

  it('public: uploads the PDF and shows why it is not valid', async () => {
    const sent = stubApi({
      'POST /v1/prescriptions/verify/': () => [200, { valid: false, reason: 'content_changed', prescription_id: RX, signer: 'Anna Berg', signed_at: '2026-12-01T10:00:00Z', status: 'active', certificate_sha256: null }],
    });
    const { container } = render(wrap(<VerifyPrescriptionPage />));
    expect(screen.queryByLabelText('Prescription code')).toBeNull();
    const input = container.querySelector('input[type=file]')!;
    fireEvent.change(input, { target: { files: [new File(['%PDF-1.7'], 'rx.pdf', { type: 'application/pdf' })] } });
    fireEvent.submit(screen.getByRole('form', { name: 'Prescription PDF' }));
    await screen.findByText(/the file was changed after signing/);
    expect(screen.getByText('Not valid')).toBeTruthy();
    const post = sent.find((s) => s.key === 'POST /v1/prescriptions/verify/')!;
    expect((post.body as FormData).get('file')).toBeInstanceOf(File);
  });

  it('pharmacy desk: by code, shows the patient and signature, records the dispensing; a second one is refused', async () => {
    let dispensed = false;
    const sent = stubApi({
      [`GET /v1/pharmacy/prescriptions/${RX}/`]: () => [
        200,
        dispensed
          ? staffRx({
              verification: { ...staffRx().verification!, status: 'dispensed' },
              dispensing: { status: 'dispensed', pharmacy: { id: null, name: 'Praxis Nord' }, dispensed_at: '2026-12-02T09:00:00Z', dispensings_allowed: 1, dispensed_count: 1, repeats_used: 0, repeats_left: 0, repeat_interval_days: null, next_dispensing_from: null },
              orders_to_dispense: [],
            })
          : staffRx(),
      ],
      [`POST /v1/pharmacy/orders/${ORDER}/dispense/`]: () => {
        if (dispensed) return [409, { detail: 'Dispensed already.', code: 'already_dispensed' }];
        dispensed = true;
        return [200, { id: ORDER }];
      },
    });
    render(wrap(<VerifyPrescriptionPage desk />));
    fireEvent.change(screen.getByRole('textbox', { name: 'Prescription code' }), { target: { value: 'not a code' } });
    fireEvent.submit(screen.getByRole('form', { name: 'Prescription code' }));
    await screen.findByText('No prescription has this code.');
    expect(sent).toHaveLength(0);

    fireEvent.change(screen.getByRole('textbox', { name: 'Prescription code' }), { target: { value: RX } });
    fireEvent.submit(screen.getByRole('form', { name: 'Prescription code' }));
    await screen.findByText('Valid prescription');
    expect(screen.getByText(/Zofia Wójcik/)).toBeTruthy();
    expect(screen.getByText('Can be dispensed')).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Batch number'), { target: { value: 'LOT-1' } });
    fireEvent.change(screen.getByLabelText('Expiry date'), { target: { value: '2027-06-30' } });
    fireEvent.submit(screen.getByRole('form', { name: `Order ${ORDER.slice(0, 8)}` }));
    await screen.findByText('Dispensing recorded.');
    expect(sent.find((s) => s.key === `POST /v1/pharmacy/orders/${ORDER}/dispense/`)?.body).toEqual({ batch: 'LOT-1', expiry: '2027-06-30' });
    await screen.findByText('Already dispensed: do not dispense again');
    expect(screen.queryByRole('form', { name: `Order ${ORDER.slice(0, 8)}` })).toBeNull();
  });
});

describe("the prescriber's details", () => {
  it('shows what prescriptions print, lets the doctor change only the telephone', async () => {
    let phone: string | null = null;
    const details = () => ({
      first_name: 'Anna',
      last_name: 'Berg',
      email: 'anna@example.org',
      licence_number: 'LANR-123456789',
      qualification: 'Medical doctor (physician)',
      qualification_is_default: true,
      phone,
      phone_printed: phone ?? '+4930123456',
      certificate: null,
    });
    const sent = stubApi({
      'GET /v1/clinician/prescriber/': () => [200, details()],
      'PATCH /v1/clinician/prescriber/': (body) => {
        phone = (body as { phone: string }).phone.replace(/\s/g, '');
        return [200, details()];
      },
    });
    render(wrap(<PrescriberPage />));
    await screen.findByText('LANR-123456789');
    expect(screen.getByText('Printed: +4930123456')).toBeTruthy();
    expect(screen.queryByLabelText('Qualification')).toBeNull();
    fireEvent.change(screen.getByLabelText('Professional telephone'), { target: { value: '+49 30 9876543' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await screen.findByText('Saved.');
    expect(sent.find((s) => s.key === 'PATCH /v1/clinician/prescriber/')?.body).toEqual({ phone: '+49 30 9876543' });
    await screen.findByText('Printed: +49309876543');
  });
});

describe('string tables', () => {
  it('every locale has every key, none empty', () => {
    const keys = Object.keys(SIGNATURE_STRINGS.en).sort();
    for (const l of LOCALES) {
      expect(Object.keys(SIGNATURE_STRINGS[l]).sort(), l).toEqual(keys);
      for (const k of keys) expect(SIGNATURE_STRINGS[l][k as keyof typeof SIGNATURE_STRINGS.en].trim(), `${l}.${k}`).not.toBe('');
    }
  });

  it("the desk names the hair-loss photo views in the page's language, not the API's English label", () => {
    vi.stubGlobal('URL', Object.assign(URL, { createObjectURL: () => 'blob:photo', revokeObjectURL: () => undefined }));
    stubApi({});
    const photo = (id: string, view: string, label: string) => ({ id, url: `http://api.test/v1/clinician/photos/${id}/`, created_at: '2026-12-01T10:00:00Z', view, view_label: label });
    render(
      wrap(
        <DeskPhotos photos={[photo('a', 'hairline', 'Hairline (front)'), photo('b', 'temples', 'Temples (sides)'), photo('c', 'crown', 'Crown (top of the head)'), photo('d', 'other', 'Other view')]} earlier={[]} />,
        'fr',
      ),
    );
    const titles = screen.getAllByRole('heading', { level: 3 }).map((h) => h.textContent);
    expect(titles).toEqual(['Ligne frontale (devant)', 'Tempes (côtés)', 'Sommet du crâne (vertex)', 'Other view']);
  });
});
