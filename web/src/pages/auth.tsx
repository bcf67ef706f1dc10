// Sign-up with the emailed code, sign-in, forgot and reset password, the referral landing.
import { lazy, Suspense, useEffect, useState, type FormEvent } from 'react';
import { api, brandParams, errorText, fieldErrors } from '../api/client';
import { errorCode } from '../api/typing';
import { auth } from '../auth';
import { GoogleSignIn } from '../components/GoogleSignIn';
import { secondStepOf, type SecondStep } from '../components/second-step';
import { Alert, Field, Loading, PageTitle } from '../components/ui';
import { useI18n } from '../i18n';
import { Link, navigate, useLocation } from '../router';
import { CONSENT_VERSION } from '../consent';

// The second step's components (QR code, passkeys) load only when a sign-in asks for one.
const MfaCodeStep = lazy(() => import('../components/SecondFactor').then((m) => ({ default: m.MfaCodeStep })));
const EnrolStep = lazy(() => import('../components/SecondFactor').then((m) => ({ default: m.EnrolStep })));

const REFERRAL_KEY = 'pts.referral';

/** After sign-in: back to where the patient was going, else home (doctors: the desk). */
function afterSignIn(s: { is_doctor: boolean; is_pharmacist?: boolean }, next: string | null) {
  const safe = next && next.startsWith('/') && !next.startsWith('//') ? next : null;
  navigate(safe ?? (s.is_doctor ? '/desk' : s.is_pharmacist ? '/pharmacy' : '/home'), { replace: true });
}

export function SignIn() {
  const { t } = useI18n();
  const { query } = useLocation();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  // The second step the service asked for after the right password (docs/accounts.md, "Second factor").
  const [step, setStep] = useState<SecondStep | null>(null);
  const signedIn = (s: Parameters<typeof auth.set>[0]) => {
    auth.set(s);
    afterSignIn(s, query.get('next'));
  };
  // Set by the account page's erasure (pages/privacy.tsx): said once, here.
  const [erased] = useState(() => {
    const v = typeof sessionStorage !== 'undefined' ? sessionStorage.getItem('pts.erased') : null;
    if (v) sessionStorage.removeItem('pts.erased');
    return Boolean(v);
  });

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError('');
    const { data, error: err, response } = await api.POST('/v1/users/token/', { params: brandParams, body: { email, password } });
    setBusy(false);
    if (data) return signedIn(data);
    const code = errorCode(err);
    const second = secondStepOf(err);
    if (second) return setStep(second);
    setError(
      code === 'user_inactive' ? t('auth.inactive') : code === 'google_account' ? t('auth.google') : response.status === 429 ? t('auth.rateLimited') : t('auth.invalid'),
    );
  }

  const restart = () => {
    setStep(null);
    setPassword('');
  };
  if (step)
    return (
      <section className="narrow">
        <PageTitle>{step.kind === 'mfa' ? t('mfa.codeTitle') : t('mfa.enrolTitle')}</PageTitle>
        <Suspense fallback={<Loading />}>
          {step.kind === 'mfa' ? (
            <MfaCodeStep mfaToken={step.token} methods={step.methods} onSignedIn={signedIn} onRestart={restart} />
          ) : (
            <EnrolStep enrolmentToken={step.token} onSignedIn={signedIn} onRestart={restart} />
          )}
        </Suspense>
      </section>
    );

  return (
    <section className="narrow">
      <PageTitle>{t('auth.signInTitle')}</PageTitle>
      {erased ? <Alert kind="success">{t('privacy.erased')}</Alert> : null}
      <form onSubmit={submit} noValidate>
        {error ? <Alert kind="error">{error}</Alert> : null}
        <Field label={t('auth.email')} type="email" name="email" autoComplete="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
        <Field label={t('auth.password')} type="password" name="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
        <button type="submit" disabled={busy}>
          {t('auth.signInButton')}
        </button>
      </form>
      <GoogleSignIn mode="signin" onSignedIn={(s) => afterSignIn(s, query.get('next'))} onSecondStep={setStep} />
      <p>
        <Link to="/forgot-password">{t('auth.forgot')}</Link>
      </p>
      <p>
        {t('auth.noAccount')} <Link to="/sign-up">{t('nav.signUp')}</Link>
      </p>
    </section>
  );
}

/** Records the accepted terms and privacy notice (their versions) for the account just signed in. */
async function recordSignUpConsents() {
  await Promise.all(
    (['terms', 'privacy'] as const).map((kind) => api.POST('/v1/users/me/consents/', { body: { kind, version: CONSENT_VERSION, granted: true } })),
  );
}

export function SignUp() {
  const { t, locale } = useI18n();
  const { query } = useLocation();
  const [step, setStep] = useState<'form' | 'code'>('form');
  const [form, setForm] = useState({ email: '', password: '', first_name: '', last_name: '' });
  // The terms of service and the privacy notice, accepted on the form; recorded once signed in.
  const [accepted, setAccepted] = useState(false);
  // Signed up with Google before ticking the box: asked once more before going on.
  const [googleSession, setGoogleSession] = useState<Parameters<typeof afterSignIn>[0] | null>(null);
  const [otp, setOtp] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const referral = typeof localStorage !== 'undefined' ? localStorage.getItem(REFERRAL_KEY) : null;
  const set = (k: keyof typeof form) => (e: { target: { value: string } }) => setForm({ ...form, [k]: e.target.value });

  async function register(e?: FormEvent) {
    e?.preventDefault();
    if (!accepted) {
      setErrors({ accept: t('auth.acceptTermsRequired') });
      setError('');
      return;
    }
    setBusy(true);
    setErrors({});
    setError('');
    const { data, error: err, response } = await api.POST('/v1/users/register/', {
      params: brandParams,
      body: { ...form, locale, ...(referral ? { referral_code: referral } : {}) },
    });
    setBusy(false);
    if (data) {
      setStep('code');
      if (referral) void api.POST('/v1/users/referrals/attribution-events/', { body: { event: 'signup_started', referral_code: referral } });
      return;
    }
    setErrors(fieldErrors(err));
    setError(response.status === 429 ? t('auth.rateLimited') : errorText(err, t('app.error')));
  }

  async function verify(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError('');
    const { data, error: err } = await api.POST('/v1/users/verify-email/', { params: brandParams, body: { email: form.email, otp: otp.trim() } });
    setBusy(false);
    if (data) {
      auth.set(data);
      if (referral) localStorage.removeItem(REFERRAL_KEY);
      await recordSignUpConsents();
      afterSignIn(data, query.get('next'));
      return;
    }
    setError(errorText(err, t('app.error')));
  }

  if (step === 'code')
    return (
      <section className="narrow">
        <PageTitle>{t('auth.codeTitle')}</PageTitle>
        <p>{t('auth.codeSent', { email: form.email })}</p>
        <form onSubmit={verify} noValidate>
          {error ? <Alert kind="error">{error}</Alert> : null}
          <Field label={t('auth.code')} name="otp" inputMode="numeric" autoComplete="one-time-code" maxLength={6} required value={otp} onChange={(e) => setOtp(e.target.value)} />
          <button type="submit" disabled={busy}>
            {t('auth.verifyButton')}
          </button>
        </form>
        <p>
          <button type="button" className="link" onClick={() => register()} disabled={busy}>
            {t('auth.resend')}
          </button>
        </p>
      </section>
    );

  const acceptBox = (
    <div className="field">
      <label className="choice">
        <input
          type="checkbox"
          name="accept"
          checked={accepted}
          onChange={(e) => setAccepted(e.target.checked)}
          aria-invalid={errors.accept ? true : undefined}
          aria-describedby={errors.accept ? 'accept-error' : undefined}
        />{' '}
        <span>{t('auth.acceptTerms')}</span>
      </label>
      {errors.accept ? (
        <p className="field-error" id="accept-error" role="alert">
          {errors.accept}
        </p>
      ) : null}
    </div>
  );

  if (googleSession)
    return (
      <section className="narrow">
        <PageTitle>{t('auth.signUpTitle')}</PageTitle>
        <form
          noValidate
          onSubmit={async (e) => {
            e.preventDefault();
            if (!accepted) return setErrors({ accept: t('auth.acceptTermsRequired') });
            await recordSignUpConsents();
            afterSignIn(googleSession, query.get('next'));
          }}
        >
          {acceptBox}
          <button type="submit">{t('app.continue')}</button>
        </form>
      </section>
    );

  return (
    <section className="narrow">
      <PageTitle>{t('auth.signUpTitle')}</PageTitle>
      {referral ? <Alert>{t('auth.referred', { code: referral })}</Alert> : null}
      <form onSubmit={register} noValidate>
        {error && !Object.keys(errors).length ? <Alert kind="error">{error}</Alert> : null}
        <Field label={t('auth.firstName')} name="first_name" autoComplete="given-name" value={form.first_name} onChange={set('first_name')} error={errors.first_name} />
        <Field label={t('auth.lastName')} name="last_name" autoComplete="family-name" value={form.last_name} onChange={set('last_name')} error={errors.last_name} />
        <Field label={t('auth.email')} type="email" name="email" autoComplete="email" required value={form.email} onChange={set('email')} error={errors.email} />
        <Field
          label={t('auth.password')}
          type="password"
          name="password"
          autoComplete="new-password"
          required
          value={form.password}
          onChange={set('password')}
          error={errors.password}
          hint={t('auth.passwordHint')}
        />
        {acceptBox}
        <button type="submit" disabled={busy}>
          {t('auth.signUpButton')}
        </button>
      </form>
      <GoogleSignIn
        mode="signup"
        onSignedIn={(s) => {
          if (referral) localStorage.removeItem(REFERRAL_KEY);
          if (!accepted) return setGoogleSession(s);
          void recordSignUpConsents().then(() => afterSignIn(s, query.get('next')));
        }}
      />
      <p>
        {t('auth.haveAccount')} <Link to="/sign-in">{t('nav.signIn')}</Link>
      </p>
    </section>
  );
}

export function ForgotPassword() {
  const { t } = useI18n();
  const [email, setEmail] = useState('');
  const [done, setDone] = useState(false);
  const [error, setError] = useState('');
  async function submit(e: FormEvent) {
    e.preventDefault();
    setError('');
    const { data, error: err, response } = await api.POST('/v1/users/forgot-password/', { params: brandParams, body: { email } });
    if (data) setDone(true);
    else setError(response.status === 429 ? t('auth.rateLimited') : errorText(err, t('app.error')));
  }
  return (
    <section className="narrow">
      <PageTitle>{t('auth.forgotTitle')}</PageTitle>
      {done ? (
        <Alert kind="success">{t('auth.forgotDone')}</Alert>
      ) : (
        <form onSubmit={submit} noValidate>
          {error ? <Alert kind="error">{error}</Alert> : null}
          <Field label={t('auth.email')} type="email" name="email" autoComplete="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
          <button type="submit">{t('auth.forgotButton')}</button>
        </form>
      )}
    </section>
  );
}

export function ResetPassword() {
  const { t } = useI18n();
  const { query } = useLocation();
  const token = query.get('token') ?? '';
  const [password, setPassword] = useState('');
  const [done, setDone] = useState(false);
  const [error, setError] = useState('');
  async function submit(e: FormEvent) {
    e.preventDefault();
    setError('');
    const { data, error: err } = await api.POST('/v1/users/reset-password/', { params: brandParams, body: { token, password } });
    if (data) {
      auth.clear(); // the reset ends every session
      setDone(true);
    } else setError(errorText(err, t('app.error')));
  }
  return (
    <section className="narrow">
      <PageTitle>{t('auth.resetTitle')}</PageTitle>
      {!token ? (
        <Alert kind="error">
          {t('auth.resetMissing')} <Link to="/forgot-password">{t('auth.forgotButton')}</Link>
        </Alert>
      ) : done ? (
        <Alert kind="success">
          {t('auth.resetDone')} <Link to="/sign-in">{t('nav.signIn')}</Link>
        </Alert>
      ) : (
        <form onSubmit={submit} noValidate>
          {error ? <Alert kind="error">{error}</Alert> : null}
          <Field
            label={t('auth.newPassword')}
            type="password"
            name="password"
            autoComplete="new-password"
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            hint={t('auth.passwordHint')}
          />
          <button type="submit">{t('auth.resetButton')}</button>
        </form>
      )}
    </section>
  );
}

/** /r/CODE: remembers the code for sign-up, records the landing, then shows the sign-up page. */
export function ReferralLanding({ code }: { code: string }) {
  useEffect(() => {
    const clean = code.slice(0, 32);
    localStorage.setItem(REFERRAL_KEY, clean);
    void api.POST('/v1/users/referrals/attribution-events/', { body: { event: 'landing_view', referral_code: clean, landing_path: `/r/${clean}` } });
    navigate(auth.get() ? '/home' : '/sign-up', { replace: true });
  }, [code]);
  return null;
}
