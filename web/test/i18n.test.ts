// Locales: every translated key exists in English, placeholders match, and a missing key falls back.
import { describe, expect, it } from 'vitest';
import { en } from '../src/i18n/en';
import { de, es, fr, it as itDict, nl, pt } from '../src/i18n/others';
import { translate } from '../src/i18n';

const placeholders = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('locales', () => {
  for (const [name, dict] of Object.entries({ de, es, fr, it: itDict, nl, pt })) {
    it(`${name}: known keys, same placeholders, the core strings translated`, () => {
      for (const [k, v] of Object.entries(dict)) {
        expect(k in en, k).toBe(true);
        expect(placeholders(v!), k).toEqual(placeholders(en[k as keyof typeof en]));
      }
      for (const k of ['nav.signIn', 'auth.email', 'auth.password', 'q.next', 'q.yes', 'q.no', 'emergency.title', 'emergency.call', 'emergency.text'] as const) expect(dict[k], k).toBeTruthy();
    });
  }
  it('falls back to English and fills placeholders', () => {
    expect(translate('de', 'emergency.call', { number: '112' })).toBe('112 anrufen');
    expect(translate('nl', 'desk.approve')).toBe(en['desk.approve']);
  });
});
