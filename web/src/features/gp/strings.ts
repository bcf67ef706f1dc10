// The own-doctor section's strings, in the seven locales of the app (docs/profile.md).
import { useI18n, type Locale } from '../../i18n';

const en = {
  title: 'My own doctor',
  intro: 'Your regular doctor (GP). With your consent “Sharing my treatment with my own doctor” on this page, they can be told what we prescribe.',
  name: 'Doctor’s name',
  practice: 'Practice',
  address: 'Address',
  email: 'E-mail of the practice',
  save: 'Save my doctor',
  saved: 'Saved.',
  remove: 'Remove',
};
export type GpText = typeof en;

const de: GpText = {
  title: 'Meine Hausärztin / mein Hausarzt',
  intro: 'Ihre Hausärztin oder Ihr Hausarzt. Mit Ihrer Einwilligung „Weitergabe meiner Behandlung“ auf dieser Seite kann sie oder er erfahren, was wir verschreiben.',
  name: 'Name der Ärztin / des Arztes',
  practice: 'Praxis',
  address: 'Adresse',
  email: 'E-Mail der Praxis',
  save: 'Speichern',
  saved: 'Gespeichert.',
  remove: 'Entfernen',
};
const es: GpText = {
  title: 'Mi médico de cabecera',
  intro: 'Su médico habitual. Con su consentimiento «Compartir mi tratamiento» en esta página, se le puede informar de lo que recetamos.',
  name: 'Nombre del médico',
  practice: 'Consulta',
  address: 'Dirección',
  email: 'Correo electrónico de la consulta',
  save: 'Guardar',
  saved: 'Guardado.',
  remove: 'Eliminar',
};
const fr: GpText = {
  title: 'Mon médecin traitant',
  intro: 'Votre médecin habituel. Avec votre consentement « Partage de mon traitement » sur cette page, il peut être informé de ce que nous prescrivons.',
  name: 'Nom du médecin',
  practice: 'Cabinet',
  address: 'Adresse',
  email: 'E-mail du cabinet',
  save: 'Enregistrer',
  saved: 'Enregistré.',
  remove: 'Supprimer',
};
const it: GpText = {
  title: 'Il mio medico di famiglia',
  intro: 'Il suo medico abituale. Con il suo consenso «Condivisione della mia terapia» in questa pagina, può essere informato di ciò che prescriviamo.',
  name: 'Nome del medico',
  practice: 'Studio',
  address: 'Indirizzo',
  email: 'E-mail dello studio',
  save: 'Salva',
  saved: 'Salvato.',
  remove: 'Rimuovi',
};
const nl: GpText = {
  title: 'Mijn huisarts',
  intro: 'Uw vaste huisarts. Met uw toestemming „Mijn behandeling delen” op deze pagina kan de huisarts horen wat wij voorschrijven.',
  name: 'Naam van de arts',
  practice: 'Praktijk',
  address: 'Adres',
  email: 'E-mail van de praktijk',
  save: 'Opslaan',
  saved: 'Opgeslagen.',
  remove: 'Verwijderen',
};
const pt: GpText = {
  title: 'O meu médico de família',
  intro: 'O seu médico habitual. Com o seu consentimento «Partilha do meu tratamento» nesta página, pode ser informado do que prescrevemos.',
  name: 'Nome do médico',
  practice: 'Consultório',
  address: 'Morada',
  email: 'E-mail do consultório',
  save: 'Guardar',
  saved: 'Guardado.',
  remove: 'Remover',
};

export const GP_TEXT: Record<Locale, GpText> = { en, de, fr, es, it, nl, pt };

export function useGpText() {
  const { locale } = useI18n();
  const dict = GP_TEXT[locale] ?? en;
  return (key: keyof GpText) => dict[key];
}
