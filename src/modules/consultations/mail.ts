// Decision emails to the patient, in the account's locale. They never carry health details (no
// treatment, dosage or doctor's text): only that there is an update and where to read it.
import type { MailTemplate } from '../../mail/outbox.ts';

export interface DecisionVars {
  first_name: string;
  link: string;
}

type Lines = { subject: string; body: string; hello: (n: string) => string; sign: string };

function template(name: string, t: Record<'de' | 'en' | 'es' | 'fr' | 'it' | 'nl' | 'pt', Lines>): MailTemplate<DecisionVars> {
  const make = (l: Lines) => (v: DecisionVars) => ({ subject: l.subject, text: `${l.hello(v.first_name)}\n\n${l.body}\n\n${v.link}\n\n${l.sign}\n` });
  return { name, de: make(t.de), en: make(t.en), es: make(t.es), fr: make(t.fr), it: make(t.it), nl: make(t.nl), pt: make(t.pt) };
}

const hello = {
  de: (n: string) => (n ? `Hallo ${n},` : 'Hallo,'),
  en: (n: string) => (n ? `Hello ${n},` : 'Hello,'),
  es: (n: string) => (n ? `Hola ${n}:` : 'Hola:'),
  fr: (n: string) => (n ? `Bonjour ${n},` : 'Bonjour,'),
  it: (n: string) => (n ? `Ciao ${n},` : 'Ciao,'),
  nl: (n: string) => (n ? `Hallo ${n},` : 'Hallo,'),
  pt: (n: string) => (n ? `Olá ${n},` : 'Olá,'),
};
const sign = {
  de: 'Ihr medizinisches Team',
  en: 'Your medical team',
  es: 'Tu equipo médico',
  fr: 'Votre équipe médicale',
  it: 'Il tuo team medico',
  nl: 'Je medische team',
  pt: 'A sua equipa médica',
};

export const consultationApprovedMail = template('consultation_approved', {
  de: { subject: 'Ihre Konsultation wurde geprüft', body: 'Eine Ärztin oder ein Arzt hat Ihre Konsultation geprüft und Ihre Behandlung wird vorbereitet. Melden Sie sich an, um die Einzelheiten zu sehen:', hello: hello.de, sign: sign.de },
  en: { subject: 'Your consultation has been reviewed', body: 'A doctor has reviewed your consultation and your treatment is being prepared. Sign in to see the details:', hello: hello.en, sign: sign.en },
  es: { subject: 'Tu consulta ha sido revisada', body: 'Un médico ha revisado tu consulta y se está preparando tu tratamiento. Inicia sesión para ver los detalles:', hello: hello.es, sign: sign.es },
  fr: { subject: 'Votre consultation a été examinée', body: 'Un médecin a examiné votre consultation et votre traitement est en préparation. Connectez-vous pour voir les détails :', hello: hello.fr, sign: sign.fr },
  it: { subject: 'La tua consulenza è stata esaminata', body: 'Un medico ha esaminato la tua consulenza e il tuo trattamento è in preparazione. Accedi per vedere i dettagli:', hello: hello.it, sign: sign.it },
  nl: { subject: 'Je consult is beoordeeld', body: 'Een arts heeft je consult beoordeeld en je behandeling wordt voorbereid. Log in om de details te bekijken:', hello: hello.nl, sign: sign.nl },
  pt: { subject: 'A sua consulta foi analisada', body: 'Um médico analisou a sua consulta e o seu tratamento está a ser preparado. Inicie sessão para ver os detalhes:', hello: hello.pt, sign: sign.pt },
});

export const consultationRejectedMail = template('consultation_rejected', {
  de: { subject: 'Ihre Konsultation wurde geprüft', body: 'Eine Ärztin oder ein Arzt hat Ihre Konsultation geprüft. Melden Sie sich an, um die Entscheidung und die Begründung zu lesen:', hello: hello.de, sign: sign.de },
  en: { subject: 'Your consultation has been reviewed', body: "A doctor has reviewed your consultation. Sign in to read the decision and the doctor's note:", hello: hello.en, sign: sign.en },
  es: { subject: 'Tu consulta ha sido revisada', body: 'Un médico ha revisado tu consulta. Inicia sesión para leer la decisión y la nota del médico:', hello: hello.es, sign: sign.es },
  fr: { subject: 'Votre consultation a été examinée', body: 'Un médecin a examiné votre consultation. Connectez-vous pour lire la décision et la note du médecin :', hello: hello.fr, sign: sign.fr },
  it: { subject: 'La tua consulenza è stata esaminata', body: 'Un medico ha esaminato la tua consulenza. Accedi per leggere la decisione e la nota del medico:', hello: hello.it, sign: sign.it },
  nl: { subject: 'Je consult is beoordeeld', body: 'Een arts heeft je consult beoordeeld. Log in om het besluit en de toelichting van de arts te lezen:', hello: hello.nl, sign: sign.nl },
  pt: { subject: 'A sua consulta foi analisada', body: 'Um médico analisou a sua consulta. Inicie sessão para ler a decisão e a nota do médico:', hello: hello.pt, sign: sign.pt },
});

export const consultationInformationMail = template('consultation_information_requested', {
  de: { subject: 'Ihre Ärztin oder Ihr Arzt braucht weitere Angaben', body: 'Um Ihre Konsultation abzuschließen, benötigt das medizinische Team weitere Angaben von Ihnen. Melden Sie sich an, um die Frage zu lesen:', hello: hello.de, sign: sign.de },
  en: { subject: 'Your doctor needs more information', body: 'To complete your consultation, the medical team needs more information from you. Sign in to read the question:', hello: hello.en, sign: sign.en },
  es: { subject: 'Tu médico necesita más información', body: 'Para completar tu consulta, el equipo médico necesita más información. Inicia sesión para leer la pregunta:', hello: hello.es, sign: sign.es },
  fr: { subject: "Votre médecin a besoin d'informations complémentaires", body: "Pour terminer votre consultation, l'équipe médicale a besoin d'informations complémentaires. Connectez-vous pour lire la question :", hello: hello.fr, sign: sign.fr },
  it: { subject: 'Il tuo medico ha bisogno di altre informazioni', body: 'Per completare la tua consulenza, il team medico ha bisogno di altre informazioni. Accedi per leggere la domanda:', hello: hello.it, sign: sign.it },
  nl: { subject: 'Je arts heeft meer informatie nodig', body: 'Om je consult af te ronden heeft het medische team meer informatie van je nodig. Log in om de vraag te lezen:', hello: hello.nl, sign: sign.nl },
  pt: { subject: 'O seu médico precisa de mais informações', body: 'Para concluir a sua consulta, a equipa médica precisa de mais informações. Inicie sessão para ler a pergunta:', hello: hello.pt, sign: sign.pt },
});
