// The profile's own-doctor section (docs/profile.md): it saves the GP with PATCH /v1/users/profile/me/
// and shows the server's field errors under their fields. No network: fetch answers per request.
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Schemas } from '../src/api/client';
import OwnDoctor from '../src/features/gp/OwnDoctor';
import { I18nProvider, makeI18n } from '../src/i18n';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const profile = { id: 'p', email: 'a@example.org', gp: null } as unknown as Schemas['Profile'];
const GP = { name: 'Dr. Hanna Weber', practice: 'Praxis am Markt', address: 'Marktplatz 1', email: 'praxis@weber.example' };

function renderWith(answer: (body: unknown) => { status: number; body: unknown }) {
  const sent: unknown[] = [];
  vi.stubGlobal('fetch', async (request: Request) => {
    const body = await request.json();
    sent.push({ method: request.method, path: new URL(request.url, 'http://x').pathname, body });
    const a = answer(body);
    return new Response(JSON.stringify(a.body), { status: a.status, headers: { 'content-type': 'application/json' } });
  });
  const onSaved = vi.fn();
  render(
    <I18nProvider value={makeI18n('en')}>
      <OwnDoctor profile={profile} onSaved={onSaved} />
    </I18nProvider>,
  );
  return { sent, onSaved };
}

const fill = (label: string, value: string) => fireEvent.change(screen.getByLabelText(new RegExp(`^${label}`)), { target: { value } });

describe('own doctor', () => {
  it('saves the doctor with a PATCH of gp', async () => {
    const { sent, onSaved } = renderWith(() => ({ status: 200, body: { ...profile, gp: GP } }));
    fill('Doctor’s name', GP.name);
    fill('Practice', GP.practice);
    fill('Address', GP.address);
    fill('E-mail of the practice', GP.email);
    fireEvent.click(screen.getByRole('button', { name: 'Save my doctor' }));
    await waitFor(() => expect(onSaved).toHaveBeenCalled());
    expect(sent).toEqual([{ method: 'PATCH', path: '/v1/users/profile/me/', body: { gp: GP } }]);
    expect(screen.getByText('Saved.')).toBeTruthy();
  });

  it('shows the server’s field errors', async () => {
    renderWith(() => ({ status: 400, body: { 'gp.email': ['Enter a valid e-mail address.'] } }));
    fill('Doctor’s name', GP.name);
    fill('E-mail of the practice', 'praxis@weber.example');
    fireEvent.click(screen.getByRole('button', { name: 'Save my doctor' }));
    await waitFor(() => expect(screen.getByText('Enter a valid e-mail address.')).toBeTruthy());
  });
});
