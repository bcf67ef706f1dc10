// The red-flag desk (doctor role, docs/red-flags.md): every open flag a patient's free text raised, in
// the API's order (emergencies first, then the longest waiting), each resolved with what was done.
import { useState, type FormEvent } from 'react';
import { api, errorText, type Schemas } from '../api/client';
import { Alert, LoadError, Loading, PageTitle, TextArea, useLoad } from '../components/ui';
import { useI18n } from '../i18n';
import { Link } from '../router';

type RedFlag = Schemas['RedFlag'];

export function RedFlags() {
  const { t } = useI18n();
  const list = useLoad(() => api.GET('/v1/clinician/red-flags/', { params: { query: { status: 'open', limit: 100 } } }));
  const [done, setDone] = useState('');
  const rows = list.data?.results ?? [];
  return (
    <section>
      <PageTitle>{t('nav.redFlags')}</PageTitle>
      <LoadError error={list.error} />
      {done ? <Alert kind="success">{done}</Alert> : null}
      {list.loading && !list.data ? <Loading /> : null}
      {list.data && !rows.length ? <p>{t('desk.flags.empty')}</p> : null}
      <ul className="list">
        {rows.map((f) => (
          <FlagItem
            key={f.id}
            flag={f}
            onResolved={() => {
              setDone(t('desk.flags.resolved'));
              list.reload();
            }}
          />
        ))}
      </ul>
    </section>
  );
}

function FlagItem({ flag: f, onResolved }: { flag: RedFlag; onResolved: () => void }) {
  const { t, dateTime } = useI18n();
  const [resolution, setResolution] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const name = [f.patient.first_name, f.patient.last_name].filter(Boolean).join(' ') || f.patient.email;
  const headingId = `flag-${f.id}`;
  async function resolve(e: FormEvent) {
    e.preventDefault();
    setError('');
    setBusy(true);
    const r = await api.POST('/v1/clinician/red-flags/{id}/resolve/', { params: { path: { id: f.id } }, body: { resolution: resolution.trim() } });
    setBusy(false);
    if (r.data) onResolved();
    else setError(errorText(r.error, t('app.error')));
  }
  const kindText = t(`desk.flags.kind.${f.kind}` as Parameters<typeof t>[0]);
  const sourceText = t(`desk.flags.source.${f.source}` as Parameters<typeof t>[0]);
  return (
    <li className={f.kind === 'emergency' || f.kind === 'urgent' ? 'urgent card' : 'card'}>
      <article aria-labelledby={headingId}>
        <h2 id={headingId}>
          {name} <span className={f.kind === 'emergency' ? 'badge badge-rejected' : 'badge'}>{kindText}</span>
        </h2>
        <dl className="facts">
          <dt>{t('desk.patient')}</dt>
          <dd>{f.patient.email}</dd>
          <dt>{t('desk.flags.source')}</dt>
          <dd>
            <span>{sourceText}</span>
            {f.source === 'message' && f.source_id ? (
              <>
                {' · '}
                <Link to={`/desk/conversations/${f.source_id}`}>{t('desk.flags.conversation')}</Link>
              </>
            ) : null}
          </dd>
          <dt>{t('desk.flags.raised')}</dt>
          <dd>{dateTime(f.created_at)}</dd>
          {f.due_at ? (
            <>
              <dt>{t('desk.flags.due')}</dt>
              <dd>{dateTime(f.due_at)}</dd>
            </>
          ) : null}
          <dt>{t('desk.flags.categories')}</dt>
          <dd>
            {f.categories.map((c) => (
              <code key={c}>{c} </code>
            ))}
          </dd>
        </dl>
        {f.evidence.length ? (
          <>
            <h3>{t('desk.flags.evidence')}</h3>
            <ul>
              {f.evidence.map((e) => (
                <li key={`${e.category}-${e.by}`}>
                  <code>{e.category}</code> ({t(e.by === 'model' ? 'desk.flags.by.model' : 'desk.flags.by.rule')}): {e.evidence.join(', ')}
                </li>
              ))}
            </ul>
          </>
        ) : null}
        <h3>{t('desk.flags.said')}</h3>
        <blockquote>{f.excerpt}</blockquote>
        <form onSubmit={resolve}>
          {error ? <Alert kind="error">{error}</Alert> : null}
          <TextArea label={t('desk.flags.resolution')} name="resolution" required maxLength={2000} value={resolution} onChange={(e) => setResolution(e.target.value)} />
          <button type="submit" disabled={busy || !resolution.trim()}>
            {t('desk.flags.resolve')}
          </button>
        </form>
      </article>
    </li>
  );
}
