// The appointment mails (booked, moved, cancelled) with the calendar file (RFC 5545, made by
// ical-generator). Like every mail of the service they carry no health details: "a call with your
// doctor", the time in the patient's time zone and language, and the link to the appointment.
import ical, { ICalCalendarMethod, ICalEventStatus } from 'ical-generator';
import type { MailAttachment, MailTemplate } from '../../mail/outbox.ts';
import type { Locale } from '../../lib/locales.ts';

export type AppointmentMailKind = 'booked' | 'moved' | 'cancelled';

export interface AppointmentMailVars {
  kind: AppointmentMailKind;
  /** The doctor made the change (moved or cancelled): the mail says so; the reason is read in the app. */
  by_doctor?: boolean;
  first_name: string;
  /** The call's time, written in the patient's language and time zone. */
  when: string;
  link: string;
}

type Lines = Record<AppointmentMailKind, { subject: string; body: string }> & { hello: (n: string) => string; sign: string; ics: string; byDoctor: string };

const LINES: Record<Locale, Lines> = {
  en: {
    booked: { subject: 'Your call with your doctor is booked', body: 'Your video call with your doctor is booked for:' },
    moved: { subject: 'Your call with your doctor has moved', body: 'Your video call with your doctor is now on:' },
    cancelled: { subject: 'Your call with your doctor is cancelled', body: 'This video call with your doctor is cancelled:' },
    hello: (n) => (n ? `Hello ${n},` : 'Hello,'),
    sign: 'Your medical team',
    byDoctor: 'Your doctor made this change. You can read why in your account.',
    ics: 'The attached calendar file adds it to your calendar. Join from your account up to 10 minutes before:',
  },
  de: {
    booked: { subject: 'Ihr Gespräch mit Ihrer Ärztin oder Ihrem Arzt ist gebucht', body: 'Ihr Videogespräch ist gebucht für:' },
    moved: { subject: 'Ihr Gespräch wurde verschoben', body: 'Ihr Videogespräch findet jetzt statt am:' },
    cancelled: { subject: 'Ihr Gespräch wurde abgesagt', body: 'Dieses Videogespräch wurde abgesagt:' },
    hello: (n) => (n ? `Hallo ${n},` : 'Hallo,'),
    sign: 'Ihr medizinisches Team',
    byDoctor: 'Ihre Ärztin oder Ihr Arzt hat den Termin geändert. Den Grund lesen Sie in Ihrem Konto.',
    ics: 'Mit der angehängten Kalenderdatei tragen Sie den Termin in Ihren Kalender ein. Treten Sie bis zu 10 Minuten vorher über Ihr Konto bei:',
  },
  es: {
    booked: { subject: 'Tu llamada con tu médico está reservada', body: 'Tu videollamada con tu médico está reservada para:' },
    moved: { subject: 'Tu llamada con tu médico ha cambiado', body: 'Tu videollamada con tu médico es ahora el:' },
    cancelled: { subject: 'Tu llamada con tu médico está cancelada', body: 'Esta videollamada con tu médico está cancelada:' },
    hello: (n) => (n ? `Hola ${n}:` : 'Hola:'),
    sign: 'Tu equipo médico',
    byDoctor: 'Tu médico ha hecho este cambio. Puedes leer el motivo en tu cuenta.',
    ics: 'El archivo de calendario adjunto la añade a tu calendario. Únete desde tu cuenta hasta 10 minutos antes:',
  },
  fr: {
    booked: { subject: 'Votre appel avec votre médecin est réservé', body: 'Votre appel vidéo avec votre médecin est réservé pour le :' },
    moved: { subject: 'Votre appel avec votre médecin a été déplacé', body: 'Votre appel vidéo avec votre médecin a lieu désormais le :' },
    cancelled: { subject: 'Votre appel avec votre médecin est annulé', body: 'Cet appel vidéo avec votre médecin est annulé :' },
    hello: (n) => (n ? `Bonjour ${n},` : 'Bonjour,'),
    sign: 'Votre équipe médicale',
    byDoctor: 'Votre médecin a fait ce changement. Vous pouvez en lire la raison dans votre compte.',
    ics: 'Le fichier de calendrier joint l’ajoute à votre agenda. Rejoignez l’appel depuis votre compte jusqu’à 10 minutes avant :',
  },
  it: {
    booked: { subject: 'La chiamata con il tuo medico è prenotata', body: 'La videochiamata con il tuo medico è prenotata per:' },
    moved: { subject: 'La chiamata con il tuo medico è stata spostata', body: 'La videochiamata con il tuo medico è ora il:' },
    cancelled: { subject: 'La chiamata con il tuo medico è annullata', body: 'Questa videochiamata con il tuo medico è annullata:' },
    hello: (n) => (n ? `Ciao ${n},` : 'Ciao,'),
    sign: 'Il tuo team medico',
    byDoctor: 'Il tuo medico ha fatto questa modifica. Puoi leggerne il motivo nel tuo account.',
    ics: 'Il file di calendario allegato la aggiunge al tuo calendario. Partecipa dal tuo account fino a 10 minuti prima:',
  },
  nl: {
    booked: { subject: 'Je gesprek met je arts is geboekt', body: 'Je videogesprek met je arts is geboekt op:' },
    moved: { subject: 'Je gesprek met je arts is verplaatst', body: 'Je videogesprek met je arts is nu op:' },
    cancelled: { subject: 'Je gesprek met je arts is geannuleerd', body: 'Dit videogesprek met je arts is geannuleerd:' },
    hello: (n) => (n ? `Hallo ${n},` : 'Hallo,'),
    sign: 'Je medische team',
    byDoctor: 'Je arts heeft dit gewijzigd. De reden lees je in je account.',
    ics: 'Met het bijgevoegde agendabestand zet je het in je agenda. Neem tot 10 minuten vooraf deel via je account:',
  },
  pt: {
    booked: { subject: 'A sua chamada com o seu médico está marcada', body: 'A sua videochamada com o seu médico está marcada para:' },
    moved: { subject: 'A sua chamada com o seu médico mudou', body: 'A sua videochamada com o seu médico é agora a:' },
    cancelled: { subject: 'A sua chamada com o seu médico foi cancelada', body: 'Esta videochamada com o seu médico foi cancelada:' },
    hello: (n) => (n ? `Olá ${n},` : 'Olá,'),
    sign: 'A sua equipa médica',
    byDoctor: 'O seu médico fez esta alteração. Pode ler o motivo na sua conta.',
    ics: 'O ficheiro de calendário em anexo adiciona-a ao seu calendário. Participe a partir da sua conta até 10 minutos antes:',
  },
};

const make = (l: Lines) => (v: AppointmentMailVars) => ({
  subject: l[v.kind].subject,
  text: `${l.hello(v.first_name)}\n\n${l[v.kind].body}\n${v.when}\n\n${v.by_doctor ? `${l.byDoctor}\n\n` : ''}${v.kind === 'cancelled' ? '' : `${l.ics}\n`}${v.link}\n\n${l.sign}\n`,
});

export const appointmentMail: MailTemplate<AppointmentMailVars> = {
  name: 'appointment',
  de: make(LINES.de),
  en: make(LINES.en),
  es: make(LINES.es),
  fr: make(LINES.fr),
  it: make(LINES.it),
  nl: make(LINES.nl),
  pt: make(LINES.pt),
};

/** The call's time in the patient's language and time zone, e.g. "Thursday, 3 December 2026 at 10:00 CET". */
export function whenText(startsAt: Date, locale: string, timeZone: string): string {
  return new Intl.DateTimeFormat(locale, { dateStyle: 'full', timeStyle: 'short', timeZone }).format(startsAt) + ` (${timeZone})`;
}

/**
 * The calendar file of an appointment: one VEVENT whose UID is the appointment's (a calendar replaces
 * it when a later mail carries a higher SEQUENCE: moved, or cancelled with STATUS:CANCELLED).
 */
export function calendarFile(a: { id: string; starts_at: Date; ends_at: Date; link: string; cancelled: boolean; sequence: number; summary: string }): MailAttachment {
  const cal = ical({ prodId: { company: 'Patient Treatment Service', product: 'appointments', language: 'EN' }, method: ICalCalendarMethod.PUBLISH });
  cal.createEvent({
    id: `${a.id}@patient-treatment-service`,
    start: a.starts_at,
    end: a.ends_at,
    stamp: new Date(),
    summary: a.summary,
    url: a.link,
    sequence: a.sequence,
    status: a.cancelled ? ICalEventStatus.CANCELLED : ICalEventStatus.CONFIRMED,
  });
  return { filename: 'appointment.ics', content_type: 'text/calendar; charset=utf-8; method=PUBLISH', content: cal.toString() };
}

/** The event's title in the patient's language (no health details). */
export const SUMMARY: Record<Locale, string> = {
  en: 'Video call with your doctor',
  de: 'Videogespräch mit Ihrer Ärztin oder Ihrem Arzt',
  es: 'Videollamada con tu médico',
  fr: 'Appel vidéo avec votre médecin',
  it: 'Videochiamata con il tuo medico',
  nl: 'Videogesprek met je arts',
  pt: 'Videochamada com o seu médico',
};
