// The fixed wording of the letter to the patient's own doctor, in each of the service's languages.
// The letter carries the patient's language and English; medicine names, category titles and the
// monitoring advised come from the catalogue in the same languages. The dosage instructions are the
// prescription's own text (the catalogue's posology, in English) and go out as written.
import type { Locale } from '../../lib/locales.ts';

export interface LetterWords {
  title: string;
  opening: (patient: string, service: string) => string;
  patient: string;
  name: string;
  dateOfBirth: string;
  email: string;
  prescribed: string;
  medicine: string;
  strength: string;
  dosage: string;
  reason: string;
  monitoring: string;
  prescriber: string;
  licence: string;
  date: string;
  reference: string;
  closing: string;
  notRecorded: string;
}

export const LETTER_WORDS: Record<Locale, LetterWords> = {
  en: {
    title: 'Letter to the patient’s own doctor',
    opening: (p, s) => `Dear colleague, your patient ${p} was assessed remotely by a doctor of ${s} and a prescription was issued. The patient asked us to inform you.`,
    patient: 'Patient',
    name: 'Name',
    dateOfBirth: 'Date of birth',
    email: 'E-mail',
    prescribed: 'Prescribed',
    medicine: 'Medicine',
    strength: 'Strength',
    dosage: 'Dosage',
    reason: 'Reason for treatment',
    monitoring: 'Monitoring advised',
    prescriber: 'Prescriber',
    licence: 'Licence number',
    date: 'Date',
    reference: 'Reference',
    closing: 'Please contact us if you have any concerns about this treatment. This letter was sent with the patient’s consent.',
    notRecorded: 'not recorded',
  },
  de: {
    title: 'Brief an die Hausärztin / den Hausarzt',
    opening: (p, s) => `Sehr geehrte Kollegin, sehr geehrter Kollege, Ihre Patientin / Ihr Patient ${p} wurde von einer Ärztin / einem Arzt von ${s} fernbehandelt, und es wurde ein Rezept ausgestellt. Die Patientin / der Patient hat uns gebeten, Sie zu informieren.`,
    patient: 'Patient/in',
    name: 'Name',
    dateOfBirth: 'Geburtsdatum',
    email: 'E-Mail',
    prescribed: 'Verordnung',
    medicine: 'Arzneimittel',
    strength: 'Stärke',
    dosage: 'Dosierung',
    reason: 'Behandlungsgrund',
    monitoring: 'Empfohlene Kontrollen',
    prescriber: 'Verordnende Ärztin / verordnender Arzt',
    licence: 'Arztnummer',
    date: 'Datum',
    reference: 'Referenz',
    closing: 'Bei Bedenken zu dieser Behandlung wenden Sie sich bitte an uns. Dieser Brief wurde mit Einwilligung der Patientin / des Patienten versandt.',
    notRecorded: 'nicht erfasst',
  },
  es: {
    title: 'Carta al médico de cabecera del paciente',
    opening: (p, s) => `Estimado/a colega: su paciente ${p} fue evaluado/a a distancia por un médico de ${s} y se emitió una receta. El/la paciente nos pidió que le informáramos.`,
    patient: 'Paciente',
    name: 'Nombre',
    dateOfBirth: 'Fecha de nacimiento',
    email: 'Correo electrónico',
    prescribed: 'Prescripción',
    medicine: 'Medicamento',
    strength: 'Concentración',
    dosage: 'Posología',
    reason: 'Motivo del tratamiento',
    monitoring: 'Seguimiento recomendado',
    prescriber: 'Médico prescriptor',
    licence: 'Número de colegiado',
    date: 'Fecha',
    reference: 'Referencia',
    closing: 'Contacte con nosotros si tiene cualquier duda sobre este tratamiento. Esta carta se envía con el consentimiento del paciente.',
    notRecorded: 'no consta',
  },
  fr: {
    title: 'Lettre au médecin traitant du patient',
    opening: (p, s) => `Cher confrère, chère consœur, votre patient(e) ${p} a été évalué(e) à distance par un médecin de ${s} et une ordonnance a été établie. Le/la patient(e) nous a demandé de vous en informer.`,
    patient: 'Patient(e)',
    name: 'Nom',
    dateOfBirth: 'Date de naissance',
    email: 'E-mail',
    prescribed: 'Prescription',
    medicine: 'Médicament',
    strength: 'Dosage',
    dosage: 'Posologie',
    reason: 'Motif du traitement',
    monitoring: 'Surveillance conseillée',
    prescriber: 'Médecin prescripteur',
    licence: 'Numéro d’exercice',
    date: 'Date',
    reference: 'Référence',
    closing: 'N’hésitez pas à nous contacter pour toute question sur ce traitement. Cette lettre est envoyée avec le consentement du/de la patient(e).',
    notRecorded: 'non renseigné',
  },
  it: {
    title: 'Lettera al medico curante del paziente',
    opening: (p, s) => `Gentile collega, il/la suo/a paziente ${p} è stato/a valutato/a a distanza da un medico di ${s} ed è stata emessa una prescrizione. Il/la paziente ci ha chiesto di informarla.`,
    patient: 'Paziente',
    name: 'Nome',
    dateOfBirth: 'Data di nascita',
    email: 'E-mail',
    prescribed: 'Prescrizione',
    medicine: 'Medicinale',
    strength: 'Dosaggio',
    dosage: 'Posologia',
    reason: 'Motivo del trattamento',
    monitoring: 'Monitoraggio consigliato',
    prescriber: 'Medico prescrittore',
    licence: 'Numero di iscrizione',
    date: 'Data',
    reference: 'Riferimento',
    closing: 'Ci contatti per qualsiasi dubbio su questo trattamento. Questa lettera è inviata con il consenso del/della paziente.',
    notRecorded: 'non registrato',
  },
  nl: {
    title: 'Brief aan de huisarts van de patiënt',
    opening: (p, s) => `Geachte collega, uw patiënt ${p} is op afstand beoordeeld door een arts van ${s} en er is een recept uitgeschreven. De patiënt heeft ons gevraagd u te informeren.`,
    patient: 'Patiënt',
    name: 'Naam',
    dateOfBirth: 'Geboortedatum',
    email: 'E-mail',
    prescribed: 'Voorschrift',
    medicine: 'Geneesmiddel',
    strength: 'Sterkte',
    dosage: 'Dosering',
    reason: 'Reden van behandeling',
    monitoring: 'Aanbevolen controles',
    prescriber: 'Voorschrijvend arts',
    licence: 'BIG-/registratienummer',
    date: 'Datum',
    reference: 'Referentie',
    closing: 'Neem contact met ons op als u vragen heeft over deze behandeling. Deze brief is verstuurd met toestemming van de patiënt.',
    notRecorded: 'niet vastgelegd',
  },
  pt: {
    title: 'Carta ao médico de família do doente',
    opening: (p, s) => `Caro/a colega, o/a seu/sua doente ${p} foi avaliado/a à distância por um médico de ${s} e foi emitida uma receita. O/a doente pediu-nos que o/a informássemos.`,
    patient: 'Doente',
    name: 'Nome',
    dateOfBirth: 'Data de nascimento',
    email: 'E-mail',
    prescribed: 'Prescrição',
    medicine: 'Medicamento',
    strength: 'Dosagem',
    dosage: 'Posologia',
    reason: 'Motivo do tratamento',
    monitoring: 'Monitorização aconselhada',
    prescriber: 'Médico prescritor',
    licence: 'Número de cédula',
    date: 'Data',
    reference: 'Referência',
    closing: 'Contacte-nos se tiver alguma dúvida sobre este tratamento. Esta carta é enviada com o consentimento do/a doente.',
    notRecorded: 'não registado',
  },
};

/** The subject and text of the mail the letter is attached to (English and the patient's language). */
export const letterMailText = (words: LetterWords[], patient: string) => ({
  subject: `${words.map((w) => w.title).join(' / ')}: ${patient}`,
  text: words.map((w) => `${w.title}\n\n${w.closing}`).join('\n\n---\n\n'),
});
