// The footer on every page (the cancel link in every locale, the EU distance-selling logo linking
// to the register entry) and the public cancellation page (§ 312k BGB). No network: fetch is stubbed.
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Footer } from '../src/features/compliance/Footer';
import { PUBLIC_STRINGS as FOOTER } from '../src/features/compliance/footer-strings';
import { CancelPage } from '../src/features/compliance/pages';
import { PUBLIC_STRINGS as PAGES } from '../src/features/compliance/strings';
import { I18nProvider, LOCALES, makeI18n, type Locale } from '../src/i18n';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const SITE = {
  distance_selling: { register_url: 'https://register.example.de/versandapotheke/42', pharmacy_name: 'Beispiel-Apotheke', country: 'DEU' },
  imprint: { name: 'Example GmbH', address: ['Street 1'], country: 'DEU', vat_id: null, email: null, phone: null, representative: null, register: null, supervisory_authority: null, professional_rules: null },
  accessibility: { contact_email: null },
  price_change_notice_days: 30,
};

function network(routes: Record<string, { status: number; body: unknown }>) {
  const calls: { url: string; method: string; body: unknown }[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (request: Request) => {
      const text = await request.text();
      calls.push({ url: request.url, method: request.method, body: text ? JSON.parse(text) : null });
      const path = new URL(request.url, 'http://x').pathname;
      const r = routes[path] ?? { status: 404, body: { detail: 'Not found.' } };
      return new Response(JSON.stringify(r.body), { status: r.status, headers: { 'content-type': 'application/json' } });
    }),
  );
  return calls;
}

const inLocale = (locale: Locale, node: React.ReactNode) => render(<I18nProvider value={makeI18n(locale)}>{node}</I18nProvider>);

describe('the footer', () => {
  it('offers the cancellation in every locale ("Verträge hier kündigen" in German) and links the EU logo to the register entry', async () => {
    expect(FOOTER.de.cancel).toBe('Verträge hier kündigen');
    expect(PAGES.de['cancel.submit']).toBe('Jetzt kündigen');
    for (const locale of LOCALES) {
      network({ '/v1/public/site/': { status: 200, body: SITE } });
      inLocale(locale, <Footer />);
      const link = screen.getByRole('link', { name: FOOTER[locale].cancel });
      expect(link.getAttribute('href')).toBe('/cancel');
      for (const k of ['doctors', 'accessibility', 'imprint'] as const) expect(screen.getByRole('link', { name: FOOTER[locale][k] })).toBeTruthy();
      // Its name starts with the visible text (WCAG 2.5.3) and names the pharmacy.
      const logo = await screen.findByRole('link', { name: (n) => n.startsWith(FOOTER[locale].logoText) && n.includes('Beispiel-Apotheke') }, { timeout: 5000 });
      expect(logo.getAttribute('href')).toBe(SITE.distance_selling.register_url);
      expect(logo.textContent).toContain(FOOTER[locale].logoText);
      cleanup();
    }
  });
});

describe('the cancellation page', () => {
  it('asks name, e-mail, plan, kind and date without a password, and shows the same answer', async () => {
    const calls = network({
      '/v1/users/questionnaires/categories/': { status: 200, body: { locale: 'de', categories: [{ slug: 'weight_loss', title: 'Gewichtsabnahme', description: '', price_from: { currency: 'EUR', one_off_cents: 1, plan_cents: null } }] } },
      '/v1/public/cancel/': { status: 202, body: { detail: 'same for everyone' } },
    });
    inLocale('de', <CancelPage />);
    expect(screen.queryByLabelText(/Passwort/)).toBeNull();
    fireEvent.change(screen.getByLabelText(PAGES.de['cancel.name']), { target: { value: 'Ada Lovelace' } });
    fireEvent.change(screen.getByLabelText(PAGES.de['cancel.email']), { target: { value: 'ada@example.org' } });
    await screen.findByRole('option', { name: 'Gewichtsabnahme' });
    fireEvent.change(screen.getByLabelText(PAGES.de['cancel.plan']), { target: { value: 'weight_loss' } });
    // The reason field appears with the extraordinary kind, and is required for it (§ 312k (2) 1 b BGB).
    expect(screen.queryByLabelText(PAGES.de['cancel.reason'])).toBeNull();
    fireEvent.click(screen.getByLabelText(PAGES.de['cancel.extraordinary']));
    fireEvent.change(screen.getByLabelText(PAGES.de['cancel.date']), { target: { value: '2026-12-31' } });
    fireEvent.click(screen.getByRole('button', { name: 'Jetzt kündigen' }));
    expect(screen.getByLabelText(PAGES.de['cancel.reason']).getAttribute('aria-invalid')).toBe('true');
    expect(calls.filter((c) => c.method === 'POST')).toEqual([]);
    fireEvent.change(screen.getByLabelText(PAGES.de['cancel.reason']), { target: { value: 'Umzug ins Ausland' } });
    fireEvent.click(screen.getByRole('button', { name: 'Jetzt kündigen' }));
    await waitFor(() => expect(screen.getByText(PAGES.de['cancel.done'])).toBeTruthy());
    const post = calls.find((c) => c.method === 'POST')!;
    expect(post.url).toMatch(/\/v1\/public\/cancel\/$/);
    expect(post.body).toEqual({ name: 'Ada Lovelace', email: 'ada@example.org', plan: 'weight_loss', kind: 'extraordinary', date: '2026-12-31', reason: 'Umzug ins Ausland' });
  });

  it('an ordinary cancellation sends no reason', async () => {
    const calls = network({ '/v1/users/questionnaires/categories/': { status: 200, body: { locale: 'en', categories: [] } }, '/v1/public/cancel/': { status: 202, body: { detail: 'same' } } });
    inLocale('en', <CancelPage />);
    fireEvent.change(screen.getByLabelText(PAGES.en['cancel.name']), { target: { value: 'Ada Lovelace' } });
    fireEvent.change(screen.getByLabelText(PAGES.en['cancel.email']), { target: { value: 'ada@example.org' } });
    fireEvent.change(screen.getByLabelText(PAGES.en['cancel.date']), { target: { value: '2026-12-31' } });
    fireEvent.click(screen.getByRole('button', { name: 'Cancel now' }));
    await waitFor(() => expect(screen.getByText(PAGES.en['cancel.done'])).toBeTruthy());
    expect(calls.find((c) => c.method === 'POST')!.body).toEqual({ name: 'Ada Lovelace', email: 'ada@example.org', plan: 'all', kind: 'ordinary', date: '2026-12-31' });
  });

  it('ties a missing field to its input without calling the service', () => {
    const calls = network({});
    inLocale('en', <CancelPage />);
    fireEvent.click(screen.getByRole('button', { name: 'Cancel now' }));
    expect(screen.getByLabelText(PAGES.en['cancel.name']).getAttribute('aria-invalid')).toBe('true');
    expect(calls.filter((c) => c.method === 'POST')).toEqual([]);
  });
});
