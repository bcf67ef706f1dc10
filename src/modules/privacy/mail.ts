// The erasure confirmation in the seven locales: sent to the address the account had, the last mail
// the service sends it. No health details.
import type { MailTemplate } from '../../mail/outbox.ts';

const plain = (subject: string, text: string) => () => ({ subject, text: `${text}\n` });

export const accountErasedMail: MailTemplate<Record<string, never>> = {
  name: 'account_erased',
  en: plain('Your account has been erased', 'Your account and its personal data have been erased, your plans canceled and every session signed out. What the law requires us to keep (invoices, prescriptions and medical records) is kept under a pseudonym for its retention period only. If you did not ask for this, contact us at once.'),
  de: plain('Ihr Konto wurde gelöscht', 'Ihr Konto und seine personenbezogenen Daten wurden gelöscht, Ihre Abonnements gekündigt und alle Sitzungen abgemeldet. Was wir gesetzlich aufbewahren müssen (Rechnungen, Rezepte und Behandlungsunterlagen), bleibt pseudonymisiert nur für die Aufbewahrungsfrist erhalten. Wenn Sie das nicht veranlasst haben, kontaktieren Sie uns sofort.'),
  es: plain('Tu cuenta ha sido eliminada', 'Tu cuenta y sus datos personales han sido eliminados, tus planes cancelados y todas las sesiones cerradas. Lo que la ley nos obliga a conservar (facturas, recetas e historia clínica) se conserva seudonimizado solo durante su plazo legal. Si no lo has solicitado, contáctanos de inmediato.'),
  fr: plain('Votre compte a été supprimé', 'Votre compte et ses données personnelles ont été supprimés, vos abonnements résiliés et toutes les sessions fermées. Ce que la loi nous oblige à conserver (factures, ordonnances et dossier médical) est conservé sous pseudonyme pendant la seule durée légale. Si vous n’êtes pas à l’origine de cette demande, contactez-nous immédiatement.'),
  it: plain('Il tuo account è stato cancellato', 'Il tuo account e i suoi dati personali sono stati cancellati, i tuoi piani annullati e tutte le sessioni chiuse. Ciò che la legge ci obbliga a conservare (fatture, prescrizioni e cartelle cliniche) resta pseudonimizzato solo per il periodo di conservazione. Se non l’hai richiesto, contattaci subito.'),
  nl: plain('Uw account is verwijderd', 'Uw account en de persoonsgegevens ervan zijn verwijderd, uw abonnementen opgezegd en alle sessies afgemeld. Wat wij wettelijk moeten bewaren (facturen, recepten en medische dossiers) blijft gepseudonimiseerd alleen gedurende de bewaartermijn bewaard. Heeft u dit niet aangevraagd? Neem dan direct contact met ons op.'),
  pt: plain('A sua conta foi apagada', 'A sua conta e os seus dados pessoais foram apagados, os seus planos cancelados e todas as sessões terminadas. O que a lei nos obriga a conservar (faturas, receitas e registos clínicos) fica pseudonimizado apenas durante o prazo legal. Se não pediu isto, contacte-nos de imediato.'),
};
