// The connector's mail in the seven locales: sent when the patient allows an assistant (a new or a
// replaced grant), naming it, the host of its redirect URI and what it may do, with the page where
// it can be disconnected.
import type { MailTemplate } from '../../mail/outbox.ts';

type Connected = { client: string; host: string; scopes: string; link: string };
const connected =
  (subject: string, intro: string, scopes: string, revoke: string, notYou: string) =>
  (v: Connected) => ({
    subject,
    text: `${intro}\n\n${v.client} (${v.host})\n${scopes}: ${v.scopes}\n\n${revoke}\n${v.link}\n\n${notYou}\n`,
  });

export const assistantConnectedMail: MailTemplate<Connected> = {
  name: 'mcp_assistant_connected',
  en: connected(
    'An assistant was connected to your account',
    'You allowed an AI assistant to access your records:',
    'It may',
    'You can see and disconnect your connected assistants on your account page:',
    'If this was not you, disconnect it, change your password and contact us.',
  ),
  de: connected(
    'Ein Assistent wurde mit Ihrem Konto verbunden',
    'Sie haben einem KI-Assistenten Zugriff auf Ihre Daten gegeben:',
    'Er darf',
    'Ihre verbundenen Assistenten sehen und trennen Sie auf Ihrer Kontoseite:',
    'Wenn Sie das nicht waren, trennen Sie ihn, ändern Sie Ihr Passwort und kontaktieren Sie uns.',
  ),
  es: connected(
    'Se ha conectado un asistente a tu cuenta',
    'Has permitido que un asistente de IA acceda a tus datos:',
    'Puede',
    'Puedes ver y desconectar tus asistentes conectados en la página de tu cuenta:',
    'Si no has sido tú, desconéctalo, cambia tu contraseña y contáctanos.',
  ),
  fr: connected(
    'Un assistant a été connecté à votre compte',
    'Vous avez autorisé un assistant IA à accéder à vos données :',
    'Il peut',
    'Vous pouvez voir et déconnecter vos assistants connectés sur la page de votre compte :',
    'Si ce n’était pas vous, déconnectez-le, changez votre mot de passe et contactez-nous.',
  ),
  it: connected(
    'Un assistente è stato collegato al tuo account',
    'Hai consentito a un assistente IA di accedere ai tuoi dati:',
    'Può',
    'Puoi vedere e scollegare i tuoi assistenti collegati nella pagina del tuo account:',
    'Se non sei stato tu, scollegalo, cambia la password e contattaci.',
  ),
  nl: connected(
    'Er is een assistent aan uw account gekoppeld',
    'U heeft een AI-assistent toegang gegeven tot uw gegevens:',
    'Deze mag',
    'Uw gekoppelde assistenten bekijkt en ontkoppelt u op uw accountpagina:',
    'Was u dit niet? Ontkoppel hem, wijzig uw wachtwoord en neem contact met ons op.',
  ),
  pt: connected(
    'Foi ligado um assistente à sua conta',
    'Permitiu que um assistente de IA aceda aos seus dados:',
    'Pode',
    'Pode ver e desligar os seus assistentes ligados na página da sua conta:',
    'Se não foi você, desligue-o, altere a palavra-passe e contacte-nos.',
  ),
};
