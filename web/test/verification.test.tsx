// The verification feature's pages: the patient's page (camera capture, the weight upload as
// multipart), the home card of what is missing, and the desk's panel with the warning and signals.
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import VerificationPage from '../src/features/verification/VerificationPage';
import { VerificationMissingCard } from '../src/features/verification/MissingCard';
import { DeskVerificationPanel } from '../src/features/verification/DeskVerificationPanel';

const status = {
  identity: { status: 'not_started', checked_at: null },
  weight: { status: 'not_started', weight_kg: null, verified_at: null, due_at: null },
  requirements: [
    { category: 'weight_loss', required: ['identity', 'weight'], missing: ['identity', 'weight'] },
    { category: 'hair_growth', required: ['identity'], missing: ['identity'] },
  ],
};

const calls: { path: string; method: string; form: FormData | null }[] = [];
/** openapi-fetch calls fetch(Request); the multipart upload calls fetch(url, init). */
function stubFetch(answer: (path: string, method: string) => unknown) {
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: Request | string, init?: RequestInit) => {
      const req = typeof input === 'string' ? new Request(new URL(input, 'http://localhost').toString(), init) : input;
      const path = new URL(req.url).pathname;
      const multipart = req.headers.get('content-type')?.startsWith('multipart/form-data') ?? false;
      calls.push({ path, method: req.method, form: multipart ? await req.formData() : null });
      return new Response(JSON.stringify(answer(path, req.method)), { status: path.endsWith('/weight/') ? 201 : 200, headers: { 'content-type': 'application/json' } });
    }),
  );
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  calls.length = 0;
});

describe('verification pages', () => {
  it('the patient page offers the cameras and sends the photo on the scales as multipart', async () => {
    stubFetch((path) => (path.endsWith('/weight/') ? { id: 'w1', status: 'pending' } : status));
    render(<VerificationPage />);
    const photo = await screen.findByLabelText('Photo on the scales');
    expect(photo.getAttribute('capture')).toBe('environment');
    expect(screen.getByRole('button', { name: 'Verify my identity' })).toBeTruthy();
    const file = new File([new Uint8Array([0xff, 0xd8, 0xff])], 'scales.jpg', { type: 'image/jpeg' });
    fireEvent.change(photo, { target: { files: [file] } });
    fireEvent.change(screen.getByLabelText('Weight on the scales (kg)'), { target: { value: '104.5' } });
    fireEvent.click(screen.getByRole('button', { name: 'Send for checking' }));
    await screen.findByText('Sent. A doctor will check the photo.');
    const sent = calls.find((c) => c.path === '/v1/users/verification/weight/');
    expect(sent?.method).toBe('POST');
    expect(sent?.form?.get('weight_kg')).toBe('104.5');
    expect((sent?.form?.get('file') as File).name).toBe('scales.jpg');
  });

  it('the home card lists what is missing in the patient’s categories only, with a link', async () => {
    stubFetch(() => status);
    render(<VerificationMissingCard categories={['hair_growth']} />);
    await screen.findByText('Verify your identity');
    expect(screen.queryByText('Send a photo on the scales')).toBeNull();
    expect(screen.getByRole('link', { name: 'Go to verification' }).getAttribute('href')).toBe('/verification');
  });

  it('the desk panel warns about what is missing and shows duplicate signals', async () => {
    render(
      <DeskVerificationPanel
        verification={{
          mode: 'required',
          required: ['identity', 'weight'],
          missing: ['weight'],
          warning: 'Approval is blocked until the patient completes: weight.',
          identity: { status: 'verified', checked_at: '2026-11-01T10:00:00Z', id: null, mismatches: [] },
          weight: { status: 'pending', weight_kg: null, verified_at: null, due_at: null },
          duplicate_signals: [{ kind: 'card', account_ids: ['0b6c2a39-4a0e-4a43-9d1f-1b2f3c4d5e6f'] }],
        }}
      />,
    );
    await waitFor(() => expect(screen.getByText(/Approval is blocked/)).toBeTruthy());
    expect(screen.getByText(/Missing: Verified weight/)).toBeTruthy();
    expect(screen.getByText(/payment card: 1/)).toBeTruthy();
  });
});
