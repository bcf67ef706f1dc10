// Two-step sign-in (docs/accounts.md, "Second factor"): the code step after the password, the
// enrolment a staff account must make (QR code of the otpauth URI, the secret as text, a first
// code, the recovery codes), and the account page's own setting.
import { startAuthentication, startRegistration, type PublicKeyCredentialCreationOptionsJSON, type PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/browser';
import qrcode from 'qrcode-generator';
import { useEffect, useState, type FormEvent } from 'react';
import { api, brandParams, errorText } from '../api/client';
import type { Session } from '../auth';
import { useI18n } from '../i18n';
import { Alert, Field, LoadError, Loading, useLoad } from './ui';
import { needsReauth, ReauthPrompt } from '../features/reauth/ReauthPrompt';

export { secondStepOf, type SecondStep } from './second-step';

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

/** A credential as plain JSON for the API (the extension results without the DOM interface type). */
const asBody = <T extends { clientExtensionResults: object }>(c: T) => ({ ...c, clientExtensionResults: Object.fromEntries(Object.entries(c.clientExtensionResults)) as Record<string, unknown> });

/** The browser's passkey ceremony failed or was cancelled: nothing to send. */
async function ceremony<T>(run: () => Promise<T>): Promise<T | null> {
  try {
    return await run();
  } catch {
    return null;
  }
}

/** Signs the sign-in's challenge with a passkey (docs/accounts.md, "Passkeys"). */
function PasskeySignIn({ mfaToken, onSignedIn, onError }: { mfaToken: string; onSignedIn: (s: Session) => void; onError: (text: string) => void }) {
  const { t } = useI18n();
  const [busy, setBusy] = useState(false);
  async function use() {
    setBusy(true);
    onError('');
    const options = await api.POST('/v1/users/token/mfa/webauthn/options/', { params: brandParams, body: { mfa_token: mfaToken } });
    const assertion = options.data ? await ceremony(() => startAuthentication({ optionsJSON: options.data as PublicKeyCredentialRequestOptionsJSON })) : null;
    if (!assertion) {
      setBusy(false);
      return onError(options.data ? t('mfa.passkeyFailed') : codeError(t, options.error, options.response.status));
    }
    const { data, error: err, response } = await api.POST('/v1/users/token/mfa/', { params: brandParams, body: { mfa_token: mfaToken, webauthn: asBody(assertion) } });
    setBusy(false);
    if (data) return onSignedIn(data);
    onError((err as { code?: unknown } | undefined)?.code === 'invalid_passkey' ? t('mfa.passkeyFailed') : codeError(t, err, response.status));
  }
  return (
    <p>
      <button type="button" onClick={use} disabled={busy}>
        {t('mfa.usePasskey')}
      </button>
    </p>
  );
}

/** The second step of a sign-in: the authenticator (or a recovery) code for the mfa_token, or a passkey. */
export function MfaCodeStep({ mfaToken, methods = ['totp'], onSignedIn, onRestart }: { mfaToken: string; methods?: string[]; onSignedIn: (s: Session) => void; onRestart: () => void }) {
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
      {methods.includes('webauthn') ? <PasskeySignIn mfaToken={mfaToken} onSignedIn={onSignedIn} onError={setError} /> : null}
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

  async function passkey() {
    setBusy(true);
    setError('');
    const options = await api.POST('/v1/users/token/mfa/enrol/passkey/options/', { params: brandParams, body: { enrolment_token: enrolmentToken } });
    const credential = options.data ? await ceremony(() => startRegistration({ optionsJSON: options.data as PublicKeyCredentialCreationOptionsJSON })) : null;
    if (!credential) {
      setBusy(false);
      return setError(options.data ? t('mfa.passkeyFailed') : codeError(t, options.error, options.response.status));
    }
    const { data, error: err, response } = await api.POST('/v1/users/token/mfa/enrol/passkey/', { params: brandParams, body: { enrolment_token: enrolmentToken, credential: asBody(credential) } });
    setBusy(false);
    if (data) setDone(data);
    else setError((err as { code?: unknown } | undefined)?.code === 'invalid_passkey' ? t('mfa.passkeyFailed') : codeError(t, err, response.status));
  }

  if (done) return <RecoveryCodes codes={done.recovery_codes} onDone={() => onSignedIn(done)} />;
  return (
    <>
      <p>{t('mfa.enrolIntro')}</p>
      <p>
        <button type="button" onClick={passkey} disabled={busy}>
          {t('mfa.enrolPasskey')}
        </button>
      </p>
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
  const [replaced, setReplaced] = useState<string[] | null>(null);
  const [offCode, setOffCode] = useState('');
  const [error, setError] = useState('');
  const [notice, setNotice] = useState('');
  const [busy, setBusy] = useState(false);
  // A change the API refused until the session re-authenticates: asked for, then run again.
  const [retry, setRetry] = useState<null | (() => Promise<void>)>(null);
  if (status.error) return <LoadError error={status.error} />;
  if (!status.data) return <Loading />;
  const on = status.data.methods.length > 0;
  // A passkey alone is a second factor too (issue 43): it is not told about an authenticator app it
  // does not have, and gets new recovery codes after re-authenticating, without a code.
  const totp = status.data.methods.includes('totp');
  const summary = totp ? t('mfa.on', { n: status.data.recovery_codes_left }) : on ? t('mfa.onPasskey', { n: status.data.recovery_codes_left }) : t('mfa.off');

  async function start() {
    setError('');
    setNotice('');
    const { data, error: err, response } = await api.POST('/v1/users/mfa/totp/');
    if (data) setSetup(data);
    else if (needsReauth(err)) setRetry(() => start);
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
  async function newRecoveryCodes() {
    setError('');
    setNotice('');
    const { data, error: err, response } = await api.POST('/v1/users/mfa/recovery-codes/', { body: {} });
    if (data) setReplaced(data.recovery_codes);
    else if (needsReauth(err)) setRetry(() => newRecoveryCodes);
    else setError(codeError(t, err, response.status));
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
  if (replaced)
    return (
      <RecoveryCodes
        codes={replaced}
        onDone={() => {
          setReplaced(null);
          status.setData({ ...status.data!, recovery_codes_left: replaced.length });
        }}
      />
    );
  if (setup) return <SetupForm setup={setup} onCode={confirm} busy={busy} error={error} />;
  if (retry) return <ReauthPrompt onDone={() => (setRetry(null), void retry())} onCancel={() => setRetry(null)} />;
  return (
    <>
      {notice ? <Alert kind="success">{notice}</Alert> : null}
      <p>{summary}</p>
      {error ? <Alert kind="error">{error}</Alert> : null}
      {on ? (
        <button type="button" onClick={newRecoveryCodes}>
          {t('mfa.newCodes')}
        </button>
      ) : null}
      {!totp ? (
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

type Passkey = { id: string; name: string; backed_up: boolean; created_at: string; last_used_at: string | null };

/** The account page's passkeys: the list, add one (the browser creates it), remove one. */
export function PasskeySettings() {
  const { t } = useI18n();
  const list = useLoad<{ results: Passkey[] }>(() => api.GET('/v1/users/mfa/passkeys/'));
  const [codes, setCodes] = useState<string[] | null>(null);
  const [error, setError] = useState('');
  const [notice, setNotice] = useState('');
  const [busy, setBusy] = useState(false);
  const [retry, setRetry] = useState<null | (() => Promise<void>)>(null);
  if (list.error) return <LoadError error={list.error} />;
  if (!list.data) return <Loading />;
  const passkeys = list.data.results;

  async function add() {
    setBusy(true);
    setError('');
    setNotice('');
    const options = await api.POST('/v1/users/mfa/passkeys/options/');
    if (needsReauth(options.error)) {
      setBusy(false);
      return setRetry(() => add);
    }
    const credential = options.data ? await ceremony(() => startRegistration({ optionsJSON: options.data as PublicKeyCredentialCreationOptionsJSON })) : null;
    if (!credential) {
      setBusy(false);
      return setError(t('mfa.passkeyFailed'));
    }
    const { data } = await api.POST('/v1/users/mfa/passkeys/', { body: { credential: asBody(credential) } });
    setBusy(false);
    if (!data) return setError(t('mfa.passkeyFailed'));
    list.setData({ results: [...passkeys, data.passkey] });
    setNotice(t('mfa.passkeyAdded'));
    if (data.recovery_codes.length) setCodes(data.recovery_codes);
  }
  async function remove(id: string) {
    setBusy(true);
    setError('');
    setNotice('');
    const { error: err, response } = await api.DELETE('/v1/users/mfa/passkeys/{id}/', { params: { path: { id } } });
    setBusy(false);
    if (needsReauth(err)) return setRetry(() => () => remove(id));
    if (response.status !== 204) return setError(response.status === 403 ? t('mfa.requiredHint') : errorText(err, t('app.error')));
    list.setData({ results: passkeys.filter((p) => p.id !== id) });
  }

  if (codes) return <RecoveryCodes codes={codes} onDone={() => setCodes(null)} />;
  if (retry) return <ReauthPrompt onDone={() => (setRetry(null), void retry())} onCancel={() => setRetry(null)} />;
  return (
    <>
      {notice ? <Alert kind="success">{notice}</Alert> : null}
      {error ? <Alert kind="error">{error}</Alert> : null}
      {passkeys.length ? (
        <ul className="passkeys">
          {passkeys.map((p) => (
            <li key={p.id}>
              {p.name} ({new Date(p.created_at).toLocaleDateString()}){' '}
              <button type="button" className="link" onClick={() => remove(p.id)} disabled={busy} aria-label={t('mfa.removePasskey', { name: p.name })}>
                ✕
              </button>
            </li>
          ))}
        </ul>
      ) : (
        <p>{t('mfa.noPasskeys')}</p>
      )}
      <button type="button" onClick={add} disabled={busy}>
        {t('mfa.addPasskey')}
      </button>
    </>
  );
}
