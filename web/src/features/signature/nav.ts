// The pharmacist's navigation entry to "Verify a prescription" in the seven locales (a file of its own:
// the app shell imports it, and the feature's full string tables stay in the lazily loaded chunk).
import type { Locale } from '../../i18n';

export const VERIFY_NAV: Record<Locale, string> = {
  en: 'Verify a prescription',
  de: 'Rezept prüfen',
  es: 'Verificar una receta',
  fr: 'Vérifier une ordonnance',
  it: 'Verifica una ricetta',
  nl: 'Een recept controleren',
  pt: 'Verificar uma receita',
};
