// Every dictionary is loaded before the tests render pages in any language (the app loads one at a time).
import { loadLocale, LOCALES } from '../src/i18n';

await Promise.all(LOCALES.map((l) => loadLocale(l)));
