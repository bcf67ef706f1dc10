// The re-authentication prompt's own strings, in the seven locales of the app.
import type { Locale } from '../../i18n';

export interface ReauthStrings {
  title: string;
  why: string;
  password: string;
  code: string;
  useCode: string;
  usePassword: string;
  confirm: string;
  cancel: string;
  failed: string;
}

export const REAUTH_STRINGS: Record<Locale, ReauthStrings> = {
  en: {
    title: 'Confirm it is you',
    why: 'Changing how you sign in needs your password (or a code of your second factor) once more.',
    password: 'Password',
    code: 'Authenticator or recovery code',
    useCode: 'Use a code instead',
    usePassword: 'Use your password instead',
    confirm: 'Confirm',
    cancel: 'Cancel',
    failed: 'That did not match. Try again.',
  },
  de: {
    title: 'Bestätigen Sie, dass Sie es sind',
    why: 'Um die Anmeldung zu ändern, geben Sie Ihr Passwort (oder einen Code Ihres zweiten Faktors) noch einmal ein.',
    password: 'Passwort',
    code: 'Authenticator- oder Wiederherstellungscode',
    useCode: 'Stattdessen einen Code verwenden',
    usePassword: 'Stattdessen das Passwort verwenden',
    confirm: 'Bestätigen',
    cancel: 'Abbrechen',
    failed: 'Das stimmt nicht. Bitte erneut versuchen.',
  },
  es: {
    title: 'Confirma que eres tú',
    why: 'Para cambiar cómo inicias sesión, introduce de nuevo tu contraseña (o un código de tu segundo factor).',
    password: 'Contraseña',
    code: 'Código de autenticación o de recuperación',
    useCode: 'Usar un código',
    usePassword: 'Usar la contraseña',
    confirm: 'Confirmar',
    cancel: 'Cancelar',
    failed: 'No coincide. Inténtalo de nuevo.',
  },
  fr: {
    title: 'Confirmez que c’est vous',
    why: 'Pour modifier votre connexion, saisissez à nouveau votre mot de passe (ou un code de votre second facteur).',
    password: 'Mot de passe',
    code: 'Code d’authentification ou de récupération',
    useCode: 'Utiliser un code',
    usePassword: 'Utiliser le mot de passe',
    confirm: 'Confirmer',
    cancel: 'Annuler',
    failed: 'Cela ne correspond pas. Réessayez.',
  },
  it: {
    title: 'Conferma che sei tu',
    why: 'Per modificare l’accesso, inserisci di nuovo la password (o un codice del secondo fattore).',
    password: 'Password',
    code: 'Codice di autenticazione o di recupero',
    useCode: 'Usa un codice',
    usePassword: 'Usa la password',
    confirm: 'Conferma',
    cancel: 'Annulla',
    failed: 'Non corrisponde. Riprova.',
  },
  nl: {
    title: 'Bevestig dat u het bent',
    why: 'Om uw aanmelding te wijzigen, voert u uw wachtwoord (of een code van uw tweede factor) nog eens in.',
    password: 'Wachtwoord',
    code: 'Authenticator- of herstelcode',
    useCode: 'Gebruik een code',
    usePassword: 'Gebruik uw wachtwoord',
    confirm: 'Bevestigen',
    cancel: 'Annuleren',
    failed: 'Dat klopt niet. Probeer het opnieuw.',
  },
  pt: {
    title: 'Confirme que é você',
    why: 'Para alterar o início de sessão, introduza de novo a palavra-passe (ou um código do segundo fator).',
    password: 'Palavra-passe',
    code: 'Código de autenticação ou de recuperação',
    useCode: 'Usar um código',
    usePassword: 'Usar a palavra-passe',
    confirm: 'Confirmar',
    cancel: 'Cancelar',
    failed: 'Não corresponde. Tente de novo.',
  },
};
