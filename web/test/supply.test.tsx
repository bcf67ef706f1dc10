// Supply in the web app against stand-in API answers (no network): the pharmacy desk's deliver,
// undeliverable and reship buttons by status, the collection choice at checkout/renewal, and the
// patient's reissue requests (list, request form, pending state).
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FulfilmentPicker } from '../src/components/Supply';
import { Orders, Prescriptions } from '../src/pages/patient';
import { PharmacyDesk } from '../src/pages/pharmacy';
import { page, serve, wrap } from './support/serve';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const pharmacy = { id: '00000000-0000-4000-8000-0000000000a1', name: 'Apotheke am Markt', address_line: 'Marktplatz 3', postal_code: '10115', city: 'Berlin', country: 'DEU', opening_hours: [], click_and_collect: true, delivery: false };

function order(over: Record<string, unknown> = {}) {
  return {
    id: '00000000-0000-4000-8000-000000000011',
    status: 'awaiting_fulfilment',
    patient: { first_name: 'Ada', last_name: 'Test' },
    shipping_address: { street: 'Hauptstr. 1', postal_code: '10115', city: 'Berlin' },
    items: [{ treatment_id: 'minoxidil', name: 'Minoxidil', dosage: '5%', quantity: 1, supply_days: 30 }],
    prescription: null,
    dispensing: null,
    carrier: null,
    tracking_number: null,
    tracking_url: null,
    shipped_at: null,
    delivered_at: null,
    undeliverable_reason: null,
    undeliverable_at: null,
    fulfilment: { method: 'delivery', pharmacy: null },
    attempt: 1,
    previous_attempts: [],
    refunded_at: null,
    created_at: '2026-11-20T10:00:00Z',
    updated_at: '2026-11-20T10:00:00Z',
    ...over,
  };
}

describe('pharmacy desk', () => {
  it('a queued collection order names its pharmacy and can be marked undeliverable with a reason', async () => {
    const queued = order({ fulfilment: { method: 'collection', pharmacy } });
    const sent = serve({
      'GET /v1/pharmacy/orders/': () => [200, page([queued])],
      'POST /v1/pharmacy/orders/': () => [200, order({ status: 'undeliverable', undeliverable_reason: 'Returned to sender.' })],
    });
    render(wrap(<PharmacyDesk />));
    await screen.findByText('Apotheke am Markt, Marktplatz 3, 10115 Berlin');
    expect(screen.getByText('Collect at pharmacy')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Mark delivered' })).toBeNull(); // not shipped yet
    expect(screen.queryByRole('button', { name: 'Reship' })).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Mark undeliverable' }));
    fireEvent.change(screen.getByLabelText('Reason (returned, address unknown…)'), { target: { value: 'Returned to sender.' } });
    fireEvent.submit(screen.getByRole('form', { name: 'Mark undeliverable 00000000' }));
    await screen.findByText('Marked undeliverable: the patient has been emailed.');
    const post = sent.find((s) => s.key.endsWith('/undeliverable/'));
    expect(post?.key).toBe(`POST /v1/pharmacy/orders/${queued.id}/undeliverable/`);
    expect(post?.body).toEqual({ reason: 'Returned to sender.' });
    // The undeliverable order stays on the page with its next move: reship.
    await screen.findByRole('button', { name: 'Reship' });
  });

  it('an order opened by id shows the moves of its status: deliver when shipped, reship when undeliverable, none once refunded', async () => {
    const id = '00000000-0000-4000-8000-000000000022';
    let current = order({ id, status: 'shipped', carrier: 'DHL', tracking_number: 'T1', shipped_at: '2026-11-21T10:00:00Z' });
    const sent = serve({
      'GET /v1/pharmacy/orders/?': () => [200, page([])],
      [`GET /v1/pharmacy/orders/${id}/`]: () => [200, current],
      'GET /v1/pharmacy/orders/': () => [200, page([])],
      [`POST /v1/pharmacy/orders/${id}/deliver/`]: () => [200, (current = order({ id, status: 'delivered', delivered_at: '2026-11-22T10:00:00Z' }))],
    });
    render(wrap(<PharmacyDesk />));
    await screen.findByText('No orders are waiting.');
    fireEvent.change(screen.getByLabelText('Order id'), { target: { value: id } });
    fireEvent.submit(screen.getByRole('form', { name: 'Open an order by its id' }));
    fireEvent.click(await screen.findByRole('button', { name: 'Mark delivered' }));
    await screen.findByText('Marked delivered.');
    expect(sent.some((s) => s.key === `POST /v1/pharmacy/orders/${id}/deliver/`)).toBe(true);
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Mark delivered' })).toBeNull());
    cleanup();

    const back = '00000000-0000-4000-8000-000000000033';
    const refunded = '00000000-0000-4000-8000-000000000044';
    const sent2 = serve({
      'GET /v1/pharmacy/orders/': (_b, url) => {
        if (url.pathname.endsWith(`${back}/`)) return [200, order({ id: back, status: 'undeliverable', undeliverable_reason: 'Refused.' })];
        if (url.pathname.endsWith(`${refunded}/`)) return [200, order({ id: refunded, status: 'undeliverable', undeliverable_reason: 'Refused.', refunded_at: '2026-11-23T10:00:00Z', patient: { first_name: 'Bea', last_name: 'Test' } })];
        return [200, page([])];
      },
      [`POST /v1/pharmacy/orders/${back}/reship/`]: () => [200, order({ id: back, attempt: 2 })],
    });
    render(wrap(<PharmacyDesk />));
    await screen.findByText('No orders are waiting.');
    for (const x of [refunded, back]) {
      fireEvent.change(screen.getByLabelText('Order id'), { target: { value: x } });
      fireEvent.submit(screen.getByRole('form', { name: 'Open an order by its id' }));
      await screen.findByRole('listitem', { name: new RegExp(x.slice(0, 8)) });
    }
    expect(screen.getByText('Refunded: it cannot be reshipped.')).toBeTruthy();
    expect(screen.getAllByRole('button', { name: 'Reship' })).toHaveLength(1); // only the unrefunded one
    fireEvent.click(screen.getByRole('button', { name: 'Reship' }));
    await screen.findByText('Back in the queue as a new attempt: the patient has been emailed.');
    expect(sent2.filter((s) => s.key.endsWith('/reship/')).map((s) => s.key)).toEqual([`POST /v1/pharmacy/orders/${back}/reship/`]);
    expect(await screen.findByText(/Sent again \(attempt 2\)/)).toBeTruthy();
  });
});

describe('collection choice', () => {
  it('delivery by default; choosing collection lists nearby click-and-collect pharmacies and reports the chosen one', async () => {
    const sent = serve({ 'GET /v1/users/pharmacies/': () => [200, page([{ ...pharmacy, match: 'postal_code' }])] });
    const onChange = vi.fn();
    render(wrap(<FulfilmentPicker value={undefined} onChange={onChange} />));
    expect((screen.getByRole('radio', { name: 'Delivery to my address' }) as HTMLInputElement).checked).toBe(true);
    expect(sent).toHaveLength(0); // nothing is loaded until collection is chosen
    fireEvent.click(screen.getByRole('radio', { name: 'Collect at a nearby pharmacy' }));
    fireEvent.click(await screen.findByRole('radio', { name: /Apotheke am Markt/ }));
    expect(onChange).toHaveBeenLastCalledWith({ method: 'collection', pharmacy_id: pharmacy.id });
    expect(sent[0]?.url.searchParams.get('service')).toBe('click_and_collect');
    expect(sent[0]?.url.searchParams.get('near')).toBe('profile');
    fireEvent.click(screen.getByRole('radio', { name: 'Delivery to my address' }));
    expect(onChange).toHaveBeenLastCalledWith(undefined);
  });

  it('a profile without postal code or city is told to add one', async () => {
    serve({ 'GET /v1/users/pharmacies/': () => [400, { near: ['Add your postal code or city.'] }] });
    render(wrap(<FulfilmentPicker value={undefined} onChange={() => undefined} />));
    fireEvent.click(screen.getByRole('radio', { name: 'Collect at a nearby pharmacy' }));
    await screen.findByText('Add your postal code or city to your profile to see nearby pharmacies.');
  });

  it('the orders page says where to collect', async () => {
    serve({ 'GET /v1/users/orders/': () => [200, [{ ...order({ fulfilment: { method: 'collection', pharmacy } }), consultation_id: null, prescription_id: null }]] });
    render(wrap(<Orders />));
    await screen.findByText('Collect at: Apotheke am Markt, Marktplatz 3, 10115 Berlin');
  });
});

describe('reissue requests', () => {
  const rx = (over: Record<string, unknown> = {}) => ({
    id: '00000000-0000-4000-8000-0000000000b1',
    consultation_id: '00000000-0000-4000-8000-0000000000c1',
    category: 'hair_growth',
    treatment_id: 'minoxidil',
    treatment_name: 'Minoxidil',
    dosage: '5%',
    instructions: '',
    supply_days: 30,
    issued_at: '2026-10-01T10:00:00Z',
    valid_until: '2099-04-01T10:00:00Z',
    reissued_from: null,
    doctor: { id: '00000000-0000-4000-8000-0000000000d1', first_name: 'Doc', last_name: 'Tor', doctor_license_number: null },
    pdf_url: 'http://localhost/v1/users/prescriptions/x/pdf/',
    ...over,
  });

  it('lists requests, asks for a reason, sends it, then shows the pending state; an expired prescription offers nothing', async () => {
    const valid = rx();
    const expired = rx({ id: '00000000-0000-4000-8000-0000000000b2', treatment_name: 'Finasteride', dosage: '1 mg', valid_until: '2020-01-01T00:00:00Z' });
    const requests: unknown[] = [
      { id: 'r0', prescription_id: expired.id, status: 'declined', reason: 'Lost', decision_reason: 'A new consultation is needed.', new_prescription_id: null, decided_at: '2026-10-03T10:00:00Z', created_at: '2026-10-02T10:00:00Z' },
    ];
    const sent = serve({
      'GET /v1/users/prescriptions/reissue-requests/': () => [200, page(requests)],
      // The list only: each prescription's own GET (its signature line) is not served here.
      'GET /v1/users/prescriptions/': (_b, url) => (url.pathname === '/v1/users/prescriptions/' ? [200, page([valid, expired])] : [404, { detail: 'Not found.' }]),
      'POST /v1/users/prescriptions/': (body) => {
        const made = { id: 'r1', prescription_id: valid.id, status: 'pending', reason: (body as { reason: string }).reason, decision_reason: null, new_prescription_id: null, decided_at: null, created_at: '2026-11-25T10:00:00Z' };
        requests.unshift(made);
        return [201, made];
      },
    });
    render(wrap(<Prescriptions />));
    await screen.findByText('Declined: A new consultation is needed.');
    expect(screen.getByText('Not approved')).toBeTruthy();
    expect(screen.getAllByRole('button', { name: 'Request a reissue' })).toHaveLength(1); // the valid one only
    fireEvent.click(screen.getByRole('button', { name: 'Request a reissue' }));
    fireEvent.change(screen.getByLabelText('Why do you need it again?'), { target: { value: 'Lost the paper copy.' } });
    fireEvent.submit(screen.getByRole('form', { name: 'Request a reissue' }));
    // Pending on the prescription (no button any more) and in the list of requests.
    await waitFor(() => expect(screen.getAllByText('Reissue requested: waiting for a doctor')).toHaveLength(2));
    const post = sent.find((s) => s.key.startsWith('POST'));
    expect(post).toMatchObject({ key: `POST /v1/users/prescriptions/${valid.id}/reissue-requests/`, body: { reason: 'Lost the paper copy.' } });
    expect(screen.queryByRole('button', { name: 'Request a reissue' })).toBeNull();
    expect(screen.getByText(/Prescription Minoxidil 5%/)).toBeTruthy();
  });

  it('a request already pending (409) is said plainly', async () => {
    serve({
      'GET /v1/users/prescriptions/reissue-requests/': () => [200, page([])],
      'GET /v1/users/prescriptions/': (_b, url) => (url.pathname === '/v1/users/prescriptions/' ? [200, page([rx()])] : [404, { detail: 'Not found.' }]),
      'POST /v1/users/prescriptions/': () => [409, { detail: 'x', code: 'reissue_request_pending' }],
    });
    render(wrap(<Prescriptions />));
    fireEvent.click(await screen.findByRole('button', { name: 'Request a reissue' }));
    fireEvent.change(screen.getByLabelText('Why do you need it again?'), { target: { value: 'Damaged.' } });
    fireEvent.submit(screen.getByRole('form', { name: 'Request a reissue' }));
    await screen.findByText('A request for this prescription is already waiting.');
  });
});
