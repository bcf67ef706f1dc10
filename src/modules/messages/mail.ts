// The notice a patient gets when the medical team replies: no health details, only a pointer.
import type { MailTemplate } from '../../mail/outbox.ts';

const mail = (subject: string, text: string) => (v: { link: string }) => ({ subject, text: `${text}\n\n${v.link}\n` });

export const doctorReplyMail: MailTemplate<{ link: string }> = {
  name: 'doctor_reply',
  en: mail('You have a new message from your medical team', 'Your medical team has replied to you. Sign in to read the message:'),
  de: mail('Neue Nachricht von Ihrem medizinischen Team', 'Ihr medizinisches Team hat Ihnen geantwortet. Melden Sie sich an, um die Nachricht zu lesen:'),
  es: mail('Tienes un mensaje nuevo de tu equipo médico', 'Tu equipo médico te ha respondido. Inicia sesión para leer el mensaje:'),
  fr: mail('Nouveau message de votre équipe médicale', 'Votre équipe médicale vous a répondu. Connectez-vous pour lire le message :'),
  it: mail('Hai un nuovo messaggio dal tuo team medico', 'Il tuo team medico ti ha risposto. Accedi per leggere il messaggio:'),
  nl: mail('Nieuw bericht van uw medische team', 'Uw medische team heeft u geantwoord. Log in om het bericht te lezen:'),
  pt: mail('Tem uma nova mensagem da sua equipa médica', 'A sua equipa médica respondeu-lhe. Inicie sessão para ler a mensagem:'),
};
