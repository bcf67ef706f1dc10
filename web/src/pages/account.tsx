// Profile (details, addresses, identity document, language), change password, referrals.
import { useState, type FormEvent } from 'react';
import { api, errorText, fieldErrors, type Schemas } from '../api/client';
import { changePassword } from '../api/change-password';
import { PasskeySettings, TwoStepSettings } from '../components/SecondFactor';
import { Alert, Field, LoadError, Loading, PageTitle, Select, useLoad } from '../components/ui';
import { countryOptions } from '../countries';
import { LOCALE_NAMES, LOCALES, useI18n, type Locale } from '../i18n';
import { Link } from '../router';
import { ConnectedAppsSection } from './connected-apps';
import { PrivacySection } from './privacy';
import OwnDoctor from '../features/gp/OwnDoctor';
import { NotificationSettings } from '../features/notifications';

type Profile = Schemas['Profile'];

export function ProfilePage({ onProfile }: { onProfile?: (p: Profile) => void }) {
  const { t } = useI18n();
  const profile = useLoad<Profile>(() => api.GET('/v1/users/profile/'));
  if (profile.error) return <LoadError error={profile.error} />;
  if (!profile.data) return <Loading />;
  return (
    <section>
      <PageTitle>{t('profile.title')}</PageTitle>
      <ProfileForm
        profile={profile.data}
        onSaved={(p) => {
          profile.setData(p);
          onProfile?.(p);
        }}
      />
      <OwnDoctor
        profile={profile.data}
        onSaved={(p) => {
          profile.setData(p);
          onProfile?.(p);
        }}
      />
      <section aria-labelledby="pw-h">
        <h2 id="pw-h">{t('auth.changePassword')}</h2>
        <p>
          <Link to="/change-password">{t('auth.changePassword')}</Link>
        </p>
      </section>
      <section aria-labelledby="mfa-h">
        <h2 id="mfa-h">{t('mfa.accountTitle')}</h2>
        <TwoStepSettings />
      </section>
      <NotificationSettings />
      <ConnectedAppsSection />
      <section aria-labelledby="passkeys-h">
        <h2 id="passkeys-h">{t('mfa.passkeysTitle')}</h2>
        <PasskeySettings />
      </section>
      <PrivacySection />
    </section>
  );
}

function ProfileForm({ profile: p, onSaved }: { profile: Profile; onSaved: (p: Profile) => void }) {
  const { t, locale } = useI18n();
  const address = p.addresses.find((a) => a.is_default) ?? p.addresses[0];
  const [f, setF] = useState({
    first_name: p.first_name,
    last_name: p.last_name,
    date_of_birth: p.date_of_birth ?? '',
    gender: p.gender ?? '',
    country_of_residence: p.country_of_residence ?? '',
    locale: p.locale,
    timezone: p.timezone,
    city: p.city ?? '',
    postal_code: p.postal_code ?? '',
    document_type: p.document_type ?? '',
    document_number: p.document_number ?? '',
    issuing_state: p.issuing_state,
    line1: address?.line1 ?? '',
    line2: address?.line2 ?? '',
    address_city: address?.city ?? '',
    address_postal: address?.postal_code ?? '',
    address_country: address?.country ?? '',
  });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [saved, setSaved] = useState(false);
  const set = (k: keyof typeof f) => (e: { target: { value: string } }) => setF({ ...f, [k]: e.target.value });

  async function submit(e: FormEvent) {
    e.preventDefault();
    setSaved(false);
    const addresses = f.line1
      ? [{ label: 'home', line1: f.line1, line2: f.line2, city: f.address_city, postal_code: f.address_postal, country: f.address_country || f.country_of_residence, is_default: true }]
      : [];
    const { data, error } = await api.PATCH('/v1/users/profile/me/', {
      body: {
        first_name: f.first_name,
        last_name: f.last_name,
        date_of_birth: f.date_of_birth || null,
        ...(f.gender ? { gender: f.gender } : {}),
        country_of_residence: f.country_of_residence || null,
        locale: f.locale as Locale,
        timezone: f.timezone,
        city: f.city || null,
        postal_code: f.postal_code || null,
        document_type: (f.document_type || null) as 'PASSPORT' | null,
        document_number: f.document_number, // "" clears it
        issuing_state: f.issuing_state,
        addresses,
      },
    });
    setErrors(data ? {} : fieldErrors(error));
    if (data) {
      setSaved(true);
      onSaved(data);
    }
  }
  const countries = countryOptions(locale);
  return (
    <form onSubmit={submit} noValidate>
      <fieldset>
        <legend>{t('profile.personal')}</legend>
        <Field label={t('auth.firstName')} name="first_name" autoComplete="given-name" maxLength={150} value={f.first_name} onChange={set('first_name')} error={errors.first_name} />
        <Field label={t('auth.lastName')} name="last_name" autoComplete="family-name" maxLength={150} value={f.last_name} onChange={set('last_name')} error={errors.last_name} />
        <Field label={t('auth.email')} name="email" value={p.email} readOnly />
        <Field label={t('profile.dob')} name="date_of_birth" type="date" autoComplete="bday" value={f.date_of_birth} onChange={set('date_of_birth')} error={errors.date_of_birth} />
        <Select
          label={t('profile.gender')}
          name="gender"
          value={f.gender}
          placeholder={t('profile.choose')}
          options={['0', '1', '2', '3'].map((g) => ({ value: g, label: t(`profile.gender.${g}` as 'profile.gender.0') }))}
          onChange={set('gender')}
          error={errors.gender}
        />
        <Select label={t('profile.country')} name="country_of_residence" value={f.country_of_residence} placeholder={t('profile.choose')} options={countries} onChange={set('country_of_residence')} error={errors.country_of_residence} />
        <Select label={t('profile.locale')} name="locale" value={f.locale} options={LOCALES.map((l) => ({ value: l, label: LOCALE_NAMES[l] }))} onChange={set('locale')} error={errors.locale} />
        <Field label={t('profile.timezone')} name="timezone" maxLength={64} value={f.timezone} onChange={set('timezone')} error={errors.timezone} />
        <Field label={t('profile.city')} name="city" maxLength={120} value={f.city} onChange={set('city')} error={errors.city} />
        <Field label={t('profile.postal')} name="postal_code" maxLength={20} value={f.postal_code} onChange={set('postal_code')} error={errors.postal_code} />
      </fieldset>
      <fieldset>
        <legend>{t('profile.addresses')}</legend>
        <Field label={t('profile.line1')} name="line1" autoComplete="address-line1" value={f.line1} onChange={set('line1')} error={errors['addresses.0.line1'] ?? errors.addresses} />
        <Field label={t('profile.line2')} name="line2" autoComplete="address-line2" value={f.line2} onChange={set('line2')} />
        <Field label={t('profile.city')} name="address_city" autoComplete="address-level2" value={f.address_city} onChange={set('address_city')} />
        <Field label={t('profile.postal')} name="address_postal" autoComplete="postal-code" value={f.address_postal} onChange={set('address_postal')} />
        <Select label={t('profile.country')} name="address_country" value={f.address_country} placeholder={t('profile.choose')} options={countries} onChange={set('address_country')} />
      </fieldset>
      <fieldset>
        <legend>{t('profile.identity')}</legend>
        <Select
          label={t('profile.docType')}
          name="document_type"
          value={f.document_type}
          placeholder={t('profile.choose')}
          options={(['PASSPORT', 'ID_CARD'] as const).map((d) => ({ value: d, label: t(`profile.docType.${d}`) }))}
          onChange={set('document_type')}
          error={errors.document_type}
        />
        <Field label={t('profile.docNumber')} name="document_number" maxLength={50} value={f.document_number} onChange={set('document_number')} error={errors.document_number} />
        <Field label={t('profile.issuingState')} name="issuing_state" maxLength={200} value={f.issuing_state} onChange={set('issuing_state')} error={errors.issuing_state} />
      </fieldset>
      <button type="submit">{t('app.save')}</button>
      {saved ? <Alert kind="success">{t('app.saved')}</Alert> : null}
      {Object.keys(errors).length ? <Alert kind="error">{Object.values(errors)[0]}</Alert> : null}
    </form>
  );
}

/** Change password: the current one and a new one; the service ends the other sessions. */
export function ChangePasswordPage() {
  const { t } = useI18n();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [errors, setErrors] = useState<{ current_password?: string; new_password?: string }>({});
  const [error, setError] = useState('');
  const [done, setDone] = useState(false);
  const [busy, setBusy] = useState(false);
  async function submit(e: FormEvent) {
    e.preventDefault();
    setError('');
    setErrors({});
    setBusy(true);
    const r = await changePassword({ current_password: current, new_password: next });
    setBusy(false);
    if (r.ok) {
      setDone(true);
      setCurrent('');
      setNext('');
      return;
    }
    // The service's messages are English; the page says the same in the patient's language.
    if (r.fields.current_password || r.fields.new_password)
      setErrors({ current_password: r.fields.current_password ? t('auth.currentWrong') : undefined, new_password: r.fields.new_password ? t('auth.passwordWeak') : undefined });
    else setError(r.status === 429 ? t('auth.rateLimited') : errorText(r.body, t('app.error')));
  }
  return (
    <section className="narrow">
      <PageTitle>{t('auth.changePassword')}</PageTitle>
      <p>{t('auth.changePasswordText')}</p>
      {done ? <Alert kind="success">{t('auth.changePasswordDone')}</Alert> : null}
      <form onSubmit={submit} noValidate>
        {error ? <Alert kind="error">{error}</Alert> : null}
        <Field
          label={t('auth.currentPassword')}
          type="password"
          name="current_password"
          autoComplete="current-password"
          required
          value={current}
          onChange={(e) => setCurrent(e.target.value)}
          error={errors.current_password}
        />
        <Field
          label={t('auth.newPassword')}
          type="password"
          name="new_password"
          autoComplete="new-password"
          required
          value={next}
          onChange={(e) => setNext(e.target.value)}
          error={errors.new_password}
          hint={t('auth.passwordHint')}
        />
        <button type="submit" disabled={busy || !current || !next}>
          {t('auth.changePassword')}
        </button>
      </form>
      <p>
        <Link to="/forgot-password">{t('auth.forgot')}</Link>
      </p>
    </section>
  );
}

export function Referrals() {
  const { t, money, date } = useI18n();
  const me = useLoad(() => api.GET('/v1/users/referrals/me/'));
  const people = useLoad(() => api.GET('/v1/users/referrals/me/referred/', { params: { query: { limit: 50 } } }));
  const [copied, setCopied] = useState(false);
  if (me.error) return <LoadError error={me.error} />;
  if (!me.data) return <Loading />;
  const r = me.data;
  return (
    <section>
      <PageTitle>{t('referrals.title')}</PageTitle>
      <Field label={t('referrals.share')} name="share_url" readOnly value={r.share_url} onFocus={(e) => e.target.select()} />
      <button
        type="button"
        onClick={async () => {
          await navigator.clipboard?.writeText(r.share_url).catch(() => undefined);
          setCopied(true);
        }}
      >
        {t('referrals.copy')}
      </button>
      {copied ? <span role="status"> {t('referrals.copied')}</span> : null}
      <p>{t('referrals.count', { n: r.referred_count })}</p>
      <p>
        {t('referrals.commission')}: {money(r.commission_cents, r.currency)} ({r.commission_rate_percent}%)
      </p>
      <h2>{t('referrals.people')}</h2>
      <ul className="list compact">
        {people.data?.results.map((p) => (
          <li key={p.referred_user_id}>
            {p.initials} · {date(p.joined_at)}
          </li>
        ))}
      </ul>
    </section>
  );
}
