// Billing mails to the patient, in the account's locale. No health details: no treatment, no
// category, only the amount and where to look.
import type { Locale, MailTemplate } from '../../mail/outbox.ts';

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

/** "€49.00": amounts in mails, locale-neutral. */
export const formatAmount = (cents: number, currency: string) => `${currency === 'EUR' ? '€' : `${currency} `}${(cents / 100).toFixed(2)}`;
