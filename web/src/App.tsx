// The shell: header and navigation by role, language, the route table (routes.json) and the guards.
// A patient token never loads the desk's data (the API answers 403 anyway); a doctor lands on the desk.
import { lazy, Suspense, useEffect, useEffectEvent, useMemo, useState, type ReactNode } from 'react';
import { api } from './api/client';
import { auth, useSession } from './auth';
import { EmergencyProvider } from './components/Emergency';
import { Alert, Loading } from './components/ui';
import { browserLocale, I18nProvider, isLocale, loadLocale, LOCALE_NAMES, LOCALES, makeI18n, useI18n, type Locale } from './i18n';
import { ForgotPassword, ReferralLanding, ResetPassword, SignIn, SignUp } from './pages/auth';
import { Landing } from './pages/landing';
import { Link, matchRoute, navigate, Redirect, useLocation } from './router';
import { VERIFICATION_TEXT } from './features/verification/strings';
import { VERIFY_NAV } from './features/signature/nav';
import { Footer } from './features/compliance/Footer';

// Every page but the landing and the sign-in pages is its own chunk, loaded when first opened.
const Public = {
  Treatments: lazy(() => import('./pages/questionnaire').then((m) => ({ default: m.Treatments }))),
  Questionnaire: lazy(() => import('./pages/questionnaire').then((m) => ({ default: m.Questionnaire }))),
};
const Patient = {
  Home: lazy(() => import('./pages/patient').then((m) => ({ default: m.Home }))),
  CheckoutReturn: lazy(() => import('./pages/questionnaire').then((m) => ({ default: m.CheckoutReturn }))),
  Consultations: lazy(() => import('./pages/patient').then((m) => ({ default: m.Consultations }))),
  ConsultationDetail: lazy(() => import('./pages/patient').then((m) => ({ default: m.ConsultationDetail }))),
  Prescriptions: lazy(() => import('./pages/patient').then((m) => ({ default: m.Prescriptions }))),
  Payments: lazy(() => import('./pages/patient').then((m) => ({ default: m.Payments }))),
  Orders: lazy(() => import('./pages/patient').then((m) => ({ default: m.Orders }))),
  Messages: lazy(() => import('./pages/messages').then((m) => ({ default: m.Messages }))),
  Journal: lazy(() => import('./pages/journal')),
  Renewal: lazy(() => import('./pages/plans').then((m) => ({ default: m.Renewal }))),
  Plan: lazy(() => import('./pages/plans').then((m) => ({ default: m.PlanPage }))),
  Referrals: lazy(() => import('./pages/account').then((m) => ({ default: m.Referrals }))),
  Profile: lazy(() => import('./pages/account').then((m) => ({ default: m.ProfilePage }))),
  ChangePassword: lazy(() => import('./pages/account').then((m) => ({ default: m.ChangePasswordPage }))),
};
const Verification = { Page: lazy(() => import('./features/verification/VerificationPage')), WeightQueue: lazy(() => import('./features/verification/WeightQueue')) };
// The legal and transparency pages (docs/compliance.md), one chunk.
const Compliance = {
  Doctors: lazy(() => import('./features/compliance/pages').then((m) => ({ default: m.DoctorsPage }))),
  Cancel: lazy(() => import('./features/compliance/pages').then((m) => ({ default: m.CancelPage }))),
  CancelConfirm: lazy(() => import('./features/compliance/pages').then((m) => ({ default: m.CancelConfirmPage }))),
  Accessibility: lazy(() => import('./features/compliance/pages').then((m) => ({ default: m.AccessibilityPage }))),
  Imprint: lazy(() => import('./features/compliance/pages').then((m) => ({ default: m.ImprintPage }))),
  DeskProfile: lazy(() => import('./features/compliance/pages').then((m) => ({ default: m.DeskProfilePage }))),
};
// The share-link viewer (docs/interoperability.md): public, for a doctor without the app.
const ShareLinkViewer = lazy(() => import('./features/share-links/Viewer'));
// Appointments and calls (docs/appointments.md), one chunk.
const Appointments = {
  List: lazy(() => import('./features/appointments/pages').then((m) => ({ default: m.AppointmentsPage }))),
  Book: lazy(() => import('./features/appointments/pages').then((m) => ({ default: m.BookAppointment }))),
  Detail: lazy(() => import('./features/appointments/pages').then((m) => ({ default: m.AppointmentDetail }))),
  DeskCalls: lazy(() => import('./features/appointments/pages').then((m) => ({ default: m.DeskCalls }))),
  DeskCall: lazy(() => import('./features/appointments/pages').then((m) => ({ default: m.DeskCall }))),
};
const Pharmacy = lazy(() => import('./pages/pharmacy').then((m) => ({ default: m.PharmacyDesk })));
// Signed prescriptions (docs/prescriptions.md): verify a prescription (public and the pharmacy desk's), the prescriber's details.
const Signature = {
  Verify: lazy(() => import('./features/signature/VerifyPrescription')),
  Prescriber: lazy(() => import('./features/signature/PrescriberPage')),
};
const Doctor = {
  Desk: lazy(() => import('./pages/desk').then((m) => ({ default: m.Desk }))),
  Consultation: lazy(() => import('./pages/desk').then((m) => ({ default: m.DeskConsultation }))),
  Inbox: lazy(() => import('./pages/desk').then((m) => ({ default: m.Inbox }))),
  Conversation: lazy(() => import('./pages/desk').then((m) => ({ default: m.InboxConversation }))),
  RedFlags: lazy(() => import('./pages/red-flags').then((m) => ({ default: m.RedFlags }))),
};

type Page = { pattern: string; area: 'public' | 'patient' | 'doctor' | 'pharmacist'; render: (p: Record<string, string>) => ReactNode };

const PAGES: Page[] = [
  { pattern: '/', area: 'public', render: () => <Landing /> },
  { pattern: '/sign-in', area: 'public', render: () => <SignIn /> },
  { pattern: '/sign-up', area: 'public', render: () => <SignUp /> },
  { pattern: '/forgot-password', area: 'public', render: () => <ForgotPassword /> },
  { pattern: '/reset-password', area: 'public', render: () => <ResetPassword /> },
  { pattern: '/r/:code', area: 'public', render: (p) => <ReferralLanding code={p.code} /> },
  { pattern: '/treatments', area: 'public', render: () => <Public.Treatments /> },
  { pattern: '/questionnaire/:slug', area: 'public', render: (p) => <Public.Questionnaire slug={p.slug} /> },
  { pattern: '/doctors', area: 'public', render: () => <Compliance.Doctors /> },
  { pattern: '/cancel', area: 'public', render: () => <Compliance.Cancel /> },
  { pattern: '/cancel/confirm', area: 'public', render: () => <Compliance.CancelConfirm /> },
  { pattern: '/accessibility', area: 'public', render: () => <Compliance.Accessibility /> },
  { pattern: '/imprint', area: 'public', render: () => <Compliance.Imprint /> },
  { pattern: '/shl', area: 'public', render: () => <ShareLinkViewer /> },
  { pattern: '/home', area: 'patient', render: () => <Patient.Home /> },
  { pattern: '/verification', area: 'patient', render: () => <Verification.Page /> },
  { pattern: '/checkout/return', area: 'patient', render: () => <Patient.CheckoutReturn /> },
  { pattern: '/consultations', area: 'patient', render: () => <Patient.Consultations /> },
  { pattern: '/consultations/:id', area: 'patient', render: (p) => <Patient.ConsultationDetail id={p.id} /> },
  { pattern: '/prescriptions', area: 'patient', render: () => <Patient.Prescriptions /> },
  { pattern: '/payments', area: 'patient', render: () => <Patient.Payments /> },
  { pattern: '/orders', area: 'patient', render: () => <Patient.Orders /> },
  { pattern: '/messages', area: 'patient', render: () => <Patient.Messages /> },
  { pattern: '/journal', area: 'patient', render: () => <Patient.Journal /> },
  { pattern: '/renewal', area: 'patient', render: () => <Patient.Renewal /> },
  { pattern: '/plan', area: 'patient', render: () => <Patient.Plan /> },
  { pattern: '/referrals', area: 'patient', render: () => <Patient.Referrals /> },
  { pattern: '/profile', area: 'patient', render: () => <Patient.Profile /> },
  { pattern: '/change-password', area: 'patient', render: () => <Patient.ChangePassword /> },
  { pattern: '/desk', area: 'doctor', render: () => <Doctor.Desk /> },
  { pattern: '/desk/consultations/:id', area: 'doctor', render: (p) => <Doctor.Consultation id={p.id} /> },
  { pattern: '/desk/conversations', area: 'doctor', render: () => <Doctor.Inbox /> },
  { pattern: '/desk/conversations/:id', area: 'doctor', render: (p) => <Doctor.Conversation id={p.id} /> },
  { pattern: '/desk/red-flags', area: 'doctor', render: () => <Doctor.RedFlags /> },
  { pattern: '/desk/weights', area: 'doctor', render: () => <Verification.WeightQueue /> },
  { pattern: '/desk/profile', area: 'doctor', render: () => <Compliance.DeskProfile /> },
  { pattern: '/pharmacy', area: 'pharmacist', render: () => <Pharmacy /> },
  { pattern: '/verify', area: 'public', render: () => <Signature.Verify /> },
  { pattern: '/pharmacy/verify', area: 'pharmacist', render: () => <Signature.Verify desk /> },
  { pattern: '/desk/prescriber', area: 'doctor', render: () => <Signature.Prescriber /> },
  { pattern: '/appointments', area: 'patient', render: () => <Appointments.List /> },
  { pattern: '/appointments/book/:consultation', area: 'patient', render: (p) => <Appointments.Book consultationId={p.consultation} /> },
  { pattern: '/appointments/:id', area: 'patient', render: (p) => <Appointments.Detail id={p.id} /> },
  { pattern: '/desk/calls', area: 'doctor', render: () => <Appointments.DeskCalls /> },
  { pattern: '/desk/calls/:id', area: 'doctor', render: (p) => <Appointments.DeskCall id={p.id} /> },
];
export const PAGE_PATTERNS = PAGES.map((p) => ({ pattern: p.pattern, area: p.area }));

function Header({ unread }: { unread: number }) {
  const { t, locale, setLocale } = useI18n();
  const session = useSession();
  const { path } = useLocation();
  const links: [string, string][] = !session
    ? [
        ['/treatments', t('nav.treatments')],
        ['/sign-in', t('nav.signIn')],
        ['/sign-up', t('nav.signUp')],
      ]
    : session.is_doctor
      ? [
          ['/desk', t('nav.desk')],
          ['/desk/conversations', t('nav.inbox')],
          ['/desk/red-flags', t('nav.redFlags')],
          ['/desk/weights', VERIFICATION_TEXT[locale].queue],
        ]
      : session.is_pharmacist
        ? [
            ['/pharmacy', t('nav.pharmacy')],
            ['/pharmacy/verify', VERIFY_NAV[locale]],
          ]
        : [
          ['/home', t('nav.home')],
          ['/consultations', t('nav.consultations')],
          ['/prescriptions', t('nav.prescriptions')],
          ['/payments', t('nav.payments')],
          ['/messages', t('nav.messages')],
          ['/journal', t('nav.journal')],
          ['/plan', t('nav.plan')],
          ['/referrals', t('nav.referrals')],
          ['/profile', t('nav.profile')],
        ];
  async function signOut() {
    const s = auth.get();
    // Ends the session of the access token; the answer clears the refresh cookie.
    if (s) await api.POST('/v1/users/logout/', { body: {} }).catch(() => undefined);
    auth.clear();
    navigate('/sign-in');
  }
  return (
    <header className="top">
      <a className="skip" href="#main">
        {t('app.skip')}
      </a>
      <div className="bar">
        <Link to="/" className="brand">
          {t('app.name')}
        </Link>
        <div className="lang">
          <label htmlFor="lang-select" className="visually-hidden">
            {t('app.language')}
          </label>
          <select id="lang-select" value={locale} onChange={(e) => setLocale(e.target.value as Locale)}>
            {LOCALES.map((l) => (
              <option key={l} value={l} lang={l}>
                {LOCALE_NAMES[l]}
              </option>
            ))}
          </select>
        </div>
      </div>
      <nav aria-label={t('nav.main')}>
        <ul>
          {links.map(([to, label]) => (
            <li key={to}>
              <Link to={to} aria-current={path === to ? 'page' : undefined}>
                {label}
                {to === '/messages' && unread > 0 ? <span className="count"> ({t('nav.unread', { n: unread })})</span> : null}
              </Link>
            </li>
          ))}
          {session ? (
            <li>
              <button type="button" className="link" onClick={signOut}>
                {t('nav.signOut')}
              </button>
            </li>
          ) : null}
        </ul>
      </nav>
    </header>
  );
}

export function App() {
  const session = useSession();
  const [locale, setShownLocale] = useState<Locale>(browserLocale());
  // A language is shown once its dictionary is there (English meanwhile, or if it cannot be loaded).
  const setLocaleState = (l: Locale) => void loadLocale(l).then(() => setShownLocale(l), () => setShownLocale('en'));
  const { path } = useLocation();

  // Signed in: the profile's language wins; the unread badge of the patient's conversation.
  const signedIn = session ? session.key : undefined;
  const showProfileLocale = useEffectEvent((l: Locale) => setLocaleState(l));
  useEffect(() => {
    if (signedIn === undefined) return;
    void api.GET('/v1/users/profile/').then(({ data }) => {
      if (data && isLocale(data.locale)) showProfileLocale(data.locale);
    });
  }, [signedIn]);
  // The count belongs to the session it was read for: none for clinicians, pharmacists or nobody.
  const refreshToken = session?.key;
  const isPatient = Boolean(session && !session.is_doctor && !session.is_pharmacist);
  const [unreadOf, setUnread] = useState<{ token?: string; n: number }>({ n: 0 });
  const unread = isPatient && unreadOf.token === refreshToken ? unreadOf.n : 0;
  useEffect(() => {
    if (!isPatient) return;
    const refresh = () =>
      void api.GET('/v1/users/conversations/').then(({ data }) => setUnread({ token: refreshToken, n: data?.results.reduce((n, c) => n + c.unread_count, 0) ?? 0 }));
    refresh();
    window.addEventListener('pts:unread', refresh);
    return () => window.removeEventListener('pts:unread', refresh);
  }, [isPatient, refreshToken, path]);

  const i18n = useMemo(
    () =>
      makeI18n(locale, (l) => {
        setLocaleState(l);
        localStorage.setItem('pts.locale', l);
        if (auth.get()) void api.PATCH('/v1/users/profile/me/', { body: { locale: l } });
      }),
    [locale],
  );
  useEffect(() => {
    document.documentElement.lang = locale;
  }, [locale]);

  let content: ReactNode = null;
  let found = false;
  for (const page of PAGES) {
    const params = matchRoute(page.pattern, path);
    if (!params) continue;
    found = true;
    if (page.area !== 'public' && !session) content = <Redirect to={`/sign-in?next=${encodeURIComponent(path + window.location.search)}`} />;
    else if (page.area === 'doctor' && !session?.is_doctor) content = <Alert kind="error">{i18n.t('desk.patientOnly')}</Alert>;
    else if (page.area === 'pharmacist' && !session?.is_pharmacist) content = <Alert kind="error">{i18n.t('pharmacy.staffOnly')}</Alert>;
    else if (page.area === 'patient' && session?.is_doctor && path === '/home') content = <Redirect to="/desk" />;
    else if (page.area === 'patient' && session?.is_pharmacist && path === '/home') content = <Redirect to="/pharmacy" />;
    else content = page.render(params);
    break;
  }
  if (!found) content = <Alert kind="error">{i18n.t('app.notFound')}</Alert>;

  return (
    <I18nProvider value={i18n}>
      <EmergencyProvider>
        <Header unread={unread} />
        <main id="main" tabIndex={-1}>
          <Suspense fallback={<Loading />}>{content}</Suspense>
        </main>
        <Footer />
      </EmergencyProvider>
    </I18nProvider>
  );
}
