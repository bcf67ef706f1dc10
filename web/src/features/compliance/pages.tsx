// The public compliance pages (docs/compliance.md): our doctors, cancelling a contract without
// signing in (§ 312k BGB) and its one-click confirmation, the accessibility statement, the
// imprint, and the doctor's own public listing on the desk. Their own chunk and strings.
import { useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { useSession } from '../../auth';
import { Alert, Field, LoadError, Loading, PageTitle, Select, TextArea, useLoad } from '../../components/ui';
import { useI18n } from '../../i18n';
import { Link, useLocation } from '../../router';
import { loadSite } from './site';
import { PUBLIC_STRINGS, type ComplianceKey } from './strings';

function useStrings() {
  const { locale } = useI18n();
  const dict = PUBLIC_STRINGS[locale];
  return (key: ComplianceKey, vars: Record<string, string> = {}) => dict[key].replace(/\{(\w+)\}/g, (m, k: string) => vars[k] ?? m);
}

export function DoctorsPage() {
  const s = useStrings();
  const doctors = useLoad(() => api.GET('/v1/public/doctors/'), []);
  const list = doctors.data?.results ?? [];
  return (
    <section>
      <PageTitle>{s('doctors.title')}</PageTitle>
      <p>{s('doctors.intro')}</p>
      <LoadError error={doctors.error} />
      {doctors.loading && !doctors.data ? <Loading /> : null}
      {doctors.data && !list.length ? <p>{s('doctors.none')}</p> : null}
      {list.length ? (
        <table className="table">
          <thead>
            <tr>
              <th scope="col">{s('doctors.name')}</th>
              <th scope="col">{s('doctors.number')}</th>
              <th scope="col">{s('doctors.regulator')}</th>
            </tr>
          </thead>
          <tbody>
            {list.map((d) => (
              <tr key={`${d.name}-${d.registration_number}`}>
                <td>{d.name}</td>
                <td>{d.registration_number}</td>
                <td>
                  {d.regulator ? (
                    <>
                      {d.regulator.name}
                      <br />
                      <a href={d.regulator.register_url} rel="noopener noreferrer" target="_blank">
                        {s('doctors.check')}
                        <span className="visually-hidden">: {d.name}</span>
                      </a>
                    </>
                  ) : (
                    (d.registration_country ?? '—')
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}

type CancelErrors = Partial<Record<'name' | 'email' | 'plan' | 'kind' | 'date' | 'reason', string>>;

export function CancelPage() {
  const s = useStrings();
  const { locale } = useI18n();
  const session = useSession();
  const cats = useLoad(() => api.GET('/v1/users/questionnaires/categories/', { params: { query: { locale } } }), [locale]);
  const [form, setForm] = useState({ name: '', email: '', plan: 'all', kind: 'ordinary' as 'ordinary' | 'extraordinary', date: '', reason: '' });
  const [errors, setErrors] = useState<CancelErrors>({});
  const [done, setDone] = useState<string | null>(null);
  const [failed, setFailed] = useState(false);
  const [busy, setBusy] = useState(false);
  const set = (k: keyof typeof form) => (v: string) => setForm((f) => ({ ...f, [k]: v }));

  async function submit(e: FormEvent) {
    e.preventDefault();
    const missing: CancelErrors = {};
    for (const k of ['name', 'email', 'date'] as const) if (!form[k].trim()) missing[k] = s('cancel.required');
    if (form.kind === 'extraordinary' && !form.reason.trim()) missing.reason = s('cancel.required');
    setErrors(missing);
    if (Object.keys(missing).length) return;
    setBusy(true);
    setFailed(false);
    // The plan select offers only 'all' and the categories the service lists.
    // A reason goes only with an extraordinary cancellation (the good cause it names).
    const { reason, ...rest } = form;
    const body = { ...rest, plan: form.plan as 'all', ...(form.kind === 'extraordinary' ? { reason } : {}) };
    const { data, error, response } = await api.POST('/v1/public/cancel/', { body });
    setBusy(false);
    if (data) setDone(data.detail);
    else if (response.status === 400 && error && typeof error === 'object') {
      const out: CancelErrors = {};
      for (const [k, v] of Object.entries(error as Record<string, unknown>)) if (Array.isArray(v)) out[k as keyof CancelErrors] = String(v[0]);
      setErrors(out);
    } else setFailed(true);
  }

  return (
    <section>
      <PageTitle>{s('cancel.title')}</PageTitle>
      <p>{s('cancel.intro')}</p>
      {session ? (
        <p>
          <Link to="/plan">{s('cancel.signedIn')}</Link>
        </p>
      ) : null}
      {done ? (
        <Alert kind="success">{s('cancel.done')}</Alert>
      ) : (
        <form onSubmit={(e) => void submit(e)} noValidate className="card">
          {failed ? <LoadError error={true} /> : null}
          <Field label={s('cancel.name')} autoComplete="name" value={form.name} onChange={(e) => set('name')(e.target.value)} error={errors.name} required />
          <Field label={s('cancel.email')} type="email" autoComplete="email" value={form.email} onChange={(e) => set('email')(e.target.value)} error={errors.email} required />
          <Select
            label={s('cancel.plan')}
            value={form.plan}
            onChange={(e) => set('plan')(e.target.value)}
            error={errors.plan}
            options={[{ value: 'all', label: s('cancel.planAll') }, ...(cats.data?.categories ?? []).map((c) => ({ value: c.slug, label: c.title }))]}
          />
          <fieldset aria-describedby={errors.kind ? 'cancel-kind-error' : undefined}>
            <legend>{s('cancel.kind')}</legend>
            {(['ordinary', 'extraordinary'] as const).map((k) => (
              <label key={k} className="choice">
                <input type="radio" name="kind" value={k} checked={form.kind === k} onChange={() => set('kind')(k)} />
                {s(`cancel.${k}`)}
              </label>
            ))}
            {errors.kind ? (
              <p className="field-error" id="cancel-kind-error" role="alert">
                {errors.kind}
              </p>
            ) : null}
          </fieldset>
          {form.kind === 'extraordinary' ? (
            <TextArea label={s('cancel.reason')} value={form.reason} onChange={(e) => set('reason')(e.target.value)} error={errors.reason} hint={s('cancel.reasonHint')} maxLength={2000} rows={3} required />
          ) : null}
          <Field
            label={s('cancel.date')}
            type="date"
            value={form.date}
            onChange={(e) => set('date')(e.target.value)}
            error={errors.date}
            hint={s(form.kind === 'extraordinary' ? 'cancel.dateHintExtraordinary' : 'cancel.dateHint')}
            required
          />
          <button type="submit" disabled={busy}>
            {s('cancel.submit')}
          </button>
        </form>
      )}
    </section>
  );
}

export function CancelConfirmPage() {
  const s = useStrings();
  const { locale, date } = useI18n();
  const { query } = useLocation();
  const token = query.get('token');
  // The click in the mail is the confirmation: the page confirms once on opening (mail scanners
  // that fetch the link do not run it). A second opening answers `already_confirmed`.
  const result = useLoad(() => (token ? api.POST('/v1/public/cancel/confirm/', { body: { token } }) : Promise.resolve({ data: undefined, error: undefined })), [token]);
  const cats = useLoad(() => api.GET('/v1/users/questionnaires/categories/', { params: { query: { locale } } }), [locale]);
  const code = result.error && typeof result.error === 'object' && 'code' in result.error ? String(result.error.code) : null;
  const title = (slug: string) => cats.data?.categories.find((c) => c.slug === slug)?.title ?? slug.replace(/_/g, ' ');
  return (
    <section>
      <PageTitle>{s('confirm.title')}</PageTitle>
      {!token ? <p>{s('confirm.noToken')}</p> : null}
      {token && result.loading ? <p role="status">{s('confirm.working')}</p> : null}
      {result.data ? (
        <>
          <Alert kind="success">{result.data.already_confirmed ? s('confirm.again') : s('confirm.done')}</Alert>
          <ul>
            {result.data.plans.map((p) => (
              <li key={`${p.category}-${p.ends_at}`}>{s('confirm.ends', { plan: title(p.category), date: date(p.ends_at) })}</li>
            ))}
          </ul>
        </>
      ) : null}
      {code === 'cancel_link_expired' || code === 'cancel_link_invalid' ? (
        <Alert kind="error">
          {s(code === 'cancel_link_expired' ? 'confirm.expired' : 'confirm.invalid')} <Link to="/cancel">{s('cancel.title')}</Link>
        </Alert>
      ) : result.error ? (
        <LoadError error={result.error} />
      ) : null}
    </section>
  );
}

export function AccessibilityPage() {
  const s = useStrings();
  const site = useLoad(() => loadSite(), []);
  const email = site.data?.accessibility.contact_email ?? null;
  return (
    <section className="prose">
      <PageTitle>{s('a11y.title')}</PageTitle>
      <h2>{s('a11y.scopeTitle')}</h2>
      <p>{s('a11y.scope')}</p>
      <h2>{s('a11y.testTitle')}</h2>
      <p>{s('a11y.test')}</p>
      <h2>{s('a11y.gapsTitle')}</h2>
      <ul>
        {(['a11y.gap1', 'a11y.gap2', 'a11y.gap3', 'a11y.gap4'] as const).map((k) => (
          <li key={k}>{s(k)}</li>
        ))}
      </ul>
      <h2>{s('a11y.feedbackTitle')}</h2>
      {email ? (
        <p>
          {s('a11y.feedback', { email: '\u0000' })
            .split('\u0000')
            .flatMap((part, i) => (i === 0 ? [part] : [<a key="mail" href={`mailto:${email}`}>{email}</a>, part]))}
        </p>
      ) : (
        <p>{s('a11y.feedbackNone')}</p>
      )}
      <h2>{s('a11y.enforcementTitle')}</h2>
      <p>{s('a11y.enforcement')}</p>
      <p className="hint">{s('a11y.date')}</p>
    </section>
  );
}

export function ImprintPage() {
  const s = useStrings();
  const site = useLoad(() => loadSite(), []);
  const i = site.data?.imprint;
  const d = site.data?.distance_selling;
  const rows: [ComplianceKey, string | null | undefined][] = i
    ? [
        ['imprint.provider', i.name],
        ['imprint.address', [...i.address, i.country ?? ''].filter(Boolean).join(', ') || null],
        ['imprint.representative', i.representative],
        ['imprint.register', i.register],
        ['imprint.vat', i.vat_id],
        ['imprint.email', i.email],
        ['imprint.phone', i.phone],
        ['imprint.authority', i.supervisory_authority],
        ['imprint.rules', i.professional_rules],
        ['imprint.pharmacy', d?.pharmacy_name],
      ]
    : [];
  const shown = rows.filter(([, v]) => v);
  return (
    <section>
      <PageTitle>{s('imprint.title')}</PageTitle>
      <LoadError error={site.error} />
      {site.loading && !site.data ? <Loading /> : null}
      {site.data && !shown.length ? <p>{s('imprint.missing')}</p> : null}
      {shown.length ? (
        <dl className="facts">
          {shown.map(([k, v]) => (
            <div key={k}>
              <dt>{s(k)}</dt>
              <dd>{k === 'imprint.email' ? <a href={`mailto:${v}`}>{v}</a> : v}</dd>
            </div>
          ))}
          {d ? (
            <div>
              <dt>{s('imprint.pharmacyRegister')}</dt>
              <dd>
                <a href={d.register_url} rel="noopener noreferrer" target="_blank">
                  {d.register_url}
                </a>
              </dd>
            </div>
          ) : null}
        </dl>
      ) : null}
    </section>
  );
}

export function DeskProfilePage() {
  const s = useStrings();
  const profile = useLoad(() => api.GET('/v1/clinician/profile/'), []);
  const [saved, setSaved] = useState(false);
  const p = profile.data;
  async function toggle(listed: boolean) {
    setSaved(false);
    const { data } = await api.PATCH('/v1/clinician/profile/', { body: { public_listing: listed } });
    if (data) {
      profile.setData(data);
      setSaved(true);
    }
  }
  return (
    <section>
      <PageTitle>{s('desk.title')}</PageTitle>
      <p>{s('desk.intro')}</p>
      <LoadError error={profile.error} />
      {profile.loading && !p ? <Loading /> : null}
      {p ? (
        <>
          <label className="choice">
            <input type="checkbox" checked={p.public_listing} onChange={(e) => void toggle(e.target.checked)} />
            {s('desk.listed')}
          </label>
          {saved ? <Alert kind="success">{s('desk.saved')}</Alert> : null}
          <h2>{s('desk.preview')}</h2>
          <dl className="facts">
            <div>
              <dt>{s('doctors.name')}</dt>
              <dd>{p.name}</dd>
            </div>
            <div>
              <dt>{s('doctors.number')}</dt>
              <dd>{p.registration_number ?? '—'}</dd>
            </div>
            <div>
              <dt>{s('doctors.regulator')}</dt>
              <dd>{p.regulator?.name ?? p.registration_country ?? '—'}</dd>
            </div>
          </dl>
        </>
      ) : null}
    </section>
  );
}
