// The letters to the patient's own doctor on the profile page (docs/interoperability.md): the list
// says where and when each letter went, in the patient's language; every locale has every string.
// No network: fetch is replaced by a recorder that answers per route.
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import GpLetters from '../src/features/gp/GpLetters';
import { GP_TEXT } from '../src/features/gp/strings';
import { I18nProvider, LOCALES, makeI18n } from '../src/i18n';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

function serve(results: unknown[]) {
  const paths: string[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (request: Request) => {
      const path = new URL(request.url).pathname;
      paths.push(path);
      const body = path === '/v1/users/me/gp-letters/' ? { count: results.length, next: null, previous: null, results } : { detail: 'Not found.' };
      return new Response(JSON.stringify(body), { status: path === '/v1/users/me/gp-letters/' ? 200 : 404, headers: { 'content-type': 'application/json' } });
    }),
  );
  return paths;
}

const letter = (over: Record<string, unknown> = {}) => ({
  id: '11111111-1111-4111-8111-111111111111',
  consultation_id: '22222222-2222-4222-8222-222222222222',
  status: 'sent',
  created_at: '2026-12-01T09:00:00Z',
  sent_at: '2026-12-01T09:01:00Z',
  recipient: 'praxis@gp.example.org',
  url: 'https://api.example.org/v1/users/me/gp-letters/11111111-1111-4111-8111-111111111111/pdf/',
  ...over,
});

describe('letters to my own doctor', () => {
  it('lists the sent and queued letters with their recipient, in German', async () => {
    const paths = serve([letter(), letter({ id: '33333333-3333-4333-8333-333333333333', status: 'queued', sent_at: null })]);
    render(
      <I18nProvider value={makeI18n('de')}>
        <GpLetters />
      </I18nProvider>,
    );
    expect(await screen.findByText(/Am .* an praxis@gp\.example\.org gesendet/)).toBeTruthy();
    expect(screen.getByText(/Wird an praxis@gp\.example\.org gesendet/)).toBeTruthy();
    expect(screen.getAllByRole('button', { name: 'Herunterladen (PDF)' })).toHaveLength(2);
    expect(paths).toContain('/v1/users/me/gp-letters/');
  });

  it('says when there is none yet', async () => {
    serve([]);
    render(
      <I18nProvider value={makeI18n('en')}>
        <GpLetters />
      </I18nProvider>,
    );
    expect(await screen.findByText('No letters yet.')).toBeTruthy();
  });

  it('has every string in every locale, placeholders kept', () => {
    const keys = Object.keys(GP_TEXT.en).sort();
    for (const l of LOCALES) {
      expect(Object.keys(GP_TEXT[l]).sort(), l).toEqual(keys);
      expect(GP_TEXT[l].letterSent, l).toContain('{to}');
      expect(GP_TEXT[l].letterSent, l).toContain('{date}');
      expect(GP_TEXT[l].letterQueued, l).toContain('{to}');
    }
  });
});
