// The appointment pages against stand-in API answers: booking shows the slots in the patient's time
// zone and sends the chosen one; an appointment shows its time, and cancels; the call screen says
// plainly when the camera is refused. (Every locale has every string: the strings' type requires it.)
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { I18nProvider, makeI18n } from '../src/i18n';
import { AppointmentDetail, BookAppointment } from '../src/features/appointments/pages';
import { CallView } from '../src/features/appointments/CallView';

const wrap = (node: React.ReactNode) => <I18nProvider value={makeI18n('en')}>{node}</I18nProvider>;
const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

const APPOINTMENT = {
  id: '7d0f1c9e-4a55-4c1b-9f00-2b3c4d5e6f70',
  consultation_id: '1b2c3d4e-5f60-4a7b-8c9d-0e1f2a3b4c5d',
  status: 'booked',
  starts_at: '2026-12-03T10:00:00+05:30',
  ends_at: '2026-12-03T10:15:00+05:30',
  timezone: 'Asia/Kolkata',
  doctor: { id: '2c3d4e5f-6071-4b8c-9d0e-1f2a3b4c5d6e', name: 'Grace Hopper' },
  changeable_until: '2026-12-03T08:00:00+05:30',
  join_opens_at: '2026-12-03T09:50:00+05:30',
  cancelled_by: null,
  mode: null,
  outcome: null,
  created_at: '2026-12-01T10:00:00.000Z',
};

let sent: { method: string; path: string; body: unknown }[] = [];
beforeEach(() => {
  sent = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: Request | string) => {
      const request = typeof input === 'string' ? new Request(new URL(input, 'http://localhost')) : input;
      const url = new URL(request.url);
      const body = request.method === 'POST' ? await request.clone().json().catch(() => null) : null;
      sent.push({ method: request.method, path: url.pathname + url.search, body });
      if (url.pathname === '/v1/users/appointments/slots/')
        return json({ consultation_id: APPOINTMENT.consultation_id, timezone: 'Asia/Kolkata', slot_minutes: 15, slots: [{ starts_at: '2026-12-03T10:00:00+05:30', ends_at: '2026-12-03T10:15:00+05:30' }, { starts_at: '2026-12-03T10:15:00+05:30', ends_at: '2026-12-03T10:30:00+05:30' }] });
      if (url.pathname === '/v1/users/appointments/' && request.method === 'POST') return json(APPOINTMENT, 201);
      if (url.pathname.endsWith('/cancel/')) return json({ ...APPOINTMENT, status: 'cancelled', cancelled_by: 'patient' });
      if (url.pathname === `/v1/users/appointments/${APPOINTMENT.id}/`) return json(APPOINTMENT);
      return json({ detail: 'Not found.' }, 404);
    }),
  );
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('booking a call', () => {
  it('lists the slots in the patient’s time zone and books the chosen one', async () => {
    render(wrap(<BookAppointment consultationId={APPOINTMENT.consultation_id} />));
    await screen.findByText(/Times are shown in your time zone \(Asia\/Kolkata\)/);
    const select = screen.getByLabelText('When') as HTMLSelectElement;
    // Written in the patient's zone (10:00 in Kolkata), whatever the test machine's zone.
    expect([...select.options].map((o) => o.textContent).join(' ')).toMatch(/10:00/);
    fireEvent.change(select, { target: { value: '2026-12-03T10:15:00+05:30' } });
    fireEvent.click(screen.getByRole('button', { name: 'Book a call' }));
    await waitFor(() => expect(sent.some((s) => s.method === 'POST' && s.path === '/v1/users/appointments/')).toBe(true));
    expect(sent.find((s) => s.method === 'POST')!.body).toEqual({ consultation_id: APPOINTMENT.consultation_id, starts_at: '2026-12-03T10:15:00+05:30' });
  });
});

describe('an appointment', () => {
  it('shows its time and status, offers to join, and cancels', async () => {
    render(wrap(<AppointmentDetail id={APPOINTMENT.id} />));
    await screen.findByTestId('appointment-when');
    expect(screen.getByTestId('appointment-when').textContent).toMatch(/10:00/);
    expect(screen.getByTestId('appointment-status').textContent).toBe('Booked');
    expect(screen.getByTestId('join')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Cancel the call' }));
    await screen.findByText('The call is cancelled.');
    expect(screen.getByTestId('appointment-status').textContent).toBe('Cancelled');
    expect(sent.some((s) => s.method === 'POST' && s.path === `/v1/users/appointments/${APPOINTMENT.id}/cancel/`)).toBe(true);
  });
});

describe('the call screen', () => {
  it('asks plainly for the camera and microphone when they are refused, and never joins', async () => {
    vi.stubGlobal('navigator', { ...navigator, mediaDevices: { getUserMedia: () => Promise.reject(new DOMException('denied', 'NotAllowedError')) } });
    const join = vi.fn();
    render(wrap(<CallView join={join} />));
    await waitFor(() => expect(screen.getByTestId('call').getAttribute('data-state')).toBe('permission'));
    expect(screen.getAllByText('Please allow the camera and microphone to join the call.').length).toBeGreaterThan(0);
    expect(join).not.toHaveBeenCalled();
  });
});
