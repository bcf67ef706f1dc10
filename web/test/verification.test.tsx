// The verification feature's pages: the patient's page (camera capture, the weight upload as
// multipart), the home card of what is missing, and the desk's panel with the warning and signals.
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import VerificationPage from '../src/features/verification/VerificationPage';
import { VerificationMissingCard } from '../src/features/verification/MissingCard';
import { DeskVerificationPanel } from '../src/features/verification/DeskVerificationPanel';
import WeightQueue from '../src/features/verification/WeightQueue';

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

  it('the desk queue shows the photo on the scales and the identity to review, and sends the doctor’s decisions', async () => {
    const weight = { id: '11111111-1111-4111-8111-111111111111', user: { id: '22222222-2222-4222-8222-222222222222', first_name: 'Ada', last_name: 'Lovelace', date_of_birth: '1985-04-12' }, status: 'pending', claimed_weight_kg: 104.5, weight_kg: null, photo_url: '/v1/clinician/weight-verifications/11111111-1111-4111-8111-111111111111/photo/', decided_by: null, decided_at: null, reason: '', created_at: '2026-11-30T10:00:00Z' };
    const identity = { id: '33333333-3333-4333-8333-333333333333', user_id: weight.user.id, provider: 'sandbox', status: 'needs_review', profile: { first_name: 'Ada', last_name: 'Lovelace', date_of_birth: '1985-04-12' }, document: { first_name: 'Ada', last_name: 'Byron', date_of_birth: '1985-04-12', document_type: 'ID_CARD', issuing_country: 'DEU' }, mismatches: ['last_name'], provider_reason: '', images: { id_photo_url: null, selfie_url: null }, duplicate_signals: [], decided_by: null, decision_reason: '', checked_at: '2026-11-30T10:00:00Z', created_at: '2026-11-30T10:00:00Z' };
    const posts: { path: string; body: unknown }[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (input: Request | string, init?: RequestInit) => {
        const req = typeof input === 'string' ? new Request(new URL(input, 'http://localhost').toString(), init) : input;
        const path = new URL(req.url).pathname;
        if (req.method === 'POST') posts.push({ path, body: await req.json() });
        if (path.endsWith('/photo/')) return new Response(new Blob([new Uint8Array([0xff, 0xd8])], { type: 'image/jpeg' }));
        const page = (r: unknown[]) => ({ count: r.length, next: null, previous: null, results: r });
        const body = path === '/v1/clinician/weight-verifications/' ? page([weight]) : path === '/v1/clinician/identity-verifications/' ? page([identity]) : {};
        return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
      }),
    );
    // jsdom has no object URLs: a URL class with them, for this test only (unstubbed after it).
    vi.stubGlobal(
      'URL',
      class extends URL {
        static createObjectURL = () => 'blob:photo';
        static revokeObjectURL = () => undefined;
      },
    );
    render(<WeightQueue />);
    await screen.findByText('Patient typed 104.5 kg');
    await screen.findByText('Differs: last_name');
    const read = screen.getByLabelText('Weight read on the scales (kg)');
    fireEvent.change(read, { target: { value: '104,2' } });
    fireEvent.click(screen.getAllByRole('button', { name: 'Verify' })[0]!);
    await waitFor(() => expect(posts).toContainEqual({ path: `/v1/clinician/weight-verifications/${weight.id}/decide/`, body: { decision: 'verified', weight_kg: 104.2 } }));
    fireEvent.change(screen.getByLabelText('Reason (recorded)'), { target: { value: 'Married name; the birth date matches.' } });
    fireEvent.click(screen.getAllByRole('button', { name: 'Verify' })[1]!);
    await waitFor(() => expect(posts).toContainEqual({ path: `/v1/clinician/identity-verifications/${identity.id}/decide/`, body: { decision: 'verified', reason: 'Married name; the birth date matches.' } }));
  });
});
