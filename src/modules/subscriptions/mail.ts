// Renewal reminders, in the patient's locale, with no health details.
import type { MailTemplate } from '../../mail/outbox.ts';

const mail = (subject: string, text: string) => (v: { link: string }) => ({ subject, text: `${text}\n\n${v.link}\n` });

export const renewalOpenMail: MailTemplate<{ link: string }> = {
  name: 'renewal_open',
  en: mail('Your next treatment period: please confirm', 'Your treatment plan renews soon. Please answer a few safety questions and confirm your choice so that a doctor can review it:'),
  de: mail('Ihr nächster Behandlungszeitraum: bitte bestätigen', 'Ihr Behandlungsplan verlängert sich bald. Bitte beantworten Sie einige Sicherheitsfragen und bestätigen Sie Ihre Wahl, damit eine Ärztin oder ein Arzt sie prüfen kann:'),
  es: mail('Tu próximo periodo de tratamiento: confírmalo', 'Tu plan de tratamiento se renueva pronto. Responde a unas preguntas de seguridad y confirma tu elección para que un médico la revise:'),
  fr: mail('Votre prochaine période de traitement : merci de confirmer', 'Votre plan de traitement se renouvelle bientôt. Répondez à quelques questions de sécurité et confirmez votre choix pour qu’un médecin puisse l’examiner :'),
  it: mail('Il tuo prossimo periodo di trattamento: conferma', 'Il tuo piano di trattamento si rinnova a breve. Rispondi ad alcune domande di sicurezza e conferma la tua scelta perché un medico possa esaminarla:'),
  nl: mail('Uw volgende behandelperiode: graag bevestigen', 'Uw behandelplan wordt binnenkort verlengd. Beantwoord een paar veiligheidsvragen en bevestig uw keuze, zodat een arts die kan beoordelen:'),
  pt: mail('O seu próximo período de tratamento: confirme', 'O seu plano de tratamento renova-se em breve. Responda a algumas perguntas de segurança e confirme a sua escolha para que um médico a possa rever:'),
};

export const renewalPausedMail: MailTemplate<{ link: string }> = {
  name: 'renewal_paused',
  en: mail('Your treatment plan is paused', 'We did not receive your renewal confirmation, so your plan is paused and you have not been charged. Confirm your renewal to continue:'),
  de: mail('Ihr Behandlungsplan ist pausiert', 'Wir haben Ihre Bestätigung nicht erhalten. Ihr Plan ist daher pausiert, und es wurde nichts abgebucht. Bestätigen Sie die Verlängerung, um fortzufahren:'),
  es: mail('Tu plan de tratamiento está en pausa', 'No recibimos tu confirmación, así que tu plan está en pausa y no se te ha cobrado. Confirma la renovación para continuar:'),
  fr: mail('Votre plan de traitement est en pause', 'Nous n’avons pas reçu votre confirmation : votre plan est en pause et rien n’a été débité. Confirmez le renouvellement pour continuer :'),
  it: mail('Il tuo piano di trattamento è in pausa', 'Non abbiamo ricevuto la tua conferma: il piano è in pausa e non ti è stato addebitato nulla. Conferma il rinnovo per continuare:'),
  nl: mail('Uw behandelplan is gepauzeerd', 'We hebben uw bevestiging niet ontvangen. Uw plan is daarom gepauzeerd en er is niets afgeschreven. Bevestig de verlenging om door te gaan:'),
  pt: mail('O seu plano de tratamento está em pausa', 'Não recebemos a sua confirmação, por isso o plano está em pausa e não foi cobrado. Confirme a renovação para continuar:'),
};

/** A doctor decided the patient's dose-change request (the outcome is shown on the plan page, not in the mail). */
export const doseChangeDecidedMail: MailTemplate<{ link: string }> = {
  name: 'dose_change_decided',
  en: mail('A doctor answered your request about your plan', 'A doctor has answered your request to change your treatment plan. See the answer on your plan page:'),
  de: mail('Eine Ärztin oder ein Arzt hat Ihre Anfrage zu Ihrem Plan beantwortet', 'Ihre Anfrage zur Änderung Ihres Behandlungsplans wurde ärztlich beantwortet. Die Antwort finden Sie auf Ihrer Planseite:'),
  es: mail('Un médico ha respondido a tu solicitud sobre tu plan', 'Un médico ha respondido a tu solicitud de cambio de tu plan de tratamiento. Consulta la respuesta en la página de tu plan:'),
  fr: mail('Un médecin a répondu à votre demande concernant votre plan', 'Un médecin a répondu à votre demande de modification de votre plan de traitement. Consultez la réponse sur la page de votre plan :'),
  it: mail('Un medico ha risposto alla tua richiesta sul piano', 'Un medico ha risposto alla tua richiesta di modifica del piano di trattamento. Trovi la risposta nella pagina del tuo piano:'),
  nl: mail('Een arts heeft uw verzoek over uw plan beantwoord', 'Een arts heeft uw verzoek om uw behandelplan te wijzigen beantwoord. U vindt het antwoord op de pagina van uw plan:'),
  pt: mail('Um médico respondeu ao seu pedido sobre o plano', 'Um médico respondeu ao seu pedido de alteração do plano de tratamento. Veja a resposta na página do seu plano:'),
};
