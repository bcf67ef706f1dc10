// The pharmacy desk's mails to the patient, in the account's locale. Like the decision mails they
// carry no health details (no treatment, dose or prescription): only that the order moved, the
// carrier and tracking number at dispatch, and where to read more.
import type { Locale, MailTemplate } from '../../mail/outbox.ts';

export interface OrderMailVars {
  first_name: string;
  link: string;
  carrier?: string;
  tracking_number?: string;
  tracking_url?: string | null;
}

type Lines = { subject: string; body: string; carrier?: string; tracking?: string; hello: (n: string) => string; sign: string };

function template(name: string, t: Record<Locale, Lines>): MailTemplate<OrderMailVars> {
  const make = (l: Lines) => (v: OrderMailVars) => {
    const tracking = [
      v.carrier && l.carrier ? `${l.carrier}: ${v.carrier}` : '',
      v.tracking_number && l.tracking ? `${l.tracking}: ${v.tracking_number}` : '',
      v.tracking_url ?? '',
    ].filter(Boolean);
    const parts = [l.hello(v.first_name), l.body, ...(tracking.length ? [tracking.join('\n')] : []), v.link, l.sign];
    return { subject: l.subject, text: parts.join('\n\n') + '\n' };
  };
  return { name, de: make(t.de), en: make(t.en), es: make(t.es), fr: make(t.fr), it: make(t.it), nl: make(t.nl), pt: make(t.pt) };
}

const hello: Record<Locale, (n: string) => string> = {
  de: (n) => (n ? `Hallo ${n},` : 'Hallo,'),
  en: (n) => (n ? `Hello ${n},` : 'Hello,'),
  es: (n) => (n ? `Hola ${n}:` : 'Hola:'),
  fr: (n) => (n ? `Bonjour ${n},` : 'Bonjour,'),
  it: (n) => (n ? `Ciao ${n},` : 'Ciao,'),
  nl: (n) => (n ? `Hallo ${n},` : 'Hallo,'),
  pt: (n) => (n ? `Olá ${n},` : 'Olá,'),
};
const sign: Record<Locale, string> = {
  de: 'Ihr Apothekenteam',
  en: 'Your pharmacy team',
  es: 'Tu equipo de farmacia',
  fr: 'Votre équipe pharmacie',
  it: 'Il tuo team della farmacia',
  nl: 'Je apotheekteam',
  pt: 'A sua equipa de farmácia',
};
const carrier: Record<Locale, string> = { de: 'Versanddienst', en: 'Carrier', es: 'Transportista', fr: 'Transporteur', it: 'Corriere', nl: 'Vervoerder', pt: 'Transportadora' };
const tracking: Record<Locale, string> = { de: 'Sendungsnummer', en: 'Tracking number', es: 'Número de seguimiento', fr: 'Numéro de suivi', it: 'Numero di tracciamento', nl: 'Trackingnummer', pt: 'Número de seguimento' };

const shipped: Record<Locale, [string, string]> = {
  de: ['Ihre Bestellung ist unterwegs', 'Ihre Bestellung wurde versandt. Sie können die Sendung hier verfolgen:'],
  en: ['Your order is on its way', 'Your order has been dispatched. You can track the parcel here:'],
  es: ['Tu pedido está en camino', 'Tu pedido ha sido enviado. Puedes seguir el paquete aquí:'],
  fr: ['Votre commande est en route', 'Votre commande a été expédiée. Vous pouvez suivre le colis ici :'],
  it: ['Il tuo ordine è in viaggio', 'Il tuo ordine è stato spedito. Puoi seguire il pacco qui:'],
  nl: ['Je bestelling is onderweg', 'Je bestelling is verzonden. Je kunt het pakket hier volgen:'],
  pt: ['A sua encomenda está a caminho', 'A sua encomenda foi enviada. Pode seguir a encomenda aqui:'],
};
const undeliverable: Record<Locale, [string, string]> = {
  de: ['Ihre Bestellung konnte nicht zugestellt werden', 'Wir konnten Ihre Bestellung nicht zustellen. Unser Team meldet sich bei Ihnen, um sie erneut zu senden oder Ihnen den Betrag zu erstatten. Melden Sie sich an, um den Stand zu sehen:'],
  en: ['Your order could not be delivered', 'We could not deliver your order. Our team will contact you to send it again or refund you. Sign in to see where it stands:'],
  es: ['No hemos podido entregar tu pedido', 'No hemos podido entregar tu pedido. Nuestro equipo se pondrá en contacto contigo para enviarlo de nuevo o reembolsarte. Inicia sesión para ver su estado:'],
  fr: ["Votre commande n'a pas pu être livrée", "Nous n'avons pas pu livrer votre commande. Notre équipe vous contactera pour la renvoyer ou vous rembourser. Connectez-vous pour voir où elle en est :"],
  it: ['Non è stato possibile consegnare il tuo ordine', 'Non siamo riusciti a consegnare il tuo ordine. Il nostro team ti contatterà per spedirlo di nuovo o rimborsarti. Accedi per vedere lo stato:'],
  nl: ['Je bestelling kon niet worden bezorgd', 'We konden je bestelling niet bezorgen. Ons team neemt contact met je op om haar opnieuw te versturen of je terug te betalen. Log in om de stand te zien:'],
  pt: ['Não foi possível entregar a sua encomenda', 'Não conseguimos entregar a sua encomenda. A nossa equipa vai contactá-lo para a reenviar ou reembolsar. Inicie sessão para ver o estado:'],
};
// Said plainly but without naming the treatment: time matters more than the channel.
const tooLate: Record<Locale, [string, string]> = {
  de: ['Bitte holen Sie Ihr Medikament heute in einer Apotheke', 'Ihre Bestellung würde zu spät ankommen, um noch zu wirken. Bitte holen Sie das Medikament sofort in einer Apotheke vor Ort oder wenden Sie sich an eine Ärztin oder einen Arzt. Wir versenden diese Bestellung nicht; unser Team erstattet Ihnen den Betrag. Einzelheiten:'],
  en: ['Please get your medicine from a pharmacy today', 'Your order would arrive too late to work. Please get the medicine from a local pharmacy at once, or see a doctor. We are not sending this order; our team will refund you. Details:'],
  es: ['Consigue tu medicamento hoy en una farmacia', 'Tu pedido llegaría demasiado tarde para hacer efecto. Consigue el medicamento de inmediato en una farmacia cercana o acude a un médico. No enviaremos este pedido; nuestro equipo te hará el reembolso. Detalles:'],
  fr: ["Procurez-vous votre médicament en pharmacie aujourd'hui", "Votre commande arriverait trop tard pour agir. Procurez-vous le médicament immédiatement dans une pharmacie proche, ou consultez un médecin. Nous n'expédions pas cette commande ; notre équipe vous remboursera. Détails :"],
  it: ['Procurati oggi il medicinale in farmacia', 'Il tuo ordine arriverebbe troppo tardi per essere efficace. Procurati subito il medicinale in una farmacia vicina o rivolgiti a un medico. Non spediamo questo ordine; il nostro team ti rimborserà. Dettagli:'],
  nl: ['Haal je medicijn vandaag bij een apotheek', 'Je bestelling zou te laat aankomen om nog te werken. Haal het medicijn meteen bij een apotheek in de buurt of ga naar een arts. We versturen deze bestelling niet; ons team betaalt je terug. Details:'],
  pt: ['Obtenha hoje o seu medicamento numa farmácia', 'A sua encomenda chegaria demasiado tarde para fazer efeito. Obtenha o medicamento de imediato numa farmácia próxima ou consulte um médico. Não vamos enviar esta encomenda; a nossa equipa fará o reembolso. Detalhes:'],
};

const lines = (m: Record<Locale, [string, string]>, withTracking: boolean) => (l: Locale): Lines => ({
  subject: m[l][0],
  body: m[l][1],
  ...(withTracking ? { carrier: carrier[l], tracking: tracking[l] } : {}),
  hello: hello[l],
  sign: sign[l],
});
const all = (f: (l: Locale) => Lines): Record<Locale, Lines> => ({ de: f('de'), en: f('en'), es: f('es'), fr: f('fr'), it: f('it'), nl: f('nl'), pt: f('pt') });

export const orderShippedMail = template('order_shipped', all(lines(shipped, true)));
export const orderUndeliverableMail = template('order_undeliverable', all(lines(undeliverable, false)));
export const orderTooLateMail = template('order_too_late', all(lines(tooLate, false)));

const reshipped: Record<Locale, [string, string]> = {
  de: ['Wir senden Ihre Bestellung erneut', 'Ihre Bestellung konnte nicht zugestellt werden; wir senden sie erneut. Sobald sie unterwegs ist, erhalten Sie die neue Sendungsnummer. Den Stand sehen Sie hier:'],
  en: ['We are sending your order again', 'Your order could not be delivered, so we are sending it again. You will get the new tracking number once it is on its way. See where it stands here:'],
  es: ['Volvemos a enviar tu pedido', 'No pudimos entregar tu pedido, así que lo enviamos de nuevo. Recibirás el nuevo número de seguimiento cuando esté en camino. Consulta su estado aquí:'],
  fr: ['Nous renvoyons votre commande', "Votre commande n'a pas pu être livrée : nous la renvoyons. Vous recevrez le nouveau numéro de suivi dès son expédition. Suivez son état ici :"],
  it: ['Ti rispediamo l’ordine', 'Non è stato possibile consegnare il tuo ordine: lo spediamo di nuovo. Riceverai il nuovo numero di tracciamento alla spedizione. Vedi lo stato qui:'],
  nl: ['We versturen je bestelling opnieuw', 'Je bestelling kon niet worden bezorgd; we versturen haar opnieuw. Je krijgt het nieuwe trackingnummer zodra ze onderweg is. Bekijk de stand hier:'],
  pt: ['Vamos reenviar a sua encomenda', 'Não foi possível entregar a sua encomenda; vamos enviá-la de novo. Receberá o novo número de seguimento quando for expedida. Veja o estado aqui:'],
};
export const orderReshippedMail = template('order_reshipped', all(lines(reshipped, false)));

const refunded: Record<Locale, [string, string]> = {
  de: ['Ihre Bestellung wurde erstattet', 'Ihre Bestellung konnte nicht zugestellt werden; wir haben Ihnen den Betrag erstattet. Die Quittung folgt separat. Einzelheiten:'],
  en: ['Your order has been refunded', 'Your order could not be delivered, so we have refunded you. The receipt follows separately. Details:'],
  es: ['Te hemos reembolsado el pedido', 'No pudimos entregar tu pedido, así que te lo hemos reembolsado. El recibo llega por separado. Detalles:'],
  fr: ['Votre commande a été remboursée', "Votre commande n'a pas pu être livrée : nous vous avons remboursé. Le reçu suit séparément. Détails :"],
  it: ['Il tuo ordine è stato rimborsato', 'Non è stato possibile consegnare il tuo ordine: ti abbiamo rimborsato. La ricevuta segue a parte. Dettagli:'],
  nl: ['Je bestelling is terugbetaald', 'Je bestelling kon niet worden bezorgd; we hebben je terugbetaald. Het bewijs volgt apart. Details:'],
  pt: ['A sua encomenda foi reembolsada', 'Não foi possível entregar a sua encomenda; fizemos o reembolso. O recibo segue em separado. Detalhes:'],
};
export const orderRefundedMail = template('order_refunded', all(lines(refunded, false)));

const reissued: Record<Locale, [string, string]> = {
  de: ['Ihre Anfrage zum Rezept wurde beantwortet', 'Eine Ärztin oder ein Arzt hat Ihre Anfrage, ein Rezept neu auszustellen, beantwortet. Melden Sie sich an, um die Antwort zu sehen:'],
  en: ['Your prescription request has been answered', 'A doctor has answered your request to reissue a prescription. Sign in to see the answer:'],
  es: ['Tu solicitud de receta ha sido respondida', 'Un médico ha respondido a tu solicitud de volver a emitir una receta. Inicia sesión para ver la respuesta:'],
  fr: ['Votre demande d’ordonnance a reçu une réponse', 'Un médecin a répondu à votre demande de réémission d’ordonnance. Connectez-vous pour voir la réponse :'],
  it: ['La tua richiesta di ricetta ha ricevuto risposta', 'Un medico ha risposto alla tua richiesta di riemettere una ricetta. Accedi per vedere la risposta:'],
  nl: ['Je receptaanvraag is beantwoord', 'Een arts heeft je verzoek om een recept opnieuw uit te schrijven beantwoord. Log in om het antwoord te zien:'],
  pt: ['O seu pedido de receita foi respondido', 'Um médico respondeu ao seu pedido de reemissão de receita. Inicie sessão para ver a resposta:'],
};
/** The doctor's decision on a reissue request (approved or declined: the page says which). */
export const reissueDecidedMail = template('prescription_reissue_decided', all(lines(reissued, false)));
