// The page a doctor without the app opens a share link on (`/shl#shlink:/…`, docs/interoperability.md):
// the key stays in the fragment (never sent), the manifest is asked with the recipient's name (and
// the passcode when the link has one), and the decrypted FHIR summary is shown section by section.
import { useMemo, useState, type FormEvent } from 'react';
import { Alert, Field } from '../../components/ui';
import { openShlink, parseShlink, summaryOf, type FhirBundle } from './shl';
import { useShareLinkText } from './strings';

export default function ShareLinkViewer() {
  const { s, date } = useShareLinkText();
  const payload = useMemo(() => parseShlink(typeof window === 'undefined' ? '' : window.location.hash), []);
  const [recipient, setRecipient] = useState('');
  const [passcode, setPasscode] = useState('');
  const [message, setMessage] = useState('');
  const [busy, setBusy] = useState(false);
  const [bundle, setBundle] = useState<FhirBundle | null>(null);

  if (!payload) {
    return (
      <main>
        <h1>{s('viewerTitle')}</h1>
        <Alert kind="error">{s('invalid')}</Alert>
      </main>
    );
  }
  const shl = payload;

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setMessage('');
    try {
      const r = await openShlink(shl, recipient.trim(), shl.flag?.includes('P') ? passcode : undefined);
      if (r.kind === 'ok') setBundle(r.bundle);
      else if (r.kind === 'passcode') setMessage(s('wrongPasscode', { n: r.remaining }));
      else if (r.kind === 'gone') setMessage(s('gone'));
      else setMessage(s('error'));
    } catch {
      setMessage(s('error'));
    } finally {
      setBusy(false);
    }
  }

  if (bundle) {
    const summary = summaryOf(bundle);
    const href = URL.createObjectURL(new Blob([JSON.stringify(bundle, null, 2)], { type: 'application/fhir+json' }));
    return (
      <main>
        <h1>{shl.label || s('viewerTitle')}</h1>
        <p>
          {s('patient')}: <strong>{summary.patient}</strong>
          {summary.birthDate ? `, ${s('born', { date: date(summary.birthDate) })}` : ''}
        </p>
        {summary.generated ? <p>{s('generated', { date: date(summary.generated) })}</p> : null}
        {summary.sections.map((sec) => (
          <section key={sec.title} aria-label={sec.title}>
            <h2>{sec.title}</h2>
            {sec.items.length ? (
              <ul>
                {sec.items.map((item, i) => (
                  <li key={i}>{item}</li>
                ))}
              </ul>
            ) : (
              <p>{s('none')}</p>
            )}
          </section>
        ))}
        <p>
          <small>{s('reported')}</small>
        </p>
        <p>
          <a href={href} download="patient-summary.json">
            {s('downloadFhir')}
          </a>
        </p>
      </main>
    );
  }

  return (
    <main>
      <h1>{shl.label || s('viewerTitle')}</h1>
      <p>{s('viewerIntro')}</p>
      {message ? <Alert kind="error">{message}</Alert> : null}
      <form onSubmit={(e) => void submit(e)}>
        <Field label={s('recipient')} value={recipient} onChange={(e) => setRecipient(e.target.value)} required maxLength={200} autoComplete="name" />
        {shl.flag?.includes('P') ? <Field label={s('passcode')} type="password" value={passcode} onChange={(e) => setPasscode(e.target.value)} required autoComplete="off" /> : null}
        <button type="submit" disabled={busy || !recipient.trim()}>
          {s('open')}
        </button>
      </form>
    </main>
  );
}
