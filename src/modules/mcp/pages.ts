// The sign-in and consent pages of the assistant connector, in the seven locales. Plain HTML forms
// (no script), every dynamic value escaped; the forms carry the request id and its CSRF token.
import { LOCALES, isLocale, type Locale } from '../../lib/locales.ts';
import type { Scope } from './oauth.ts';

// Every locale of the service (lib/locales.ts), English first: English is the pages' fallback, and
// this order is what the authorization server metadata publishes as `ui_locales_supported`.
export const PAGE_LOCALES: readonly Locale[] = ['en', ...LOCALES.filter((l) => l !== 'en')];
export type PageLocale = Locale;

interface Strings {
  title: string;
  signInIntro: (client: string) => string;
  email: string;
  password: string;
  code: string;
  signIn: string;
  consentTitle: string;
  consentIntro: (client: string, host: string) => string;
  signedInAs: (email: string) => string;
  scopes: Record<Scope, string>;
  notice: string;
  allow: string;
  deny: string;
  or: string;
  errors: Record<ErrorKey, string>;
}

export type ErrorKey =
  | 'invalid_credentials'
  | 'user_inactive'
  | 'throttled'
  | 'staff'
  | 'google_account'
  | 'google_account_button'
  | 'google_invalid'
  | 'google_link_not_allowed'
  | 'expired'
  | 'unknown_client'
  | 'bad_redirect_uri'
  | 'mfa_code_required'
  | 'invalid_mfa_code';

const STRINGS: Record<PageLocale, Strings> = {
  en: {
    title: 'Connect an assistant',
    signInIntro: (c) => `Sign in to let ${c} use your treatment records.`,
    email: 'Email',
    password: 'Password',
    code: 'Code from your authenticator app (or a recovery code)',
    signIn: 'Sign in',
    consentTitle: 'Allow access?',
    consentIntro: (c, h) => `${c} (${h}) asks for access to your account:`,
    signedInAs: (e) => `Signed in as ${e}.`,
    scopes: {
      'patient:read': 'Read your profile, consultations, prescriptions, orders, payments, subscriptions, messages and journal',
      'journal:write': 'Add weights, injections and notes to your journal',
      'messages:write': 'Send messages to your medical team on your behalf',
      'treatment:write': 'Confirm renewals and answer and submit questionnaires for you, each submission only after you confirm it',
    },
    notice: 'You can disconnect the assistant at any time in your account settings.',
    allow: 'Allow',
    deny: 'Deny',
    or: 'or',
    errors: {
      invalid_credentials: 'No active account found with the given credentials.',
      mfa_code_required: 'Your account has two-step sign-in: enter the code from your authenticator app.',
      invalid_mfa_code: 'The code is wrong or was already used.',
      user_inactive: 'This account is disabled.',
      throttled: 'Too many attempts. Please try again later.',
      staff: 'Staff accounts cannot connect an assistant.',
      google_account: 'This account signs in with Google. Set a password through “Forgot password” to connect an assistant.',
      expired: 'This sign-in page has expired. Please start the connection again from your assistant.',
      unknown_client: 'The application asking for access is not registered.',
      bad_redirect_uri: 'The application’s return address does not match its registration.',
      google_account_button: 'This account signs in with Google: use “Sign in with Google”.',
      google_invalid: 'Google sign-in failed. Please try again.',
      google_link_not_allowed: 'This account cannot sign in with Google.',
    },
  },
  de: {
    title: 'Assistenten verbinden',
    signInIntro: (c) => `Melden Sie sich an, damit ${c} Ihre Behandlungsdaten nutzen kann.`,
    email: 'E-Mail',
    password: 'Passwort',
    code: 'Code aus Ihrer Authenticator-App (oder ein Wiederherstellungscode)',
    signIn: 'Anmelden',
    consentTitle: 'Zugriff erlauben?',
    consentIntro: (c, h) => `${c} (${h}) bittet um Zugriff auf Ihr Konto:`,
    signedInAs: (e) => `Angemeldet als ${e}.`,
    scopes: {
      'patient:read': 'Ihr Profil, Ihre Konsultationen, Rezepte, Bestellungen, Zahlungen, Abonnements, Nachrichten und Ihr Tagebuch lesen',
      'journal:write': 'Gewicht, Injektionen und Notizen in Ihr Tagebuch eintragen',
      'messages:write': 'In Ihrem Namen Nachrichten an Ihr medizinisches Team senden',
      'treatment:write': 'Verlängerungen bestätigen und Fragebögen beantworten und absenden, jedes Absenden erst nach Ihrer Bestätigung',
    },
    notice: 'Sie können den Assistenten jederzeit in Ihren Kontoeinstellungen trennen.',
    allow: 'Erlauben',
    deny: 'Ablehnen',
    or: 'oder',
    errors: {
      invalid_credentials: 'Kein aktives Konto mit diesen Zugangsdaten gefunden.',
      mfa_code_required: 'Ihr Konto hat die Anmeldung in zwei Schritten: Geben Sie den Code aus Ihrer Authenticator-App ein.',
      invalid_mfa_code: 'Der Code ist falsch oder wurde bereits verwendet.',
      user_inactive: 'Dieses Konto ist deaktiviert.',
      throttled: 'Zu viele Versuche. Bitte versuchen Sie es später erneut.',
      staff: 'Mitarbeiterkonten können keinen Assistenten verbinden.',
      google_account: 'Dieses Konto meldet sich mit Google an. Legen Sie über „Passwort vergessen“ ein Passwort fest, um einen Assistenten zu verbinden.',
      expired: 'Diese Anmeldeseite ist abgelaufen. Bitte starten Sie die Verbindung erneut in Ihrem Assistenten.',
      unknown_client: 'Die anfragende Anwendung ist nicht registriert.',
      bad_redirect_uri: 'Die Rücksprungadresse der Anwendung stimmt nicht mit ihrer Registrierung überein.',
      google_account_button: 'Dieses Konto meldet sich mit Google an: Verwenden Sie „Über Google anmelden“.',
      google_invalid: 'Die Anmeldung mit Google ist fehlgeschlagen. Bitte versuchen Sie es erneut.',
      google_link_not_allowed: 'Dieses Konto kann sich nicht mit Google anmelden.',
    },
  },
  es: {
    title: 'Conectar un asistente',
    signInIntro: (c) => `Inicia sesión para que ${c} pueda usar tus datos de tratamiento.`,
    email: 'Correo electrónico',
    password: 'Contraseña',
    code: 'Código de tu app de autenticación (o un código de recuperación)',
    signIn: 'Iniciar sesión',
    consentTitle: '¿Permitir el acceso?',
    consentIntro: (c, h) => `${c} (${h}) solicita acceso a tu cuenta:`,
    signedInAs: (e) => `Sesión iniciada como ${e}.`,
    scopes: {
      'patient:read': 'Leer tu perfil, consultas, recetas, pedidos, pagos, suscripciones, mensajes y diario',
      'journal:write': 'Añadir pesos, inyecciones y notas a tu diario',
      'messages:write': 'Enviar mensajes a tu equipo médico en tu nombre',
      'treatment:write': 'Confirmar renovaciones y responder y enviar cuestionarios, cada envío solo tras tu confirmación',
    },
    notice: 'Puedes desconectar el asistente en cualquier momento desde la configuración de tu cuenta.',
    allow: 'Permitir',
    deny: 'Denegar',
    or: 'o',
    errors: {
      invalid_credentials: 'No se encontró ninguna cuenta activa con estas credenciales.',
      mfa_code_required: 'Tu cuenta tiene verificación en dos pasos: introduce el código de tu app de autenticación.',
      invalid_mfa_code: 'El código no es correcto o ya se ha usado.',
      user_inactive: 'Esta cuenta está desactivada.',
      throttled: 'Demasiados intentos. Inténtalo de nuevo más tarde.',
      staff: 'Las cuentas del personal no pueden conectar un asistente.',
      google_account: 'Esta cuenta inicia sesión con Google. Define una contraseña con «He olvidado mi contraseña» para conectar un asistente.',
      expired: 'Esta página de inicio de sesión ha caducado. Vuelve a iniciar la conexión desde tu asistente.',
      unknown_client: 'La aplicación que solicita acceso no está registrada.',
      bad_redirect_uri: 'La dirección de retorno de la aplicación no coincide con su registro.',
      google_account_button: 'Esta cuenta inicia sesión con Google: usa «Iniciar sesión con Google».',
      google_invalid: 'No se pudo iniciar sesión con Google. Inténtalo de nuevo.',
      google_link_not_allowed: 'Esta cuenta no puede iniciar sesión con Google.',
    },
  },
  fr: {
    title: 'Connecter un assistant',
    signInIntro: (c) => `Connectez-vous pour permettre à ${c} d’utiliser vos données de traitement.`,
    email: 'E-mail',
    password: 'Mot de passe',
    code: 'Code de votre application d’authentification (ou un code de récupération)',
    signIn: 'Se connecter',
    consentTitle: 'Autoriser l’accès ?',
    consentIntro: (c, h) => `${c} (${h}) demande l’accès à votre compte :`,
    signedInAs: (e) => `Connecté en tant que ${e}.`,
    scopes: {
      'patient:read': 'Lire votre profil, vos consultations, ordonnances, commandes, paiements, abonnements, messages et votre journal',
      'journal:write': 'Ajouter des poids, des injections et des notes à votre journal',
      'messages:write': 'Envoyer des messages à votre équipe médicale en votre nom',
      'treatment:write': 'Confirmer des renouvellements et remplir et envoyer des questionnaires, chaque envoi seulement après votre confirmation',
    },
    notice: 'Vous pouvez déconnecter l’assistant à tout moment dans les paramètres de votre compte.',
    allow: 'Autoriser',
    deny: 'Refuser',
    or: 'ou',
    errors: {
      invalid_credentials: 'Aucun compte actif ne correspond à ces identifiants.',
      mfa_code_required: 'Votre compte utilise la connexion en deux étapes : saisissez le code de votre application d’authentification.',
      invalid_mfa_code: 'Le code est incorrect ou a déjà été utilisé.',
      user_inactive: 'Ce compte est désactivé.',
      throttled: 'Trop de tentatives. Veuillez réessayer plus tard.',
      staff: 'Les comptes du personnel ne peuvent pas connecter d’assistant.',
      google_account: 'Ce compte se connecte avec Google. Définissez un mot de passe via « Mot de passe oublié » pour connecter un assistant.',
      expired: 'Cette page de connexion a expiré. Relancez la connexion depuis votre assistant.',
      unknown_client: 'L’application qui demande l’accès n’est pas enregistrée.',
      bad_redirect_uri: 'L’adresse de retour de l’application ne correspond pas à son enregistrement.',
      google_account_button: 'Ce compte se connecte avec Google : utilisez « Se connecter avec Google ».',
      google_invalid: 'La connexion avec Google a échoué. Veuillez réessayer.',
      google_link_not_allowed: 'Ce compte ne peut pas se connecter avec Google.',
    },
  },
  it: {
    title: 'Collega un assistente',
    signInIntro: (c) => `Accedi per consentire a ${c} di usare i tuoi dati di trattamento.`,
    email: 'Email',
    password: 'Password',
    code: 'Codice della tua app di autenticazione (o un codice di recupero)',
    signIn: 'Accedi',
    consentTitle: 'Consentire l’accesso?',
    consentIntro: (c, h) => `${c} (${h}) chiede l’accesso al tuo account:`,
    signedInAs: (e) => `Accesso effettuato come ${e}.`,
    scopes: {
      'patient:read': 'Leggere profilo, consulti, prescrizioni, ordini, pagamenti, abbonamenti, messaggi e diario',
      'journal:write': 'Aggiungere pesi, iniezioni e note al tuo diario',
      'messages:write': 'Inviare messaggi al tuo team medico per tuo conto',
      'treatment:write': 'Confermare rinnovi e compilare e inviare questionari, ogni invio solo dopo la tua conferma',
    },
    notice: 'Puoi scollegare l’assistente in qualsiasi momento dalle impostazioni del tuo account.',
    allow: 'Consenti',
    deny: 'Nega',
    or: 'oppure',
    errors: {
      invalid_credentials: 'Nessun account attivo trovato con queste credenziali.',
      mfa_code_required: 'Il tuo account usa l’accesso in due passaggi: inserisci il codice della tua app di autenticazione.',
      invalid_mfa_code: 'Il codice è errato o è già stato usato.',
      user_inactive: 'Questo account è disattivato.',
      throttled: 'Troppi tentativi. Riprova più tardi.',
      staff: 'Gli account del personale non possono collegare un assistente.',
      google_account: 'Questo account accede con Google. Imposta una password con “Password dimenticata” per collegare un assistente.',
      expired: 'Questa pagina di accesso è scaduta. Avvia di nuovo il collegamento dal tuo assistente.',
      unknown_client: 'L’applicazione che chiede l’accesso non è registrata.',
      bad_redirect_uri: 'L’indirizzo di ritorno dell’applicazione non corrisponde alla sua registrazione.',
      google_account_button: 'Questo account accede con Google: usa “Accedi con Google”.',
      google_invalid: 'Accesso con Google non riuscito. Riprova.',
      google_link_not_allowed: 'Questo account non può accedere con Google.',
    },
  },
  nl: {
    title: 'Een assistent koppelen',
    signInIntro: (c) => `Meld u aan zodat ${c} uw behandelgegevens kan gebruiken.`,
    email: 'E-mail',
    password: 'Wachtwoord',
    code: 'Code uit je authenticator-app (of een herstelcode)',
    signIn: 'Aanmelden',
    consentTitle: 'Toegang toestaan?',
    consentIntro: (c, h) => `${c} (${h}) vraagt toegang tot uw account:`,
    signedInAs: (e) => `Aangemeld als ${e}.`,
    scopes: {
      'patient:read': 'Uw profiel, consulten, recepten, bestellingen, betalingen, abonnementen, berichten en dagboek lezen',
      'journal:write': 'Gewicht, injecties en notities aan uw dagboek toevoegen',
      'messages:write': 'Namens u berichten sturen naar uw medische team',
      'treatment:write': 'Verlengingen bevestigen en vragenlijsten invullen en indienen, elke indiening pas na uw bevestiging',
    },
    notice: 'U kunt de assistent op elk moment ontkoppelen in uw accountinstellingen.',
    allow: 'Toestaan',
    deny: 'Weigeren',
    or: 'of',
    errors: {
      invalid_credentials: 'Geen actief account gevonden met deze gegevens.',
      mfa_code_required: 'Je account gebruikt inloggen in twee stappen: voer de code uit je authenticator-app in.',
      invalid_mfa_code: 'De code is onjuist of al gebruikt.',
      user_inactive: 'Dit account is uitgeschakeld.',
      throttled: 'Te veel pogingen. Probeer het later opnieuw.',
      staff: 'Medewerkersaccounts kunnen geen assistent koppelen.',
      google_account: 'Dit account meldt zich aan met Google. Stel via “Wachtwoord vergeten” een wachtwoord in om een assistent te koppelen.',
      expired: 'Deze aanmeldpagina is verlopen. Start de koppeling opnieuw vanuit uw assistent.',
      unknown_client: 'De applicatie die toegang vraagt is niet geregistreerd.',
      bad_redirect_uri: 'Het terugkeeradres van de applicatie komt niet overeen met de registratie.',
      google_account_button: 'Dit account meldt zich aan met Google: gebruik “Inloggen met Google”.',
      google_invalid: 'Aanmelden met Google is mislukt. Probeer het opnieuw.',
      google_link_not_allowed: 'Dit account kan zich niet aanmelden met Google.',
    },
  },
  pt: {
    title: 'Ligar um assistente',
    signInIntro: (c) => `Inicie sessão para permitir que ${c} utilize os seus dados de tratamento.`,
    email: 'Email',
    password: 'Palavra-passe',
    code: 'Código da sua aplicação de autenticação (ou um código de recuperação)',
    signIn: 'Iniciar sessão',
    consentTitle: 'Permitir o acesso?',
    consentIntro: (c, h) => `${c} (${h}) pede acesso à sua conta:`,
    signedInAs: (e) => `Sessão iniciada como ${e}.`,
    scopes: {
      'patient:read': 'Ler o seu perfil, consultas, receitas, encomendas, pagamentos, subscrições, mensagens e diário',
      'journal:write': 'Adicionar pesos, injeções e notas ao seu diário',
      'messages:write': 'Enviar mensagens à sua equipa médica em seu nome',
      'treatment:write': 'Confirmar renovações e responder e enviar questionários, cada envio só após a sua confirmação',
    },
    notice: 'Pode desligar o assistente a qualquer momento nas definições da sua conta.',
    allow: 'Permitir',
    deny: 'Recusar',
    or: 'ou',
    errors: {
      invalid_credentials: 'Nenhuma conta ativa encontrada com estas credenciais.',
      mfa_code_required: 'A sua conta tem início de sessão em dois passos: introduza o código da sua aplicação de autenticação.',
      invalid_mfa_code: 'O código está errado ou já foi usado.',
      user_inactive: 'Esta conta está desativada.',
      throttled: 'Demasiadas tentativas. Tente novamente mais tarde.',
      staff: 'As contas de funcionários não podem ligar um assistente.',
      google_account: 'Esta conta inicia sessão com o Google. Defina uma palavra-passe em «Esqueci-me da palavra-passe» para ligar um assistente.',
      expired: 'Esta página de início de sessão expirou. Inicie novamente a ligação a partir do seu assistente.',
      unknown_client: 'A aplicação que pede acesso não está registada.',
      bad_redirect_uri: 'O endereço de retorno da aplicação não corresponde ao seu registo.',
      google_account_button: 'Esta conta inicia sessão com o Google: utilize «Iniciar sessão com o Google».',
      google_invalid: 'O início de sessão com o Google falhou. Tente novamente.',
      google_link_not_allowed: 'Esta conta não pode iniciar sessão com o Google.',
    },
  },
};

/** `ui_locales` (space-separated, first supported wins), then Accept-Language, then English. */
export function pageLocale(uiLocales: unknown, acceptLanguage: string | undefined): PageLocale {
  const supported = (tag: string): PageLocale | undefined => {
    const language = tag.trim().toLowerCase().split(/[-_]/)[0];
    return isLocale(language) ? language : undefined;
  };
  if (typeof uiLocales === 'string') {
    for (const tag of uiLocales.split(/\s+/)) {
      const hit = supported(tag);
      if (hit) return hit;
    }
  }
  if (acceptLanguage) {
    const ranked = acceptLanguage
      .split(',')
      .map((part, i) => {
        const [tag, ...params] = part.trim().split(';');
        const qp = params.find((p) => p.trim().startsWith('q='));
        const qv = qp ? Number(qp.trim().slice(2)) : 1;
        return { tag, q: Number.isFinite(qv) ? qv : 0, i };
      })
      .filter((x) => x.q > 0)
      .sort((a, b) => b.q - a.q || a.i - b.i);
    for (const { tag } of ranked) {
      if (!tag) continue;
      const hit = supported(tag);
      if (hit) return hit;
    }
  }
  return 'en';
}

export const asLocale = (l: string): PageLocale => (isLocale(l) ? l : 'en');

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

// Google Identity Services reads the page's origin from the Referer header (it checks the authorised
// JavaScript origins): the page with the Google button sends the origin only, never the URL (which
// carries the authorization request); the other pages send nothing.
function layout(locale: PageLocale, title: string, body: string, referrer: 'no-referrer' | 'strict-origin' = 'no-referrer'): string {
  return `<!doctype html>
<html lang="${locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="${referrer}">
<title>${esc(title)}</title>
<style>
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;background:#f5f6f8;color:#1d2330;margin:0;padding:2rem 1rem}
main{max-width:26rem;margin:0 auto;background:#fff;border-radius:12px;padding:1.75rem;box-shadow:0 1px 4px rgba(0,0,0,.08)}
h1{font-size:1.35rem;margin:0 0 1rem}
label{display:block;font-weight:600;margin:1rem 0 .35rem}
input[type=email],input[type=password]{width:100%;box-sizing:border-box;padding:.6rem;border:1px solid #9aa3b2;border-radius:6px;font-size:1rem}
button{font-size:1rem;padding:.65rem 1.2rem;border-radius:6px;border:1px solid #1d4ed8;background:#1d4ed8;color:#fff;cursor:pointer;margin-top:1.25rem}
button.secondary{background:#fff;color:#1d4ed8}
.error{background:#fdecec;border:1px solid #e5a4a4;color:#8a1c1c;padding:.6rem .8rem;border-radius:6px}
ul{padding-left:1.2rem}
.muted{color:#555f70;font-size:.9rem}
.actions{display:flex;gap:.75rem}
.or{text-align:center;color:#555f70;margin:1.25rem 0 .75rem}
</style>
</head>
<body><main>
${body}
</main></body>
</html>`;
}

export interface SignInView {
  locale: PageLocale;
  requestId: string;
  csrf: string;
  clientName: string;
  email?: string;
  error?: ErrorKey;
  /** The account has a second factor: the form asks for its code too (the connector honours it like the API's sign-in). */
  askCode?: boolean;
  /** Present when Google sign-in is configured: the web client id for the button and the CSP nonce of the page's scripts. */
  google?: { clientId: string; nonce: string };
}

/**
 * The "Sign in with Google" button (Google Identity Services, ID-token flow). The library hands the
 * ID token to a callback, which posts it with the request id and CSRF token to the same sign-in
 * endpoint as the password form: the same CSRF check applies, and Google never needs a redirect URI.
 */
function googleSection(v: SignInView & { google: { clientId: string; nonce: string } }, t: Strings): string {
  const nonce = esc(v.google.nonce);
  return `<p class="or">${esc(t.or)}</p>
<form id="google-form" method="post" action="/oauth/sign-in">
<input type="hidden" name="request" value="${esc(v.requestId)}">
<input type="hidden" name="csrf" value="${esc(v.csrf)}">
<input type="hidden" name="credential" value="">
</form>
<div id="g_id_onload" data-client_id="${esc(v.google.clientId)}" data-callback="mcpGoogleCredential" data-auto_prompt="false" data-ux_mode="popup" data-context="signin" data-itp_support="true"></div>
<div class="g_id_signin" data-type="standard" data-text="signin_with" data-shape="rectangular" data-logo_alignment="left" data-locale="${esc(v.locale)}"></div>
<script nonce="${nonce}">function mcpGoogleCredential(r){var f=document.getElementById('google-form');f.elements.credential.value=r.credential;f.submit();}</script>
<script nonce="${nonce}" src="${GOOGLE_GSI_CLIENT}" async></script>`;
}

export const GOOGLE_GSI_CLIENT = 'https://accounts.google.com/gsi/client';

export function signInPage(v: SignInView): string {
  const t = STRINGS[v.locale];
  const error = v.error ? `<p class="error" role="alert">${esc(t.errors[v.error])}</p>` : '';
  return layout(
    v.locale,
    t.title,
    `<h1>${esc(t.title)}</h1>
<p>${esc(t.signInIntro(v.clientName))}</p>
${error}
<form method="post" action="/oauth/sign-in" autocomplete="on">
<input type="hidden" name="request" value="${esc(v.requestId)}">
<input type="hidden" name="csrf" value="${esc(v.csrf)}">
<label for="email">${esc(t.email)}</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${esc(v.email ?? '')}">
<label for="password">${esc(t.password)}</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>${
    v.askCode
      ? `\n<label for="code">${esc(t.code)}</label>\n<input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" required maxlength="32">`
      : ''
  }
<button type="submit">${esc(t.signIn)}</button>
</form>${v.google ? '\n' + googleSection({ ...v, google: v.google }, t) : ''}`,
    v.google ? 'strict-origin' : 'no-referrer',
  );
}

export interface ConsentView {
  locale: PageLocale;
  requestId: string;
  csrf: string;
  clientName: string;
  redirectHost: string;
  scopes: Scope[];
  email: string;
}

export function consentPage(v: ConsentView): string {
  const t = STRINGS[v.locale];
  const items = v.scopes.map((s) => `<li><strong>${esc(s)}</strong>: ${esc(t.scopes[s])}</li>`).join('\n');
  return layout(
    v.locale,
    t.consentTitle,
    `<h1>${esc(t.consentTitle)}</h1>
<p>${esc(t.consentIntro(v.clientName, v.redirectHost))}</p>
<ul>
${items}
</ul>
<p class="muted">${esc(t.signedInAs(v.email))} ${esc(t.notice)}</p>
<form method="post" action="/oauth/consent">
<input type="hidden" name="request" value="${esc(v.requestId)}">
<input type="hidden" name="csrf" value="${esc(v.csrf)}">
<div class="actions">
<button type="submit" name="decision" value="allow">${esc(t.allow)}</button>
<button type="submit" name="decision" value="deny" class="secondary">${esc(t.deny)}</button>
</div>
</form>`,
  );
}

export function errorPage(locale: PageLocale, error: ErrorKey): string {
  const t = STRINGS[locale];
  return layout(locale, t.title, `<h1>${esc(t.title)}</h1>\n<p class="error" role="alert">${esc(t.errors[error])}</p>`);
}
