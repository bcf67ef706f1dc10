// Two-step sign-in (docs/accounts.md, "Second factor"): the code step after the password, the
// enrolment a staff account must make (QR code of the otpauth URI, the secret as text, a first
// code, the recovery codes), and the account page's own setting.
import qrcode from 'qrcode-generator';
import { useEffect, useState, type FormEvent } from 'react';
import { api, brandParams, errorText } from '../api/client';
import type { Session } from '../auth';
import { useI18n } from '../i18n';
import { Alert, Field, LoadError, Loading, useLoad } from './ui';

type Setup = { secret: string; otpauth_uri: string };

/** The QR code of `text` as an SVG (dark modules as one path). */
export function QrCode({ text, label }: { text: string; label: string }) {
  const qr = qrcode(0, 'M');
  qr.addData(text);
  qr.make();
  const n = qr.getModuleCount();
  let d = '';
  for (let r = 0; r < n; r++) for (let c = 0; c < n; c++) if (qr.isDark(r, c)) d += `M${c + 4} ${r + 4}h1v1h-1z`;
  return (
    <svg className="qr" role="img" aria-label={label} viewBox={`0 0 ${n + 8} ${n + 8}`} width={Math.max(200, (n + 8) * 5)} height={Math.max(200, (n + 8) * 5)} shapeRendering="crispEdges">
      <rect width="100%" height="100%" fill="#fff" />
      <path d={d} fill="#000" />
    </svg>
  );
}

/** The secret in groups of four, easier to type. */
const grouped = (secret: string) => secret.replace(/(.{4})/g, '$1 ').trim();

function CodeField({ value, onChange, recovery }: { value: string; onChange: (v: string) => void; recovery?: boolean }) {
  const { t } = useI18n();
  return (
    <Field
      label={t('mfa.code')}
      name="code"
      inputMode={recovery ? 'text' : 'numeric'}
      autoComplete="one-time-code"
      maxLength={recovery ? 16 : 6}
      required
      value={value}
      onChange={(e) => onChange(e.target.value)}
      hint={recovery ? t('mfa.codeHint') : undefined}
    />
  );
}

/** The error text of a refused code (the service's codes, in the page's language). */
function codeError(t: ReturnType<typeof useI18n>['t'], body: unknown, status: number): string {
  const code = (body as { code?: unknown } | undefined)?.code;
  if (code === 'invalid_mfa_token') return t('mfa.expired');
  if (code === 'invalid_mfa_code' || (status === 400 && Array.isArray(code))) return t('mfa.wrongCode');
  if (status === 429) return t('auth.rateLimited');
  return errorText(body, t('app.error'));
}

/** The second step of a sign-in: the authenticator (or a recovery) code for the mfa_token. */
export function MfaCodeStep({ mfaToken, onSignedIn, onRestart }: { mfaToken: string; onSignedIn: (s: Session) => void; onRestart: () => void }) {
  const { t } = useI18n();
  const [code, setCode] = useState('');
  const [error, setError] = useState('');
  const [expired, setExpired] = useState(false);
  const [busy, setBusy] = useState(false);
  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError('');
    const { data, error: err, response } = await api.POST('/v1/users/token/mfa/', { params: brandParams, body: { mfa_token: mfaToken, code: code.trim() } });
    setBusy(false);
    if (data) return onSignedIn(data);
    setError(codeError(t, err, response.status));
    setExpired((err as { code?: unknown } | undefined)?.code === 'invalid_mfa_token');
    setCode('');
  }
  return (
    <>
      <p>{t('mfa.codeIntro')}</p>
      <form onSubmit={submit} noValidate>
        {error ? <Alert kind="error">{error}</Alert> : null}
        <CodeField value={code} onChange={setCode} recovery />
        <button type="submit" disabled={busy || expired}>
          {t('mfa.verify')}
        </button>
      </form>
      <p>
        <button type="button" className="link" onClick={onRestart}>
          {t('mfa.restart')}
        </button>
      </p>
    </>
  );
}

/** Shows the recovery codes once; `onDone` when the person says they saved them. */
export function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  const { t } = useI18n();
  return (
    <section aria-labelledby="recovery-h">
      <h2 id="recovery-h">{t('mfa.recoveryTitle')}</h2>
      <p>{t('mfa.recoveryIntro')}</p>
      <ul className="recovery-codes" aria-label={t('mfa.recoveryTitle')}>
        {codes.map((c) => (
          <li key={c}>
            <code>{c}</code>
          </li>
        ))}
      </ul>
      <button type="button" onClick={onDone}>
        {t('mfa.saved')}
      </button>
    </section>
  );
}

/** The QR code, the secret as text, and the form for the first code. */
function SetupForm({ setup, onCode, busy, error }: { setup: Setup; onCode: (code: string) => void; busy: boolean; error: string }) {
  const { t } = useI18n();
  const [code, setCode] = useState('');
  return (
    <>
      <p>{t('mfa.scan')}</p>
      <QrCode text={setup.otpauth_uri} label={t('mfa.qrLabel')} />
      <p>
        {t('mfa.secret')} <code className="secret">{grouped(setup.secret)}</code>
      </p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          onCode(code.trim());
          setCode('');
        }}
        noValidate
      >
        {error ? <Alert kind="error">{error}</Alert> : null}
        <CodeField value={code} onChange={setCode} />
        <button type="submit" disabled={busy}>
          {t('mfa.confirm')}
        </button>
      </form>
    </>
  );
}

/** Enrolment during sign-in (staff without a factor where one is required), with the enrolment token. */
export function EnrolStep({ enrolmentToken, onSignedIn, onRestart }: { enrolmentToken: string; onSignedIn: (s: Session) => void; onRestart: () => void }) {
  const { t } = useI18n();
  const [setup, setSetup] = useState<Setup | null>(null);
  const [done, setDone] = useState<(Session & { recovery_codes: string[] }) | null>(null);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    let live = true;
    void api.POST('/v1/users/token/mfa/enrol/', { params: brandParams, body: { enrolment_token: enrolmentToken } }).then(({ data, error: err, response }) => {
      if (!live) return;
      if (data) setSetup(data);
      else setError(codeError(t, err, response.status));
    });
    return () => {
      live = false;
    };
  }, [enrolmentToken, t]);

  async function confirm(code: string) {
    setBusy(true);
    setError('');
    const { data, error: err, response } = await api.POST('/v1/users/token/mfa/enrol/confirm/', { params: brandParams, body: { enrolment_token: enrolmentToken, code } });
    setBusy(false);
    if (data) setDone(data);
    else setError(codeError(t, err, response.status));
  }

  if (done) return <RecoveryCodes codes={done.recovery_codes} onDone={() => onSignedIn(done)} />;
  return (
    <>
      <p>{t('mfa.enrolIntro')}</p>
      {setup ? <SetupForm setup={setup} onCode={confirm} busy={busy} error={error} /> : error ? <Alert kind="error">{error}</Alert> : <Loading />}
      <p>
        <button type="button" className="link" onClick={onRestart}>
          {t('mfa.restart')}
        </button>
      </p>
    </>
  );
}

type Status = { methods: string[]; required: boolean; recovery_codes_left: number };

/** The account page's setting: on (codes left, turn off) or off (set up an authenticator app). */
export function TwoStepSettings() {
  const { t } = useI18n();
  const status = useLoad<Status>(() => api.GET('/v1/users/mfa/'));
  const [setup, setSetup] = useState<Setup | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const [offCode, setOffCode] = useState('');
  const [error, setError] = useState('');
  const [notice, setNotice] = useState('');
  const [busy, setBusy] = useState(false);
  if (status.error) return <LoadError error={status.error} />;
  if (!status.data) return <Loading />;
  const on = status.data.methods.length > 0;

  async function start() {
    setError('');
    setNotice('');
    const { data, error: err, response } = await api.POST('/v1/users/mfa/totp/');
    if (data) setSetup(data);
    else setError(codeError(t, err, response.status));
  }
  async function confirm(code: string) {
    setBusy(true);
    setError('');
    const { data, error: err, response } = await api.POST('/v1/users/mfa/totp/confirm/', { body: { code } });
    setBusy(false);
    if (data) {
      setSetup(null);
      setCodes(data.recovery_codes);
    } else setError(codeError(t, err, response.status));
  }
  async function turnOff(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError('');
    const { data, error: err, response } = await api.POST('/v1/users/mfa/totp/remove/', { body: { code: offCode.trim() } });
    setBusy(false);
    setOffCode('');
    if (!data) return setError(codeError(t, err, response.status));
    setNotice(t('mfa.turnedOff'));
    status.setData({ ...status.data!, methods: [], recovery_codes_left: 0 });
  }

  if (codes)
    return (
      <RecoveryCodes
        codes={codes}
        onDone={() => {
          setCodes(null);
          setNotice(t('mfa.turnedOn'));
          status.setData({ ...status.data!, methods: ['totp'], recovery_codes_left: codes.length });
        }}
      />
    );
  if (setup) return <SetupForm setup={setup} onCode={confirm} busy={busy} error={error} />;
  return (
    <>
      {notice ? <Alert kind="success">{notice}</Alert> : null}
      <p>{on ? t('mfa.on', { n: status.data.recovery_codes_left }) : t('mfa.off')}</p>
      {error ? <Alert kind="error">{error}</Alert> : null}
      {!on ? (
        <button type="button" onClick={start}>
          {t('mfa.setUp')}
        </button>
      ) : status.data.required ? (
        <p className="hint">{t('mfa.requiredHint')}</p>
      ) : (
        <form onSubmit={turnOff} noValidate>
          <CodeField value={offCode} onChange={setOffCode} recovery />
          <button type="submit" disabled={busy}>
            {t('mfa.turnOff')}
          </button>
        </form>
      )}
    </>
  );
}
