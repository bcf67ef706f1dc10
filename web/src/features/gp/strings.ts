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
  lettersTitle: 'Letters to my doctor',
  lettersIntro: 'After each prescription that needs it (weight loss; and hair loss, PrEP, erectile dysfunction, premature ejaculation, urinary infections when you consent), we send your doctor a letter: what was prescribed, why, and the monitoring we advise. No letter goes without your consent; withdrawing it stops letters not yet sent.',
  noLetters: 'No letters yet.',
  letterQueued: 'Being sent to {to}',
  letterSent: 'Sent to {to} on {date}',
  downloadLetter: 'Download (PDF)',
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
  lettersTitle: 'Briefe an meine Ärztin / meinen Arzt',
  lettersIntro: 'Nach jeder Verordnung, die es erfordert (Gewichtsabnahme; mit Ihrer Einwilligung auch Haarausfall, PrEP, Erektionsstörungen, vorzeitiger Samenerguss, Harnwegsinfekte), schicken wir Ihrer Ärztin oder Ihrem Arzt einen Brief: was verordnet wurde, warum und welche Kontrollen wir empfehlen. Ohne Ihre Einwilligung geht kein Brief; ein Widerruf stoppt noch nicht versandte Briefe.',
  noLetters: 'Noch keine Briefe.',
  letterQueued: 'Wird an {to} gesendet',
  letterSent: 'Am {date} an {to} gesendet',
  downloadLetter: 'Herunterladen (PDF)',
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
  lettersTitle: 'Cartas a mi médico',
  lettersIntro: 'Tras cada receta que lo requiera (pérdida de peso; con su consentimiento también caída del cabello, PrEP, disfunción eréctil, eyaculación precoz, infecciones urinarias), enviamos a su médico una carta: qué se recetó, por qué y el seguimiento que aconsejamos. Sin su consentimiento no se envía ninguna carta; retirarlo detiene las cartas aún no enviadas.',
  noLetters: 'Todavía no hay cartas.',
  letterQueued: 'Enviándose a {to}',
  letterSent: 'Enviada a {to} el {date}',
  downloadLetter: 'Descargar (PDF)',
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
  lettersTitle: 'Lettres à mon médecin',
  lettersIntro: 'Après chaque prescription qui le demande (perte de poids ; avec votre consentement aussi chute de cheveux, PrEP, troubles de l’érection, éjaculation précoce, infections urinaires), nous envoyons à votre médecin une lettre : ce qui a été prescrit, pourquoi et la surveillance conseillée. Aucune lettre sans votre consentement ; le retirer arrête les lettres pas encore envoyées.',
  noLetters: 'Aucune lettre pour l’instant.',
  letterQueued: 'En cours d’envoi à {to}',
  letterSent: 'Envoyée à {to} le {date}',
  downloadLetter: 'Télécharger (PDF)',
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
  lettersTitle: 'Lettere al mio medico',
  lettersIntro: 'Dopo ogni prescrizione che lo richiede (perdita di peso; con il suo consenso anche caduta dei capelli, PrEP, disfunzione erettile, eiaculazione precoce, infezioni urinarie), inviamo al suo medico una lettera: cosa è stato prescritto, perché e il monitoraggio consigliato. Senza il suo consenso non parte nessuna lettera; revocarlo ferma le lettere non ancora inviate.',
  noLetters: 'Ancora nessuna lettera.',
  letterQueued: 'In invio a {to}',
  letterSent: 'Inviata a {to} il {date}',
  downloadLetter: 'Scarica (PDF)',
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
  lettersTitle: 'Brieven aan mijn huisarts',
  lettersIntro: 'Na elk voorschrift dat dat vraagt (afvallen; met uw toestemming ook haaruitval, PrEP, erectieproblemen, voortijdige zaadlozing, urineweginfecties) sturen wij uw huisarts een brief: wat is voorgeschreven, waarom en welke controles wij aanraden. Zonder uw toestemming gaat er geen brief; intrekken stopt brieven die nog niet verstuurd zijn.',
  noLetters: 'Nog geen brieven.',
  letterQueued: 'Wordt verstuurd naar {to}',
  letterSent: 'Verstuurd naar {to} op {date}',
  downloadLetter: 'Downloaden (pdf)',
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
  lettersTitle: 'Cartas ao meu médico',
  lettersIntro: 'Após cada prescrição que o exija (perda de peso; com o seu consentimento também queda de cabelo, PrEP, disfunção erétil, ejaculação precoce, infeções urinárias), enviamos ao seu médico uma carta: o que foi prescrito, porquê e a monitorização aconselhada. Sem o seu consentimento não é enviada nenhuma carta; retirá-lo para as cartas ainda não enviadas.',
  noLetters: 'Ainda não há cartas.',
  letterQueued: 'A ser enviada para {to}',
  letterSent: 'Enviada para {to} em {date}',
  downloadLetter: 'Transferir (PDF)',
};

export const GP_TEXT: Record<Locale, GpText> = { en, de, fr, es, it, nl, pt };

export function useGpText() {
  const { locale } = useI18n();
  const dict = GP_TEXT[locale] ?? en;
  return (key: keyof GpText, vars: Record<string, string> = {}) => dict[key].replace(/\{(\w+)\}/g, (_, k: string) => vars[k] ?? '');
}
