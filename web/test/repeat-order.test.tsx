// The patient's "Order a repeat" on a prescription (docs/prescriptions.md, "Repeats"), against
// stand-in API answers: offered when a repeat is left, the first supply was dispensed and the interval
// passed; the next date instead before the interval; nothing when none is left, the prescription
// expired or its first supply still waits; ordering goes to the provider's page and comes back to the
// app's checkout return page; a refusal is explained.
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { I18nProvider, makeI18n, type Locale } from '../src/i18n';
import { PrescriptionSignatureLine } from '../src/features/signature/PrescriptionSignatureLine';
import { repeatOffer } from '../src/features/signature/RepeatOrder';

const wrap = (node: React.ReactNode, locale: Locale = 'en') => <I18nProvider value={makeI18n(locale)}>{node}</I18nProvider>;
const RX = '11111111-2222-4333-8444-555555555555';
const DAY = 24 * 3600 * 1000;
const future = (days: number) => new Date(Date.now() + days * DAY).toISOString();

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  localStorage.clear();
});

type Handler = (body: unknown) => [number, unknown];
function stubApi(routes: Record<string, Handler>) {
  const sent: { key: string; body: unknown }[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (req: Request) => {
      const key = `${req.method} ${new URL(req.url).pathname}`;
      const body = req.method === 'GET' ? undefined : await req.clone().json().catch(() => undefined);
      sent.push({ key, body });
      const route = routes[key];
      const [status, out] = route ? route(body) : [404, { detail: 'Not found.' }];
      return new Response(JSON.stringify(out), { status, headers: { 'content-type': 'application/json' } });
    }),
  );
  return sent;
}

const rx = (dispensing: Record<string, unknown>, over: Record<string, unknown> = {}) => ({
  id: RX,
  status: 'active',
  valid_until: future(150),
  signature: null,
  dispensing: { status: 'partly_dispensed', pharmacy: { id: null, name: 'Apotheke am Markt' }, dispensed_at: '2026-11-02T09:00:00Z', dispensings_allowed: 3, dispensed_count: 1, repeats_used: 0, repeats_left: 2, repeat_interval_days: 30, next_dispensing_from: null, ...dispensing },
  ...over,
});

describe('when a repeat is offered', () => {
  const now = new Date();
  it('only with a repeat left, the first supply dispensed, still valid and not cancelled; the date while the interval runs', () => {
    expect(repeatOffer(rx({}), now)).toEqual({ kind: 'order' });
    const next = future(3);
    expect(repeatOffer(rx({ next_dispensing_from: next }), now)).toEqual({ kind: 'wait', from: next });
    expect(repeatOffer(rx({ next_dispensing_from: future(-1) }), now)).toEqual({ kind: 'order' });
    expect(repeatOffer(rx({ repeats_left: 0 }), now)).toBeNull();
    expect(repeatOffer(rx({ dispensed_count: 0 }), now)).toBeNull();
    expect(repeatOffer(rx({ dispensings_allowed: 1, repeats_left: 0 }), now)).toBeNull();
    expect(repeatOffer(rx({}, { valid_until: future(-1) }), now)).toBeNull();
    expect(repeatOffer(rx({}, { status: 'cancelled' }), now)).toBeNull();
  });
});

describe("the patient's prescription page", () => {
  it('orders a repeat through the provider page, back to the checkout return page', async () => {
    const assign = vi.fn();
    vi.stubGlobal('location', { ...window.location, origin: 'http://localhost', assign });
    const sent = stubApi({
      [`GET /v1/users/prescriptions/${RX}/`]: () => [200, rx({})],
      [`POST /v1/users/prescriptions/${RX}/repeat-orders/`]: () => [200, { kind: 'repeat_supply', prescription_id: RX, checkout_url: 'http://localhost/sandbox/checkout/cs_1/', session_id: 'cs_1', provider: 'sandbox', treatment_id: 'finasteride', dosage: '1 mg', amount_cents: 2900, currency: 'EUR', supply_days: 30, repeats_left: 2, expires_at: future(1) }],
    });
    render(wrap(<PrescriptionSignatureLine id={RX} />));
    fireEvent.click(await screen.findByRole('button', { name: 'Order a repeat' }));
    await vi.waitFor(() => expect(assign).toHaveBeenCalledWith('http://localhost/sandbox/checkout/cs_1/'));
    const post = sent.find((s) => s.key === `POST /v1/users/prescriptions/${RX}/repeat-orders/`);
    expect(post?.body).toEqual({ success_url: 'http://localhost/checkout/return?session_id={CHECKOUT_SESSION_ID}', cancel_url: 'http://localhost/checkout/return?session_id={CHECKOUT_SESSION_ID}&cancelled=1' });
    expect(localStorage.getItem('pts.checkout.provider')).toBe('sandbox');
  });

  it('shows the next date instead of the button while the interval runs (German)', async () => {
    stubApi({ [`GET /v1/users/prescriptions/${RX}/`]: () => [200, rx({ next_dispensing_from: '2099-01-05T09:00:00Z' })] });
    render(wrap(<PrescriptionSignatureLine id={RX} />, 'de'));
    const next = await screen.findByTestId('rx-repeat-next');
    expect(next.textContent).toMatch(/Die nächste Folgeabgabe können Sie ab .*2099.* bestellen/);
    expect(screen.queryByRole('button', { name: 'Folgeabgabe bestellen' })).toBeNull();
  });

  it('explains a refusal: a supply still with the pharmacy links to the orders', async () => {
    stubApi({
      [`GET /v1/users/prescriptions/${RX}/`]: () => [200, rx({})],
      [`POST /v1/users/prescriptions/${RX}/repeat-orders/`]: () => [409, { detail: 'waiting', code: 'repeat_order_open', order_id: '99999999-2222-4333-8444-555555555555' }],
    });
    render(wrap(<PrescriptionSignatureLine id={RX} />));
    fireEvent.click(await screen.findByRole('button', { name: 'Order a repeat' }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('still with the pharmacy');
    expect(screen.getByRole('link', { name: 'View your orders' }).getAttribute('href')).toBe('/orders');
  });

  it('offers nothing once no repeat is left', async () => {
    stubApi({ [`GET /v1/users/prescriptions/${RX}/`]: () => [200, rx({ status: 'dispensed', dispensed_count: 3, repeats_used: 2, repeats_left: 0 })] });
    render(wrap(<PrescriptionSignatureLine id={RX} />));
    await screen.findByTestId('rx-patient-signature');
    expect(screen.queryByTestId('rx-repeat-order')).toBeNull();
    expect(screen.queryByTestId('rx-repeat-next')).toBeNull();
  });
});
