// Payment receipt mails, in the account's locale. Like every mail of the service they carry no
// health details: no treatment, medicine, dosage or category, only the amount, the date, the
// invoice reference and the link to the invoice. Also the notice of a duplicate payment refunded.
import type { Locale, MailTemplate } from '../../mail/outbox.ts';

export interface ReceiptVars {
  first_name: string;
  amount_cents: number;
  currency: string;
  /** ISO timestamp of the charge or refund. */
  at: string;
  /** IANA time zone of the account ('' for UTC). */
  timezone: string;
  /** Invoice number (INV-1001). */
  reference: string;
  /** Provider refund id (refund receipts only). */
  refund_id?: string;
  link: string;
}

type Words = {
  hello: (n: string) => string;
  sign: string;
  date: string;
  reference: string;
  invoice: string;
  charge: { subject: string; intro: string; amount: string };
  refund: { subject: string; intro: string; amount: string; refund: string };
};

const W: Record<Locale, Words> = {
  de: {
    hello: (n) => (n ? `Hallo ${n},` : 'Hallo,'),
    sign: 'Ihr Serviceteam',
    date: 'Datum',
    reference: 'Rechnungsnummer',
    invoice: 'Ihre Rechnung finden Sie hier:',
    charge: { subject: 'Ihre Zahlungsbestätigung', intro: 'Vielen Dank für Ihre Zahlung. Wir haben folgenden Betrag erhalten:', amount: 'Betrag' },
    refund: {
      subject: 'Ihre Erstattung',
      intro: 'Wir haben Ihnen einen Betrag erstattet. Es kann einige Tage dauern, bis er auf Ihrer Abrechnung erscheint.',
      amount: 'Erstatteter Betrag',
      refund: 'Erstattungsreferenz',
    },
  },
  en: {
    hello: (n) => (n ? `Hello ${n},` : 'Hello,'),
    sign: 'Your service team',
    date: 'Date',
    reference: 'Invoice number',
    invoice: 'Your invoice:',
    charge: { subject: 'Your payment receipt', intro: 'Thank you for your payment. We have received:', amount: 'Amount' },
    refund: { subject: 'Your refund', intro: 'We have refunded an amount to you. It can take a few days to appear on your statement.', amount: 'Amount refunded', refund: 'Refund reference' },
  },
  es: {
    hello: (n) => (n ? `Hola ${n}:` : 'Hola:'),
    sign: 'Tu equipo de atención',
    date: 'Fecha',
    reference: 'Número de factura',
    invoice: 'Tu factura:',
    charge: { subject: 'Tu recibo de pago', intro: 'Gracias por tu pago. Hemos recibido:', amount: 'Importe' },
    refund: { subject: 'Tu reembolso', intro: 'Te hemos reembolsado un importe. Puede tardar unos días en aparecer en tu extracto.', amount: 'Importe reembolsado', refund: 'Referencia del reembolso' },
  },
  fr: {
    hello: (n) => (n ? `Bonjour ${n},` : 'Bonjour,'),
    sign: 'Votre équipe service',
    date: 'Date',
    reference: 'Numéro de facture',
    invoice: 'Votre facture :',
    charge: { subject: 'Votre reçu de paiement', intro: 'Merci pour votre paiement. Nous avons reçu :', amount: 'Montant' },
    refund: {
      subject: 'Votre remboursement',
      intro: 'Nous vous avons remboursé un montant. Il peut falloir quelques jours avant qu’il apparaisse sur votre relevé.',
      amount: 'Montant remboursé',
      refund: 'Référence du remboursement',
    },
  },
  it: {
    hello: (n) => (n ? `Ciao ${n},` : 'Ciao,'),
    sign: 'Il tuo team di assistenza',
    date: 'Data',
    reference: 'Numero di fattura',
    invoice: 'La tua fattura:',
    charge: { subject: 'La tua ricevuta di pagamento', intro: 'Grazie per il tuo pagamento. Abbiamo ricevuto:', amount: 'Importo' },
    refund: {
      subject: 'Il tuo rimborso',
      intro: 'Ti abbiamo rimborsato un importo. Potrebbero volerci alcuni giorni prima che compaia nel tuo estratto conto.',
      amount: 'Importo rimborsato',
      refund: 'Riferimento del rimborso',
    },
  },
  nl: {
    hello: (n) => (n ? `Hallo ${n},` : 'Hallo,'),
    sign: 'Je serviceteam',
    date: 'Datum',
    reference: 'Factuurnummer',
    invoice: 'Je factuur:',
    charge: { subject: 'Je betalingsbewijs', intro: 'Bedankt voor je betaling. We hebben ontvangen:', amount: 'Bedrag' },
    refund: { subject: 'Je terugbetaling', intro: 'We hebben een bedrag aan je terugbetaald. Het kan een paar dagen duren voordat het op je afschrift staat.', amount: 'Terugbetaald bedrag', refund: 'Referentie terugbetaling' },
  },
  pt: {
    hello: (n) => (n ? `Olá ${n},` : 'Olá,'),
    sign: 'A sua equipa de apoio',
    date: 'Data',
    reference: 'Número da fatura',
    invoice: 'A sua fatura:',
    charge: { subject: 'O seu recibo de pagamento', intro: 'Obrigado pelo seu pagamento. Recebemos:', amount: 'Montante' },
    refund: { subject: 'O seu reembolso', intro: 'Reembolsámos-lhe um montante. Pode demorar alguns dias a aparecer no seu extrato.', amount: 'Montante reembolsado', refund: 'Referência do reembolso' },
  },
};

const TAGS: Record<Locale, string> = { de: 'de-DE', en: 'en-GB', es: 'es-ES', fr: 'fr-FR', it: 'it-IT', nl: 'nl-NL', pt: 'pt-PT' };

function validZone(tz: string): string {
  if (!tz) return 'UTC';
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return tz;
  } catch {
    return 'UTC';
  }
}

export const formatAmount = (locale: Locale, cents: number, currency: string) => new Intl.NumberFormat(TAGS[locale], { style: 'currency', currency }).format(cents / 100);
export const formatDate = (locale: Locale, iso: string, tz: string) => new Intl.DateTimeFormat(TAGS[locale], { dateStyle: 'long', timeZone: validZone(tz) }).format(new Date(iso));

function template(name: string, kind: 'charge' | 'refund'): MailTemplate<ReceiptVars> {
  const make = (locale: Locale) => (v: ReceiptVars) => {
    const w = W[locale];
    const k = w[kind];
    const lines = [
      `${w.hello(v.first_name)}`,
      '',
      k.intro,
      '',
      `${k.amount}: ${formatAmount(locale, v.amount_cents, v.currency)}`,
      `${w.date}: ${formatDate(locale, v.at, v.timezone)}`,
      `${w.reference}: ${v.reference}`,
      ...(kind === 'refund' && v.refund_id ? [`${w.refund.refund}: ${v.refund_id}`] : []),
      '',
      w.invoice,
      v.link,
      '',
      w.sign,
      '',
    ];
    return { subject: `${k.subject} (${v.reference})`, text: lines.join('\n') };
  };
  return { name, de: make('de'), en: make('en'), es: make('es'), fr: make('fr'), it: make('it'), nl: make('nl'), pt: make('pt') };
}

export const paymentReceiptMail = template('payment_receipt', 'charge');
export const refundReceiptMail = template('refund_receipt', 'refund');

// A second payment for a review already paid for, refunded at once (docs/hardening.md).

export interface DuplicateRefundVars {
  first_name: string;
  amount: string;
  link: string;
}

const lines: Record<Locale, { subject: string; hello: (n: string) => string; body: (amount: string) => string; sign: string }> = {
  de: {
    subject: 'Doppelte Zahlung erstattet',
    hello: (n) => (n ? `Hallo ${n},` : 'Hallo,'),
    body: (a) => `Sie haben dieselbe Konsultation zweimal bezahlt. Die zweite Zahlung über ${a} haben wir automatisch erstattet; je nach Bank erscheint sie in 5 bis 10 Werktagen auf Ihrem Konto. Ihre erste Zahlung und Ihre Konsultation bleiben unverändert.`,
    sign: 'Ihr Team',
  },
  en: {
    subject: 'Duplicate payment refunded',
    hello: (n) => (n ? `Hello ${n},` : 'Hello,'),
    body: (a) => `You paid twice for the same consultation. We have refunded the second payment of ${a} automatically; depending on your bank it shows on your account within 5 to 10 business days. Your first payment and your consultation are unchanged.`,
    sign: 'Your team',
  },
  es: {
    subject: 'Pago duplicado reembolsado',
    hello: (n) => (n ? `Hola ${n}:` : 'Hola:'),
    body: (a) => `Has pagado dos veces la misma consulta. Hemos reembolsado automáticamente el segundo pago de ${a}; según tu banco, aparecerá en tu cuenta en 5 a 10 días hábiles. Tu primer pago y tu consulta no cambian.`,
    sign: 'Tu equipo',
  },
  fr: {
    subject: 'Paiement en double remboursé',
    hello: (n) => (n ? `Bonjour ${n},` : 'Bonjour,'),
    body: (a) => `Vous avez payé deux fois la même consultation. Nous avons remboursé automatiquement le second paiement de ${a} ; selon votre banque, il apparaîtra sur votre compte sous 5 à 10 jours ouvrés. Votre premier paiement et votre consultation ne changent pas.`,
    sign: 'Votre équipe',
  },
  it: {
    subject: 'Pagamento doppio rimborsato',
    hello: (n) => (n ? `Ciao ${n},` : 'Ciao,'),
    body: (a) => `Hai pagato due volte la stessa consulenza. Abbiamo rimborsato automaticamente il secondo pagamento di ${a}; a seconda della tua banca, comparirà sul conto entro 5-10 giorni lavorativi. Il primo pagamento e la consulenza restano invariati.`,
    sign: 'Il tuo team',
  },
  nl: {
    subject: 'Dubbele betaling terugbetaald',
    hello: (n) => (n ? `Hallo ${n},` : 'Hallo,'),
    body: (a) => `Je hebt twee keer voor hetzelfde consult betaald. De tweede betaling van ${a} hebben we automatisch terugbetaald; afhankelijk van je bank staat die binnen 5 tot 10 werkdagen op je rekening. Je eerste betaling en je consult blijven ongewijzigd.`,
    sign: 'Je team',
  },
  pt: {
    subject: 'Pagamento duplicado reembolsado',
    hello: (n) => (n ? `Olá ${n},` : 'Olá,'),
    body: (a) => `Pagou duas vezes a mesma consulta. Reembolsámos automaticamente o segundo pagamento de ${a}; consoante o seu banco, aparecerá na sua conta em 5 a 10 dias úteis. O seu primeiro pagamento e a sua consulta não mudam.`,
    sign: 'A sua equipa',
  },
};

const make = (locale: Locale) => (v: DuplicateRefundVars) => {
  const l = lines[locale];
  return { subject: l.subject, text: `${l.hello(v.first_name)}\n\n${l.body(v.amount)}\n\n${v.link}\n\n${l.sign}\n` };
};

export const duplicateRefundMail: MailTemplate<DuplicateRefundVars> = {
  name: 'duplicate_payment_refunded',
  de: make('de'),
  en: make('en'),
  es: make('es'),
  fr: make('fr'),
  it: make('it'),
  nl: make('nl'),
  pt: make('pt'),
};
