// The patient's conversation with the medical team: messages, attachments, emergency wording notice.
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { api, authFetch, download, errorText } from '../api/client';
import { useEmergency, type EmergencyNotice } from '../components/Emergency';
import { Alert, LoadError, Loading, PageTitle, TextArea, useLoad } from '../components/ui';
import { useI18n } from '../i18n';

type Msg = { id: string; sender_type: 'USER' | 'DOCTOR'; content: string; file: string | null; created_at: string };

/** The file name of a download answer (Content-Disposition, RFC 6266 filename* first). */
export function dispositionName(header: string | null): string | null {
  if (!header) return null;
  const star = /filename\*\s*=\s*(?:UTF-8|utf-8)''([^;]+)/.exec(header)?.[1];
  if (star) {
    try {
      return decodeURIComponent(star.trim());
    } catch {
      /* fall through to the plain name */
    }
  }
  return /filename\s*=\s*"?([^";]+)"?/.exec(header)?.[1]?.trim() ?? null;
}

/**
 * An attachment with its name and, for an image, a preview. The file is read once with the session
 * (the service answers HEAD without it, so the name comes with the file); the download button then
 * saves that copy.
 */
function Attachment({ path }: { path: string }) {
  const { t } = useI18n();
  const [file, setFile] = useState<{ name: string | null; blob: Blob; preview: string | null } | null>(null);
  useEffect(() => {
    let live = true;
    let url: string | null = null;
    void (async () => {
      const r = await authFetch(path).catch(() => null);
      if (!live || !r?.ok) return;
      const blob = await r.blob();
      const type = r.headers.get('content-type') ?? blob.type;
      if (/^image\/(png|jpeg|gif|webp)/i.test(type)) url = URL.createObjectURL(blob);
      if (live) setFile({ name: dispositionName(r.headers.get('content-disposition')), blob, preview: url });
    })();
    return () => {
      live = false;
      if (url) URL.revokeObjectURL(url);
    };
  }, [path]);
  const name = file?.name ?? null;
  function save() {
    if (!file) return void download(path, 'attachment');
    const url = URL.createObjectURL(file.blob);
    const a = document.createElement('a');
    a.href = url;
    a.download = file.name ?? 'attachment';
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }
  return (
    <div className="attachment" data-testid="attachment">
      {file?.preview ? <img src={file.preview} alt={t('messages.preview', { name: name ?? t('messages.file') })} /> : null}
      <button type="button" className="link" onClick={save}>
        {t('messages.downloadFile', { name: name ?? '' }).replace(/\s+/g, ' ').trim()}
      </button>
    </div>
  );
}

export function MessageList({ messages, mine, filePath }: { messages: Msg[]; mine: 'USER' | 'DOCTOR'; filePath: (m: Msg) => string }) {
  const { t, dateTime } = useI18n();
  if (!messages.length) return <p>{t('messages.empty')}</p>;
  return (
    <ol className="messages" aria-label={t('messages.title')}>
      {messages.map((m) => (
        <li key={m.id} className={m.sender_type === mine ? 'mine' : 'theirs'}>
          <p className="meta">
            {m.sender_type === 'USER' ? (mine === 'USER' ? t('messages.you') : t('desk.patient')) : t('messages.team')} · <time dateTime={m.created_at}>{dateTime(m.created_at)}</time>
          </p>
          {m.content ? <p className="content">{m.content}</p> : null}
          {m.file ? <Attachment path={filePath(m)} /> : null}
        </li>
      ))}
    </ol>
  );
}

/** A conversation's messages; reading marks the team's messages read, so the unread badge refreshes. */
async function fetchMessages(id: string): Promise<Msg[] | undefined> {
  const { data } = await api.GET('/v1/users/conversations/{id}/messages/', { params: { path: { id } } });
  window.dispatchEvent(new Event('pts:unread'));
  return data ? (data as Msg[]) : undefined;
}

export function Messages() {
  const { t } = useI18n();
  const showEmergency = useEmergency();
  const convs = useLoad(() => api.GET('/v1/users/conversations/'));
  const conv = convs.data?.results[0];
  const [messages, setMessages] = useState<Msg[] | null>(null);
  const [content, setContent] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const fileRef = useRef<HTMLInputElement>(null);

  const load = async (id: string) => {
    const data = await fetchMessages(id);
    if (data) setMessages(data);
  };
  const convId = conv?.id;
  useEffect(() => {
    if (convId) void fetchMessages(convId).then((data) => data && setMessages(data));
  }, [convId]);

  async function send(e: FormEvent) {
    e.preventDefault();
    if (!conv) return;
    const file = fileRef.current?.files?.[0];
    if (!content.trim() && !file) return;
    setBusy(true);
    setError('');
    // What is sent now: anything typed while it sends stays in the box afterwards.
    const sent = content;
    let body: unknown;
    let ok = false;
    if (file) {
      const fd = new FormData();
      if (sent.trim()) fd.append('content', sent);
      fd.append('file', file);
      const r = await authFetch(`/v1/users/conversations/${conv.id}/messages/`, { method: 'POST', body: fd });
      body = await r.json().catch(() => ({}));
      ok = r.ok;
    } else {
      const r = await api.POST('/v1/users/conversations/{id}/messages/', { params: { path: { id: conv.id } }, body: { content: sent } });
      body = r.data ?? r.error;
      ok = Boolean(r.data);
    }
    setBusy(false);
    if (!ok) {
      setError(errorText(body, t('app.error')));
      return;
    }
    setContent((now) => (now.startsWith(sent) ? now.slice(sent.length).replace(/^\s+/, '') : now));
    if (fileRef.current) fileRef.current.value = '';
    await load(conv.id);
    // The service's EmergencyNotice (one typed shape for every emergency answer): numbers and all.
    const notice = (body as { emergency?: EmergencyNotice | null } | undefined)?.emergency;
    if (notice) showEmergency(notice);
  }

  return (
    <section>
      <PageTitle>{t('messages.title')}</PageTitle>
      <p>{t('messages.intro')}</p>
      <LoadError error={convs.error} />
      {!messages && !convs.error ? <Loading /> : null}
      {messages && conv ? <MessageList messages={messages} mine="USER" filePath={(m) => `/v1/users/conversations/${conv.id}/messages/${m.id}/file/`} /> : null}
      <form onSubmit={send} className="compose">
        {error ? <Alert kind="error">{error}</Alert> : null}
        <TextArea label={t('messages.message')} name="content" maxLength={5000} value={content} onChange={(e) => setContent(e.target.value)} />
        <div className="field">
          <label htmlFor="message-file">{t('messages.attach')}</label>
          <input id="message-file" ref={fileRef} type="file" name="file" accept="application/pdf,image/jpeg,image/png,image/heic" />
        </div>
        <button type="submit" disabled={busy || !conv}>
          {t('messages.send')}
        </button>
      </form>
    </section>
  );
}
