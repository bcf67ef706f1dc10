// "Sign in with Google" (Google Identity Services' button flow): Google's button returns an ID token
// (`credential`) to the callback, which the service verifies at POST /v1/users/google-login/.
// Shown only when Google is configured: the service puts the client ID in a meta tag of index.html
// (src/web.ts); an app built for its own origin takes VITE_GOOGLE_CLIENT_ID.
import { useEffect, useEffectEvent, useRef, useState } from 'react';
import { api, brandParams } from '../api/client';
import { auth, type Session } from '../auth';
import { useI18n } from '../i18n';
import { secondStepOf, type SecondStep } from './second-step';
import { Alert } from './ui';

/** The part of Google Identity Services the button uses (google.accounts.id). */
export interface GsiId {
  initialize(config: { client_id: string; callback: (r: { credential?: string }) => void; ux_mode?: 'popup'; context?: 'signin' | 'signup' }): void;
  renderButton(parent: HTMLElement, options: { type: 'standard'; theme: 'outline'; size: 'large'; text: 'signin_with' | 'signup_with'; shape: 'rectangular'; locale: string; width?: number }): void;
}

/** The configured client ID, or '' when Google sign-in is off. */
export function googleClientId(): string {
  const meta = typeof document !== 'undefined' ? document.querySelector<HTMLMetaElement>('meta[name="google-signin-client-id"]')?.content : undefined;
  return (meta ?? (import.meta.env.VITE_GOOGLE_CLIENT_ID as string | undefined) ?? '').trim();
}

const GSI_SRC = 'https://accounts.google.com/gsi/client';
let loading: Promise<GsiId> | null = null;

/** Loads Google's script once (only on the pages that show the button). */
export function loadGsi(): Promise<GsiId> {
  loading ??= new Promise<GsiId>((resolve, reject) => {
    const s = document.createElement('script');
    s.src = GSI_SRC;
    s.async = true;
    s.onload = () => {
      const id = (window as unknown as { google?: { accounts?: { id?: GsiId } } }).google?.accounts?.id;
      if (id) resolve(id);
      else reject(new Error('gsi'));
    };
    s.onerror = () => {
      loading = null;
      reject(new Error('gsi'));
    };
    document.head.appendChild(s);
  });
  return loading;
}

export function GoogleSignIn({
  mode,
  onSignedIn,
  onSecondStep,
  load = loadGsi,
  clientId = googleClientId(),
}: {
  mode: 'signin' | 'signup';
  onSignedIn: (s: Session) => void;
  /** A 403 `mfa_required`/`mfa_enrolment_required`: the page shows that step, as after a password. */
  onSecondStep?: (step: SecondStep) => void;
  load?: () => Promise<GsiId>;
  clientId?: string;
}) {
  const { t, locale } = useI18n();
  const box = useRef<HTMLDivElement>(null);
  const [error, setError] = useState('');
  // Read by the effect with their latest values, without re-rendering Google's button when they change.
  const loadScript = useEffectEvent(() => load());
  const failed = useEffectEvent(() => setError(t('auth.googleFailed')));
  const signIn = useEffectEvent(async (credential: string | undefined) => {
    setError('');
    if (!credential) return setError(t('auth.googleFailed'));
    const { data, error: err } = await api.POST('/v1/users/google-login/', { params: brandParams, body: { credential, locale } });
    const second = data ? null : secondStepOf(err);
    if (data) {
      auth.set(data);
      onSignedIn(data);
    } else if (second && onSecondStep) onSecondStep(second);
    else setError((err as { code?: string } | undefined)?.code === 'user_inactive' ? t('auth.inactive') : t('auth.googleFailed'));
  });
  useEffect(() => {
    if (!clientId) return;
    let live = true;
    loadScript()
      .then((gsi) => {
        if (!live || !box.current) return;
        gsi.initialize({
          client_id: clientId,
          ux_mode: 'popup',
          context: mode,
          callback: ({ credential }) => void signIn(credential),
        });
        gsi.renderButton(box.current, { type: 'standard', theme: 'outline', size: 'large', shape: 'rectangular', text: mode === 'signup' ? 'signup_with' : 'signin_with', locale });
      })
      .catch(() => {
        if (live) failed();
      });
    return () => {
      live = false;
    };
  }, [clientId, locale, mode]);
  if (!clientId) return null;
  return (
    <div className="google-signin">
      <p className="or">{t('app.or')}</p>
      {error ? <Alert kind="error">{error}</Alert> : null}
      <div ref={box} data-testid="google-button" className="google-button" />
    </div>
  );
}
