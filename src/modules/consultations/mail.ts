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

/** The doctor asked for a call (status awaiting_call): the patient books a time (docs/appointments.md). */
export const consultationCallRequestedMail = template('consultation_call_requested', {
  de: { subject: 'Ihre Ärztin oder Ihr Arzt möchte mit Ihnen sprechen', body: 'Um Ihre Konsultation abzuschließen, möchte das medizinische Team kurz mit Ihnen per Video sprechen. Melden Sie sich an, um den Grund zu lesen und einen Termin zu buchen:', hello: hello.de, sign: sign.de },
  en: { subject: 'Your doctor would like to talk to you', body: 'To complete your consultation, the medical team would like a short video call with you. Sign in to read why and to book a time:', hello: hello.en, sign: sign.en },
  es: { subject: 'Tu médico quiere hablar contigo', body: 'Para completar tu consulta, el equipo médico quiere hacer una breve videollamada contigo. Inicia sesión para leer el motivo y reservar una hora:', hello: hello.es, sign: sign.es },
  fr: { subject: 'Votre médecin souhaite vous parler', body: "Pour terminer votre consultation, l'équipe médicale souhaite un court appel vidéo avec vous. Connectez-vous pour lire pourquoi et réserver un créneau :", hello: hello.fr, sign: sign.fr },
  it: { subject: 'Il tuo medico vorrebbe parlarti', body: 'Per completare la tua consulenza, il team medico vorrebbe una breve videochiamata con te. Accedi per leggere il motivo e prenotare un orario:', hello: hello.it, sign: sign.it },
  nl: { subject: 'Je arts wil je graag spreken', body: 'Om je consult af te ronden wil het medische team kort met je videobellen. Log in om te lezen waarom en een tijd te boeken:', hello: hello.nl, sign: sign.nl },
  pt: { subject: 'O seu médico gostaria de falar consigo', body: 'Para concluir a sua consulta, a equipa médica gostaria de uma breve videochamada consigo. Inicie sessão para ler o motivo e marcar uma hora:', hello: hello.pt, sign: sign.pt },
});

/** A rejected consultation whose payment went back: the refund receipt follows as its own mail. */
export const consultationRejectedRefundedMail = template('consultation_rejected_refunded', {
  de: { subject: 'Ihre Konsultation wurde geprüft', body: 'Eine Ärztin oder ein Arzt hat Ihre Konsultation geprüft und kann die Behandlung nicht verschreiben. Ihre Zahlung wird vollständig erstattet; der Beleg folgt in einer eigenen E-Mail. Melden Sie sich an, um die Begründung zu lesen:', hello: hello.de, sign: sign.de },
  en: { subject: 'Your consultation has been reviewed', body: 'A doctor has reviewed your consultation and cannot prescribe the treatment. Your payment is refunded in full; the receipt follows in a separate email. Sign in to read the doctor\'s note:', hello: hello.en, sign: sign.en },
  es: { subject: 'Tu consulta ha sido revisada', body: 'Un médico ha revisado tu consulta y no puede prescribir el tratamiento. Te reembolsamos el pago íntegro; el justificante llegará en otro correo. Inicia sesión para leer la nota del médico:', hello: hello.es, sign: sign.es },
  fr: { subject: 'Votre consultation a été examinée', body: 'Un médecin a examiné votre consultation et ne peut pas prescrire le traitement. Votre paiement est remboursé intégralement ; le reçu suit dans un autre e-mail. Connectez-vous pour lire la note du médecin :', hello: hello.fr, sign: sign.fr },
  it: { subject: 'La tua consulenza è stata esaminata', body: 'Un medico ha esaminato la tua consulenza e non può prescrivere il trattamento. Il pagamento ti viene rimborsato per intero; la ricevuta arriva in un\'altra email. Accedi per leggere la nota del medico:', hello: hello.it, sign: sign.it },
  nl: { subject: 'Je consult is beoordeeld', body: 'Een arts heeft je consult beoordeeld en kan de behandeling niet voorschrijven. Je betaling wordt volledig terugbetaald; het bewijs volgt in een aparte e-mail. Log in om de toelichting van de arts te lezen:', hello: hello.nl, sign: sign.nl },
  pt: { subject: 'A sua consulta foi analisada', body: 'Um médico analisou a sua consulta e não pode prescrever o tratamento. O seu pagamento é reembolsado na totalidade; o recibo segue noutro e-mail. Inicie sessão para ler a nota do médico:', hello: hello.pt, sign: sign.pt },
});

/** A question of the doctor left unanswered for INFORMATION_REQUEST_DAYS: the review ends (refunded when paid). */
export const consultationExpiredMail = template('consultation_expired', {
  de: { subject: 'Ihre Konsultation wurde geschlossen', body: 'Ihre Ärztin oder Ihr Arzt hat auf die Rückfrage 14 Tage lang keine Antwort erhalten, daher wurde die Konsultation geschlossen. Eine Zahlung dafür wird vollständig erstattet. Sie können jederzeit einen neuen Fragebogen ausfüllen:', hello: hello.de, sign: sign.de },
  en: { subject: 'Your consultation has been closed', body: "Your doctor's question went unanswered for 14 days, so the consultation has been closed. Any payment for it is refunded in full. You can start a new questionnaire at any time:", hello: hello.en, sign: sign.en },
  es: { subject: 'Tu consulta se ha cerrado', body: 'La pregunta de tu médico lleva 14 días sin respuesta, así que la consulta se ha cerrado. Te reembolsamos íntegramente cualquier pago. Puedes empezar un nuevo cuestionario cuando quieras:', hello: hello.es, sign: sign.es },
  fr: { subject: 'Votre consultation a été clôturée', body: "La question de votre médecin est restée sans réponse pendant 14 jours : la consultation a été clôturée. Tout paiement est remboursé intégralement. Vous pouvez remplir un nouveau questionnaire à tout moment :", hello: hello.fr, sign: sign.fr },
  it: { subject: 'La tua consulenza è stata chiusa', body: 'La domanda del medico è rimasta senza risposta per 14 giorni, quindi la consulenza è stata chiusa. Ogni pagamento ti viene rimborsato per intero. Puoi compilare un nuovo questionario quando vuoi:', hello: hello.it, sign: sign.it },
  nl: { subject: 'Je consult is gesloten', body: 'De vraag van je arts is 14 dagen onbeantwoord gebleven, daarom is het consult gesloten. Een betaling wordt volledig terugbetaald. Je kunt altijd een nieuwe vragenlijst invullen:', hello: hello.nl, sign: sign.nl },
  pt: { subject: 'A sua consulta foi encerrada', body: 'A pergunta do seu médico ficou sem resposta durante 14 dias, por isso a consulta foi encerrada. Qualquer pagamento é reembolsado na totalidade. Pode preencher um novo questionário a qualquer momento:', hello: hello.pt, sign: sign.pt },
});
