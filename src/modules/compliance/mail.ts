// Mails of the public cancellation (§ 312k BGB) and of a plan's price change, in the patient's
// locale, naming no medicine and no health detail.
import type { MailTemplate } from '../../mail/outbox.ts';

type RequestVars = { received: string; link: string; plans: string; kind: string; date: string };

const requestMail =
  (subject: string, intro: string, labels: { plans: string; kind: string; date: string; received: string }, after: string) =>
  (v: RequestVars) => ({
    subject,
    text: `${intro}\n\n${labels.received}: ${v.received}\n${labels.plans}: ${v.plans}\n${labels.kind}: ${v.kind}\n${labels.date}: ${v.date}\n\n${after}\n\n${v.link}\n`,
  });

/** Receipt of the cancellation declaration (date and time), with the one-click link that carries it out. */
export const cancelRequestMail: MailTemplate<RequestVars> = {
  name: 'cancel_request',
  en: requestMail('We received your cancellation', 'We received your cancellation on our cancellation page.', { received: 'Received', plans: 'Plan', kind: 'Type', date: 'Requested date' }, 'Confirm it with one click (the link works once, for 7 days). Your plan then ends at the end of the period already paid; nothing more is charged:'),
  de: requestMail('Ihre Kündigung ist eingegangen', 'Wir haben Ihre Kündigung über unsere Kündigungsseite erhalten.', { received: 'Eingegangen', plans: 'Vertrag', kind: 'Art', date: 'Gewünschtes Datum' }, 'Bestätigen Sie sie mit einem Klick (der Link gilt einmal, 7 Tage lang). Ihr Plan endet dann zum Ende des bereits bezahlten Zeitraums; es wird nichts mehr abgebucht:'),
  es: requestMail('Hemos recibido su cancelación', 'Hemos recibido su cancelación en nuestra página de cancelación.', { received: 'Recibida', plans: 'Plan', kind: 'Tipo', date: 'Fecha solicitada' }, 'Confírmela con un clic (el enlace funciona una vez, durante 7 días). Su plan terminará al final del periodo ya pagado; no se cobrará nada más:'),
  fr: requestMail('Nous avons reçu votre résiliation', 'Nous avons reçu votre résiliation sur notre page de résiliation.', { received: 'Reçue le', plans: 'Plan', kind: 'Type', date: 'Date demandée' }, 'Confirmez-la d’un clic (le lien fonctionne une fois, pendant 7 jours). Votre plan prendra fin à la fin de la période déjà payée ; plus rien ne sera débité :'),
  it: requestMail('Abbiamo ricevuto la Sua disdetta', 'Abbiamo ricevuto la Sua disdetta dalla nostra pagina di disdetta.', { received: 'Ricevuta', plans: 'Piano', kind: 'Tipo', date: 'Data richiesta' }, 'La confermi con un clic (il link vale una volta, per 7 giorni). Il piano terminerà alla fine del periodo già pagato; non verrà addebitato altro:'),
  nl: requestMail('We hebben uw opzegging ontvangen', 'We hebben uw opzegging via onze opzegpagina ontvangen.', { received: 'Ontvangen', plans: 'Plan', kind: 'Soort', date: 'Gewenste datum' }, 'Bevestig deze met één klik (de link werkt één keer, 7 dagen lang). Uw plan eindigt dan aan het einde van de al betaalde periode; er wordt niets meer afgeschreven:'),
  pt: requestMail('Recebemos o seu cancelamento', 'Recebemos o seu cancelamento na nossa página de cancelamento.', { received: 'Recebido', plans: 'Plano', kind: 'Tipo', date: 'Data pedida' }, 'Confirme-o com um clique (a ligação funciona uma vez, durante 7 dias). O plano termina no fim do período já pago; nada mais será cobrado:'),
};

type DoneVars = { received: string; ends: string; link: string };
const doneMail = (subject: string, body: (v: DoneVars) => string) => (v: DoneVars) => ({ subject, text: `${body(v)}\n\n${v.link}\n` });

/** The cancellation is done: when it was declared and when the plan ends. */
export const cancelConfirmedMail: MailTemplate<DoneVars> = {
  name: 'cancel_confirmed',
  en: doneMail('Your plan is cancelled', (v) => `Your cancellation, received ${v.received}, is confirmed. Your plan ends on ${v.ends}; nothing more is charged. You can see your plans here:`),
  de: doneMail('Ihr Plan ist gekündigt', (v) => `Ihre Kündigung vom ${v.received} ist bestätigt. Ihr Plan endet am ${v.ends}; es wird nichts mehr abgebucht. Ihre Pläne finden Sie hier:`),
  es: doneMail('Su plan está cancelado', (v) => `Su cancelación, recibida el ${v.received}, está confirmada. Su plan termina el ${v.ends}; no se cobrará nada más. Puede ver sus planes aquí:`),
  fr: doneMail('Votre plan est résilié', (v) => `Votre résiliation, reçue le ${v.received}, est confirmée. Votre plan prend fin le ${v.ends} ; plus rien ne sera débité. Vos plans sont ici :`),
  it: doneMail('Il Suo piano è disdetto', (v) => `La Sua disdetta, ricevuta il ${v.received}, è confermata. Il piano termina il ${v.ends}; non verrà addebitato altro. Trova i Suoi piani qui:`),
  nl: doneMail('Uw plan is opgezegd', (v) => `Uw opzegging, ontvangen op ${v.received}, is bevestigd. Uw plan eindigt op ${v.ends}; er wordt niets meer afgeschreven. Uw plannen vindt u hier:`),
  pt: doneMail('O seu plano foi cancelado', (v) => `O seu cancelamento, recebido em ${v.received}, está confirmado. O plano termina em ${v.ends}; nada mais será cobrado. Pode ver os seus planos aqui:`),
};

export const KIND_LABELS: Record<string, { ordinary: string; extraordinary: string; all: string }> = {
  en: { ordinary: 'Ordinary cancellation', extraordinary: 'Extraordinary cancellation (for good cause)', all: 'All my plans' },
  de: { ordinary: 'Ordentliche Kündigung', extraordinary: 'Außerordentliche Kündigung (aus wichtigem Grund)', all: 'Alle meine Pläne' },
  es: { ordinary: 'Cancelación ordinaria', extraordinary: 'Cancelación extraordinaria (por causa justificada)', all: 'Todos mis planes' },
  fr: { ordinary: 'Résiliation ordinaire', extraordinary: 'Résiliation extraordinaire (pour motif grave)', all: 'Tous mes plans' },
  it: { ordinary: 'Disdetta ordinaria', extraordinary: 'Recesso straordinario (per giusta causa)', all: 'Tutti i miei piani' },
  nl: { ordinary: 'Gewone opzegging', extraordinary: 'Buitengewone opzegging (om gewichtige reden)', all: 'Al mijn plannen' },
  pt: { ordinary: 'Cancelamento ordinário', extraordinary: 'Cancelamento extraordinário (por justa causa)', all: 'Todos os meus planos' },
};
