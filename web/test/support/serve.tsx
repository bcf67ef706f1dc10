// Stand-in API answers for page tests (no network): fetch is replaced by a function that answers by
// method and path prefix (the longest matching key wins) and records what the page sent.
import { vi } from 'vitest';
import { I18nProvider, makeI18n } from '../../src/i18n';

export type Route = (body: unknown, url: URL) => [number, unknown];

export function serve(routes: Record<string, Route>) {
  const sent: { key: string; body: unknown; url: URL }[] = [];
  const byLength = Object.entries(routes).sort(([a], [b]) => b.length - a.length);
  vi.stubGlobal(
    'fetch',
    vi.fn(async (req: Request) => {
      const url = new URL(req.url);
      const key = `${req.method} ${url.pathname}`;
      const text = req.method === 'GET' ? '' : await req.clone().text();
      const body = text ? JSON.parse(text) : undefined;
      sent.push({ key, body, url });
      const route = byLength.find(([k]) => key.startsWith(k));
      const [status, out] = route ? route[1](body, url) : [404, { detail: 'Not found.' }];
      return new Response(JSON.stringify(out), { status, headers: { 'content-type': 'application/json' } });
    }),
  );
  return sent;
}

export const wrap = (node: React.ReactNode, locale: 'en' | 'de' = 'en') => <I18nProvider value={makeI18n(locale)}>{node}</I18nProvider>;
/** A list answer of the API holding `results` on one page. */
export const page = (results: unknown[]) => ({ count: results.length, next: null, previous: null, results });
