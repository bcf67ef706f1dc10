// What the service tells a patient outside e-mail, and how: the event kinds, the channels each may
// use, their defaults, and their texts in every locale. The texts carry NO health details (no
// medicine, condition, dose or test): a push or an SMS shows on a locked screen and on a shared
// phone, so it only says that something is waiting behind sign-in (docs/notifications.md).
// test/notifications.test.ts checks every text against every catalogue medicine and category name.
import type { Locale } from '../../lib/locales.ts';

export const CHANNELS = ['push', 'sms', 'email'] as const;
export type Channel = (typeof CHANNELS)[number];

export const EVENT_KINDS = [
  'care_team_message',
  'consultation_decision',
  'information_requested',
  'order_dispatched',
  'order_undeliverable',
  'renewal_window_opened',
  'renewal_window_closed',
  'injection_day',
  'weigh_in',
  'call_requested',
  'appointment_reminder',
  'verification_due',
] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

export interface EventDefinition {
  /** The channels this layer sends it on. E-mail is absent where the module that raises the event already mails it. */
  channels: readonly Channel[];
  /** The channels on until the patient changes them. */
  defaults: Partial<Record<Channel, boolean>>;
  /** Urgent events are sent during quiet hours; the others wait until the quiet hours end. */
  urgent: boolean;
  /** A reminder (scheduled by this module): stops with the plan, and is dropped when it is late. */
  reminder: boolean;
  /** The web app's page the notification opens (routes.json). */
  link: string;
}

// Defaults: push on for what the care team or the pharmacy did (the patient subscribed a browser
// for that); SMS off until asked for (it needs a verified phone anyway); reminders off until the
// patient turns them on (the journal offers the injection reminder when a plan starts).
export const EVENTS: Record<EventKind, EventDefinition> = {
  care_team_message: { channels: ['push', 'sms'], defaults: { push: true, sms: false }, urgent: false, reminder: false, link: '/messages' },
  consultation_decision: { channels: ['push', 'sms'], defaults: { push: true, sms: false }, urgent: false, reminder: false, link: '/consultations' },
  // A question of the doctor has a deadline (docs/consultations.md): worth waking the phone.
  information_requested: { channels: ['push', 'sms'], defaults: { push: true, sms: true }, urgent: true, reminder: false, link: '/consultations' },
  order_dispatched: { channels: ['push', 'sms'], defaults: { push: true, sms: false }, urgent: false, reminder: false, link: '/orders' },
  // The parcel waits at a depot for a limited time.
  order_undeliverable: { channels: ['push', 'sms'], defaults: { push: true, sms: true }, urgent: true, reminder: false, link: '/orders' },
  renewal_window_opened: { channels: ['push', 'sms'], defaults: { push: true, sms: false }, urgent: false, reminder: false, link: '/renewal' },
  renewal_window_closed: { channels: ['push', 'sms'], defaults: { push: true, sms: false }, urgent: false, reminder: false, link: '/renewal' },
  injection_day: { channels: ['push', 'sms', 'email'], defaults: { push: false, sms: false, email: false }, urgent: false, reminder: true, link: '/journal' },
  weigh_in: { channels: ['push', 'sms', 'email'], defaults: { push: false, sms: false, email: false }, urgent: false, reminder: true, link: '/journal' },
  // The doctor asks for a call (the appointments module; mailed by the consultations module).
  call_requested: { channels: ['push', 'sms'], defaults: { push: true, sms: true }, urgent: true, reminder: false, link: '/consultations' },
  // 24 hours and 1 hour before a booked call (the appointments module's scheduler): urgent, since a
  // reminder held back by quiet hours would come after the call.
  appointment_reminder: { channels: ['push', 'sms', 'email'], defaults: { push: true, sms: false, email: true }, urgent: true, reminder: false, link: '/appointments' },
  // The verified weight a plan relies on expires (docs/verification.md): two weeks' notice, once per
  // verification (the verification module's sweep). E-mail too: nothing else tells the patient.
  verification_due: { channels: ['push', 'sms', 'email'], defaults: { push: true, sms: false, email: true }, urgent: false, reminder: false, link: '/verification' },
};

export const isEventKind = (v: unknown): v is EventKind => typeof v === 'string' && (EVENT_KINDS as readonly string[]).includes(v);

export interface NotificationText {
  title: string;
  body: string;
}

type Texts = Record<EventKind, NotificationText>;

export const TEXTS: Record<Locale, Texts> = {
  en: {
    care_team_message: { title: 'New message', body: 'You have a new message from your care team. Sign in to read it.' },
    consultation_decision: { title: 'Update on your request', body: 'Your doctor has made a decision. Sign in to see it.' },
    information_requested: { title: 'Your doctor has a question', body: 'Your doctor needs more information from you. Sign in to answer.' },
    order_dispatched: { title: 'Your order is on its way', body: 'Your order has been dispatched. Sign in to track it.' },
    order_undeliverable: { title: 'Delivery problem', body: 'We could not deliver your order. Sign in to see what to do.' },
    renewal_window_opened: { title: 'Time to renew', body: 'You can now renew your plan. Sign in to continue.' },
    renewal_window_closed: { title: 'Renewal time has ended', body: 'The time to renew your plan has ended. Sign in to continue.' },
    injection_day: { title: 'Reminder', body: 'Today is a day in your plan. Sign in to see your journal.' },
    weigh_in: { title: 'Weekly check-in', body: 'Time for your weekly check-in. Sign in to update your journal.' },
    call_requested: { title: 'Your doctor would like to talk', body: 'Your doctor would like a short video call. Sign in to book a time.' },
    appointment_reminder: { title: 'Upcoming call', body: 'You have a call with your doctor soon. Sign in to see the time and join.' },
    verification_due: { title: 'A check is due', body: 'Your verification needs renewing before your next order. Sign in to continue.' },
  },
  de: {
    care_team_message: { title: 'Neue Nachricht', body: 'Sie haben eine neue Nachricht von Ihrem Behandlungsteam. Melden Sie sich an, um sie zu lesen.' },
    consultation_decision: { title: 'Neuigkeiten zu Ihrer Anfrage', body: 'Ihre Ärztin oder Ihr Arzt hat entschieden. Melden Sie sich an, um es zu sehen.' },
    information_requested: { title: 'Eine Rückfrage Ihrer Ärztin oder Ihres Arztes', body: 'Es werden weitere Angaben von Ihnen benötigt. Melden Sie sich an, um zu antworten.' },
    order_dispatched: { title: 'Ihre Bestellung ist unterwegs', body: 'Ihre Bestellung wurde versandt. Melden Sie sich an, um sie zu verfolgen.' },
    order_undeliverable: { title: 'Problem bei der Zustellung', body: 'Ihre Bestellung konnte nicht zugestellt werden. Melden Sie sich an, um zu sehen, was zu tun ist.' },
    renewal_window_opened: { title: 'Zeit für die Verlängerung', body: 'Sie können Ihren Plan jetzt verlängern. Melden Sie sich an, um fortzufahren.' },
    renewal_window_closed: { title: 'Verlängerungsfrist abgelaufen', body: 'Die Frist für die Verlängerung Ihres Plans ist abgelaufen. Melden Sie sich an, um fortzufahren.' },
    injection_day: { title: 'Erinnerung', body: 'Heute ist ein Tag Ihres Plans. Melden Sie sich an, um Ihr Tagebuch zu sehen.' },
    weigh_in: { title: 'Wöchentlicher Check-in', body: 'Zeit für Ihren wöchentlichen Check-in. Melden Sie sich an, um Ihr Tagebuch zu ergänzen.' },
    call_requested: { title: 'Ihre Ärztin oder Ihr Arzt möchte sprechen', body: 'Es wird ein kurzes Videogespräch gewünscht. Melden Sie sich an, um einen Termin zu buchen.' },
    appointment_reminder: { title: 'Anstehendes Gespräch', body: 'Sie haben bald ein Gespräch mit Ihrer Ärztin oder Ihrem Arzt. Melden Sie sich an, um die Uhrzeit zu sehen und teilzunehmen.' },
    verification_due: { title: 'Eine Prüfung steht an', body: 'Ihre Verifizierung muss vor Ihrer nächsten Bestellung erneuert werden. Melden Sie sich an, um fortzufahren.' },
  },
  fr: {
    care_team_message: { title: 'Nouveau message', body: 'Vous avez un nouveau message de votre équipe soignante. Connectez-vous pour le lire.' },
    consultation_decision: { title: 'Du nouveau sur votre demande', body: 'Votre médecin a pris une décision. Connectez-vous pour la consulter.' },
    information_requested: { title: 'Votre médecin a une question', body: 'Votre médecin a besoin de précisions. Connectez-vous pour répondre.' },
    order_dispatched: { title: 'Votre commande est en route', body: 'Votre commande a été expédiée. Connectez-vous pour la suivre.' },
    order_undeliverable: { title: 'Problème de livraison', body: 'Votre commande n’a pas pu être livrée. Connectez-vous pour savoir quoi faire.' },
    renewal_window_opened: { title: 'C’est le moment de renouveler', body: 'Vous pouvez maintenant renouveler votre formule. Connectez-vous pour continuer.' },
    renewal_window_closed: { title: 'Le délai de renouvellement est passé', body: 'Le délai pour renouveler votre formule est passé. Connectez-vous pour continuer.' },
    injection_day: { title: 'Rappel', body: 'Aujourd’hui est un jour de votre programme. Connectez-vous pour voir votre journal.' },
    weigh_in: { title: 'Point hebdomadaire', body: 'C’est l’heure de votre point hebdomadaire. Connectez-vous pour compléter votre journal.' },
    call_requested: { title: 'Votre médecin souhaite vous parler', body: 'Votre médecin souhaite un court appel vidéo. Connectez-vous pour réserver un créneau.' },
    appointment_reminder: { title: 'Appel à venir', body: 'Vous avez bientôt un appel avec votre médecin. Connectez-vous pour voir l’heure et le rejoindre.' },
    verification_due: { title: 'Une vérification est à renouveler', body: 'Votre vérification doit être renouvelée avant votre prochaine commande. Connectez-vous pour continuer.' },
  },
  es: {
    care_team_message: { title: 'Nuevo mensaje', body: 'Tienes un nuevo mensaje de tu equipo médico. Inicia sesión para leerlo.' },
    consultation_decision: { title: 'Novedades sobre tu solicitud', body: 'Tu médico ha tomado una decisión. Inicia sesión para verla.' },
    information_requested: { title: 'Tu médico tiene una pregunta', body: 'Tu médico necesita más información. Inicia sesión para responder.' },
    order_dispatched: { title: 'Tu pedido está en camino', body: 'Tu pedido ha sido enviado. Inicia sesión para seguirlo.' },
    order_undeliverable: { title: 'Problema con la entrega', body: 'No pudimos entregar tu pedido. Inicia sesión para ver qué hacer.' },
    renewal_window_opened: { title: 'Es hora de renovar', body: 'Ya puedes renovar tu plan. Inicia sesión para continuar.' },
    renewal_window_closed: { title: 'El plazo de renovación ha terminado', body: 'El plazo para renovar tu plan ha terminado. Inicia sesión para continuar.' },
    injection_day: { title: 'Recordatorio', body: 'Hoy es un día de tu plan. Inicia sesión para ver tu diario.' },
    weigh_in: { title: 'Revisión semanal', body: 'Es la hora de tu revisión semanal. Inicia sesión para actualizar tu diario.' },
    call_requested: { title: 'Tu médico quiere hablar contigo', body: 'Tu médico quiere una breve videollamada. Inicia sesión para reservar una hora.' },
    appointment_reminder: { title: 'Próxima llamada', body: 'Pronto tienes una llamada con tu médico. Inicia sesión para ver la hora y unirte.' },
    verification_due: { title: 'Toca renovar una verificación', body: 'Tu verificación debe renovarse antes de tu próximo pedido. Inicia sesión para continuar.' },
  },
  it: {
    care_team_message: { title: 'Nuovo messaggio', body: 'Hai un nuovo messaggio dal tuo team di cura. Accedi per leggerlo.' },
    consultation_decision: { title: 'Novità sulla tua richiesta', body: 'Il tuo medico ha preso una decisione. Accedi per vederla.' },
    information_requested: { title: 'Il tuo medico ha una domanda', body: 'Il tuo medico ha bisogno di altre informazioni. Accedi per rispondere.' },
    order_dispatched: { title: 'Il tuo ordine è in viaggio', body: 'Il tuo ordine è stato spedito. Accedi per seguirlo.' },
    order_undeliverable: { title: 'Problema di consegna', body: 'Non è stato possibile consegnare il tuo ordine. Accedi per vedere cosa fare.' },
    renewal_window_opened: { title: 'È il momento di rinnovare', body: 'Ora puoi rinnovare il tuo piano. Accedi per continuare.' },
    renewal_window_closed: { title: 'Il termine per il rinnovo è scaduto', body: 'Il termine per rinnovare il tuo piano è scaduto. Accedi per continuare.' },
    injection_day: { title: 'Promemoria', body: 'Oggi è un giorno del tuo piano. Accedi per vedere il tuo diario.' },
    weigh_in: { title: 'Controllo settimanale', body: 'È ora del tuo controllo settimanale. Accedi per aggiornare il tuo diario.' },
    call_requested: { title: 'Il tuo medico vorrebbe parlarti', body: 'Il tuo medico vorrebbe una breve videochiamata. Accedi per prenotare un orario.' },
    appointment_reminder: { title: 'Chiamata in arrivo', body: 'Tra poco hai una chiamata con il tuo medico. Accedi per vedere l’orario e partecipare.' },
    verification_due: { title: 'È ora di rinnovare una verifica', body: 'La tua verifica va rinnovata prima del prossimo ordine. Accedi per continuare.' },
  },
  nl: {
    care_team_message: { title: 'Nieuw bericht', body: 'U hebt een nieuw bericht van uw zorgteam. Log in om het te lezen.' },
    consultation_decision: { title: 'Nieuws over uw aanvraag', body: 'Uw arts heeft een besluit genomen. Log in om het te bekijken.' },
    information_requested: { title: 'Uw arts heeft een vraag', body: 'Uw arts heeft meer informatie nodig. Log in om te antwoorden.' },
    order_dispatched: { title: 'Uw bestelling is onderweg', body: 'Uw bestelling is verzonden. Log in om haar te volgen.' },
    order_undeliverable: { title: 'Probleem met de bezorging', body: 'Uw bestelling kon niet worden bezorgd. Log in om te zien wat u kunt doen.' },
    renewal_window_opened: { title: 'Tijd om te verlengen', body: 'U kunt uw plan nu verlengen. Log in om verder te gaan.' },
    renewal_window_closed: { title: 'Verlengingstermijn verstreken', body: 'De termijn om uw plan te verlengen is verstreken. Log in om verder te gaan.' },
    injection_day: { title: 'Herinnering', body: 'Vandaag is een dag van uw plan. Log in om uw dagboek te bekijken.' },
    weigh_in: { title: 'Wekelijkse check-in', body: 'Tijd voor uw wekelijkse check-in. Log in om uw dagboek bij te werken.' },
    call_requested: { title: 'Uw arts wil u graag spreken', body: 'Uw arts wil graag kort videobellen. Log in om een tijd te boeken.' },
    appointment_reminder: { title: 'Gesprek binnenkort', body: 'U heeft binnenkort een gesprek met uw arts. Log in om de tijd te zien en deel te nemen.' },
    verification_due: { title: 'Een controle moet worden vernieuwd', body: 'Uw verificatie moet vóór uw volgende bestelling worden vernieuwd. Log in om verder te gaan.' },
  },
  pt: {
    care_team_message: { title: 'Nova mensagem', body: 'Tem uma nova mensagem da sua equipa de cuidados. Inicie sessão para a ler.' },
    consultation_decision: { title: 'Novidades sobre o seu pedido', body: 'O seu médico tomou uma decisão. Inicie sessão para a ver.' },
    information_requested: { title: 'O seu médico tem uma pergunta', body: 'O seu médico precisa de mais informações. Inicie sessão para responder.' },
    order_dispatched: { title: 'A sua encomenda está a caminho', body: 'A sua encomenda foi enviada. Inicie sessão para a acompanhar.' },
    order_undeliverable: { title: 'Problema na entrega', body: 'Não foi possível entregar a sua encomenda. Inicie sessão para ver o que fazer.' },
    renewal_window_opened: { title: 'Está na hora de renovar', body: 'Já pode renovar o seu plano. Inicie sessão para continuar.' },
    renewal_window_closed: { title: 'O prazo de renovação terminou', body: 'O prazo para renovar o seu plano terminou. Inicie sessão para continuar.' },
    injection_day: { title: 'Lembrete', body: 'Hoje é um dia do seu plano. Inicie sessão para ver o seu diário.' },
    weigh_in: { title: 'Registo semanal', body: 'Está na hora do seu registo semanal. Inicie sessão para atualizar o seu diário.' },
    call_requested: { title: 'O seu médico gostaria de falar consigo', body: 'O seu médico gostaria de uma breve videochamada. Inicie sessão para marcar uma hora.' },
    appointment_reminder: { title: 'Chamada em breve', body: 'Tem em breve uma chamada com o seu médico. Inicie sessão para ver a hora e participar.' },
    verification_due: { title: 'Uma verificação deve ser renovada', body: 'A sua verificação tem de ser renovada antes da sua próxima encomenda. Inicie sessão para continuar.' },
  },
};

/** The SMS carrying a phone verification code: the code only, no health details. */
export const PHONE_CODE_TEXT: Record<Locale, (code: string) => string> = {
  en: (code) => `Your verification code is ${code}. It is valid for 10 minutes.`,
  de: (code) => `Ihr Bestätigungscode lautet ${code}. Er ist 10 Minuten gültig.`,
  fr: (code) => `Votre code de vérification est ${code}. Il est valable 10 minutes.`,
  es: (code) => `Tu código de verificación es ${code}. Es válido durante 10 minutos.`,
  it: (code) => `Il tuo codice di verifica è ${code}. È valido per 10 minuti.`,
  nl: (code) => `Uw verificatiecode is ${code}. Deze is 10 minuten geldig.`,
  pt: (code) => `O seu código de verificação é ${code}. É válido durante 10 minutos.`,
};
