// Account mails in the seven locales. The code stands alone on its line so that a reader (and the
// acceptance suite) can pick it out; no other 6-digit number appears in these mails.
import type { MailTemplate } from '../../mail/outbox.ts';

type Code = { code: string; minutes: number };
const codeMail = (subject: string, intro: string, validity: (m: number) => string, ignore: string) => (v: Code) => ({
  subject,
  text: `${intro}\n\n${v.code}\n\n${validity(v.minutes)}\n${ignore}\n`,
});

export const verificationCodeMail: MailTemplate<Code> = {
  name: 'verification_code',
  en: codeMail('Your verification code', 'Your verification code is:', (m) => `It is valid for ${m} minutes and can be used once.`, 'If you did not create an account, ignore this email.'),
  de: codeMail('Ihr Bestätigungscode', 'Ihr Bestätigungscode lautet:', (m) => `Er ist ${m} Minuten gültig und kann einmal verwendet werden.`, 'Wenn Sie kein Konto erstellt haben, ignorieren Sie diese E-Mail.'),
  es: codeMail('Tu código de verificación', 'Tu código de verificación es:', (m) => `Es válido durante ${m} minutos y solo puede usarse una vez.`, 'Si no has creado una cuenta, ignora este correo.'),
  fr: codeMail('Votre code de vérification', 'Votre code de vérification est :', (m) => `Il est valable ${m} minutes et ne peut être utilisé qu’une fois.`, 'Si vous n’avez pas créé de compte, ignorez cet e-mail.'),
  it: codeMail('Il tuo codice di verifica', 'Il tuo codice di verifica è:', (m) => `È valido per ${m} minuti e può essere usato una sola volta.`, 'Se non hai creato un account, ignora questa email.'),
  nl: codeMail('Uw verificatiecode', 'Uw verificatiecode is:', (m) => `De code is ${m} minuten geldig en kan één keer worden gebruikt.`, 'Heeft u geen account aangemaakt? Negeer dan deze e-mail.'),
  pt: codeMail('O seu código de verificação', 'O seu código de verificação é:', (m) => `É válido durante ${m} minutos e só pode ser usado uma vez.`, 'Se não criou uma conta, ignore este email.'),
};

type Link = { link: string; minutes: number };
const linkMail = (subject: string, intro: string, validity: (m: number) => string, ignore: string) => (v: Link) => ({
  subject,
  text: `${intro}\n\n${v.link}\n\n${validity(v.minutes)}\n${ignore}\n`,
});

export const passwordResetMail: MailTemplate<Link> = {
  name: 'password_reset',
  en: linkMail('Reset your password', 'Open this link to choose a new password:', (m) => `The link is valid for ${m} minutes and can be used once.`, 'If you did not ask for this, ignore this email: your password stays as it is.'),
  de: linkMail('Passwort zurücksetzen', 'Öffnen Sie diesen Link, um ein neues Passwort zu wählen:', (m) => `Der Link ist ${m} Minuten gültig und kann einmal verwendet werden.`, 'Wenn Sie das nicht angefordert haben, ignorieren Sie diese E-Mail: Ihr Passwort bleibt unverändert.'),
  es: linkMail('Restablece tu contraseña', 'Abre este enlace para elegir una nueva contraseña:', (m) => `El enlace es válido durante ${m} minutos y solo puede usarse una vez.`, 'Si no lo has solicitado, ignora este correo: tu contraseña no cambia.'),
  fr: linkMail('Réinitialisez votre mot de passe', 'Ouvrez ce lien pour choisir un nouveau mot de passe :', (m) => `Le lien est valable ${m} minutes et ne peut être utilisé qu’une fois.`, 'Si vous n’êtes pas à l’origine de cette demande, ignorez cet e-mail : votre mot de passe reste inchangé.'),
  it: linkMail('Reimposta la password', 'Apri questo link per scegliere una nuova password:', (m) => `Il link è valido per ${m} minuti e può essere usato una sola volta.`, 'Se non l’hai richiesto, ignora questa email: la tua password resta invariata.'),
  nl: linkMail('Stel uw wachtwoord opnieuw in', 'Open deze link om een nieuw wachtwoord te kiezen:', (m) => `De link is ${m} minuten geldig en kan één keer worden gebruikt.`, 'Heeft u dit niet aangevraagd? Negeer dan deze e-mail: uw wachtwoord blijft ongewijzigd.'),
  pt: linkMail('Redefina a sua palavra-passe', 'Abra esta ligação para escolher uma nova palavra-passe:', (m) => `A ligação é válida durante ${m} minutos e só pode ser usada uma vez.`, 'Se não pediu isto, ignore este email: a sua palavra-passe mantém-se.'),
};

const plain = (subject: string, text: string) => () => ({ subject, text: `${text}\n` });

export const passwordChangedMail: MailTemplate<Record<string, never>> = {
  name: 'password_changed',
  en: plain('Your password was changed', 'The password of your account was just changed and every session was signed out. If this was not you, reset your password now and contact us.'),
  de: plain('Ihr Passwort wurde geändert', 'Das Passwort Ihres Kontos wurde soeben geändert und alle Sitzungen wurden abgemeldet. Wenn Sie das nicht waren, setzen Sie Ihr Passwort sofort zurück und kontaktieren Sie uns.'),
  es: plain('Tu contraseña ha cambiado', 'La contraseña de tu cuenta acaba de cambiar y se han cerrado todas las sesiones. Si no has sido tú, restablece tu contraseña ahora y contáctanos.'),
  fr: plain('Votre mot de passe a été modifié', 'Le mot de passe de votre compte vient d’être modifié et toutes les sessions ont été fermées. Si ce n’était pas vous, réinitialisez votre mot de passe maintenant et contactez-nous.'),
  it: plain('La tua password è stata cambiata', 'La password del tuo account è appena stata cambiata e tutte le sessioni sono state chiuse. Se non sei stato tu, reimposta subito la password e contattaci.'),
  nl: plain('Uw wachtwoord is gewijzigd', 'Het wachtwoord van uw account is zojuist gewijzigd en alle sessies zijn afgemeld. Was u dit niet? Stel dan nu uw wachtwoord opnieuw in en neem contact met ons op.'),
  pt: plain('A sua palavra-passe foi alterada', 'A palavra-passe da sua conta acabou de ser alterada e todas as sessões foram terminadas. Se não foi você, redefina já a palavra-passe e contacte-nos.'),
};

// Changed by the signed-in owner (POST /v1/users/change-password/): the session that made the
// change stays signed in, so the text says "every other session".
export const passwordChangedSignedInMail: MailTemplate<Record<string, never>> = {
  name: 'password_changed_signed_in',
  en: plain('Your password was changed', 'The password of your account was just changed while you were signed in, and every other session was signed out. If this was not you, reset your password now and contact us.'),
  de: plain('Ihr Passwort wurde geändert', 'Das Passwort Ihres Kontos wurde soeben in einer angemeldeten Sitzung geändert, und alle anderen Sitzungen wurden abgemeldet. Wenn Sie das nicht waren, setzen Sie Ihr Passwort sofort zurück und kontaktieren Sie uns.'),
  es: plain('Tu contraseña ha cambiado', 'La contraseña de tu cuenta acaba de cambiar desde una sesión iniciada y se han cerrado todas las demás sesiones. Si no has sido tú, restablece tu contraseña ahora y contáctanos.'),
  fr: plain('Votre mot de passe a été modifié', 'Le mot de passe de votre compte vient d’être modifié depuis une session ouverte et toutes les autres sessions ont été fermées. Si ce n’était pas vous, réinitialisez votre mot de passe maintenant et contactez-nous.'),
  it: plain('La tua password è stata cambiata', 'La password del tuo account è appena stata cambiata da una sessione attiva e tutte le altre sessioni sono state chiuse. Se non sei stato tu, reimposta subito la password e contattaci.'),
  nl: plain('Uw wachtwoord is gewijzigd', 'Het wachtwoord van uw account is zojuist gewijzigd vanuit een aangemelde sessie en alle andere sessies zijn afgemeld. Was u dit niet? Stel dan nu uw wachtwoord opnieuw in en neem contact met ons op.'),
  pt: plain('A sua palavra-passe foi alterada', 'A palavra-passe da sua conta acabou de ser alterada numa sessão iniciada e todas as outras sessões foram terminadas. Se não foi você, redefina já a palavra-passe e contacte-nos.'),
};

/** A change of the account's sign-in security made from a signed-in session (docs/accounts.md, "Re-authentication"). */
export type SecurityChange = 'totp_enabled' | 'totp_removed' | 'passkey_added' | 'passkey_removed' | 'recovery_codes_replaced';
type Change = { change: SecurityChange };
const changeMail = (subject: string, what: Record<SecurityChange, string>, notYou: string) => (v: Change) => ({ subject, text: `${what[v.change]}\n\n${notYou}\n` });

export const securityChangedMail: MailTemplate<Change> = {
  name: 'security_changed',
  en: changeMail(
    'The sign-in security of your account changed',
    {
      totp_enabled: 'An authenticator app was set up as the second factor of your account.',
      totp_removed: 'The authenticator app was removed from your account.',
      passkey_added: 'A passkey was added to your account.',
      passkey_removed: 'A passkey was removed from your account.',
      recovery_codes_replaced: 'New recovery codes were made for your account; the old ones no longer work.',
    },
    'If this was not you, reset your password now and contact us.',
  ),
  de: changeMail(
    'Die Anmeldesicherheit Ihres Kontos wurde geändert',
    {
      totp_enabled: 'Eine Authenticator-App wurde als zweiter Faktor Ihres Kontos eingerichtet.',
      totp_removed: 'Die Authenticator-App wurde aus Ihrem Konto entfernt.',
      passkey_added: 'Ihrem Konto wurde ein Passkey hinzugefügt.',
      passkey_removed: 'Ein Passkey wurde aus Ihrem Konto entfernt.',
      recovery_codes_replaced: 'Für Ihr Konto wurden neue Wiederherstellungscodes erstellt; die alten gelten nicht mehr.',
    },
    'Wenn Sie das nicht waren, setzen Sie Ihr Passwort sofort zurück und kontaktieren Sie uns.',
  ),
  es: changeMail(
    'La seguridad de acceso de tu cuenta ha cambiado',
    {
      totp_enabled: 'Se ha configurado una aplicación de autenticación como segundo factor de tu cuenta.',
      totp_removed: 'Se ha eliminado la aplicación de autenticación de tu cuenta.',
      passkey_added: 'Se ha añadido una llave de acceso a tu cuenta.',
      passkey_removed: 'Se ha eliminado una llave de acceso de tu cuenta.',
      recovery_codes_replaced: 'Se han creado nuevos códigos de recuperación para tu cuenta; los anteriores ya no sirven.',
    },
    'Si no has sido tú, restablece tu contraseña ahora y contáctanos.',
  ),
  fr: changeMail(
    'La sécurité de connexion de votre compte a changé',
    {
      totp_enabled: 'Une application d’authentification a été configurée comme second facteur de votre compte.',
      totp_removed: 'L’application d’authentification a été retirée de votre compte.',
      passkey_added: 'Une clé d’accès a été ajoutée à votre compte.',
      passkey_removed: 'Une clé d’accès a été retirée de votre compte.',
      recovery_codes_replaced: 'De nouveaux codes de récupération ont été créés pour votre compte ; les anciens ne fonctionnent plus.',
    },
    'Si ce n’était pas vous, réinitialisez votre mot de passe maintenant et contactez-nous.',
  ),
  it: changeMail(
    'La sicurezza di accesso del tuo account è cambiata',
    {
      totp_enabled: 'È stata configurata un’app di autenticazione come secondo fattore del tuo account.',
      totp_removed: 'L’app di autenticazione è stata rimossa dal tuo account.',
      passkey_added: 'È stata aggiunta una passkey al tuo account.',
      passkey_removed: 'È stata rimossa una passkey dal tuo account.',
      recovery_codes_replaced: 'Sono stati creati nuovi codici di recupero per il tuo account; quelli vecchi non funzionano più.',
    },
    'Se non sei stato tu, reimposta subito la password e contattaci.',
  ),
  nl: changeMail(
    'De aanmeldbeveiliging van uw account is gewijzigd',
    {
      totp_enabled: 'Er is een authenticator-app ingesteld als tweede factor van uw account.',
      totp_removed: 'De authenticator-app is van uw account verwijderd.',
      passkey_added: 'Er is een passkey aan uw account toegevoegd.',
      passkey_removed: 'Er is een passkey van uw account verwijderd.',
      recovery_codes_replaced: 'Er zijn nieuwe herstelcodes voor uw account gemaakt; de oude werken niet meer.',
    },
    'Was u dit niet? Stel dan nu uw wachtwoord opnieuw in en neem contact met ons op.',
  ),
  pt: changeMail(
    'A segurança de acesso da sua conta foi alterada',
    {
      totp_enabled: 'Foi configurada uma aplicação de autenticação como segundo fator da sua conta.',
      totp_removed: 'A aplicação de autenticação foi removida da sua conta.',
      passkey_added: 'Foi adicionada uma chave de acesso à sua conta.',
      passkey_removed: 'Foi removida uma chave de acesso da sua conta.',
      recovery_codes_replaced: 'Foram criados novos códigos de recuperação para a sua conta; os antigos deixaram de funcionar.',
    },
    'Se não foi você, redefina já a palavra-passe e contacte-nos.',
  ),
};
