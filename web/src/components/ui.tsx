// Small building blocks: labelled fields, alerts, data loading.
import { useCallback, useEffect, useEffectEvent, useId, useRef, useState, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes, type TextareaHTMLAttributes } from 'react';
import { useI18n } from '../i18n';

type Base = { label: string; error?: string; hint?: string };

function describe(id: string, error?: string, hint?: string) {
  return [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
}

function Extras({ id, error, hint }: { id: string; error?: string; hint?: string }) {
  return (
    <>
      {hint ? (
        <p className="hint" id={`${id}-hint`}>
          {hint}
        </p>
      ) : null}
      {error ? (
        <p className="field-error" id={`${id}-error`} role="alert">
          {error}
        </p>
      ) : null}
    </>
  );
}

export function Field({ label, error, hint, ...rest }: Base & InputHTMLAttributes<HTMLInputElement>) {
  const auto = useId();
  const id = rest.id ?? auto;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input {...rest} id={id} aria-invalid={error ? true : undefined} aria-describedby={describe(id, error, hint)} />
      <Extras id={id} error={error} hint={hint} />
    </div>
  );
}

export function TextArea({ label, error, hint, ...rest }: Base & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  const auto = useId();
  const id = rest.id ?? auto;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <textarea rows={3} {...rest} id={id} aria-invalid={error ? true : undefined} aria-describedby={describe(id, error, hint)} />
      <Extras id={id} error={error} hint={hint} />
    </div>
  );
}

export function Select({ label, error, hint, options, placeholder, ...rest }: Base & SelectHTMLAttributes<HTMLSelectElement> & { options: { value: string; label: string }[]; placeholder?: string }) {
  const auto = useId();
  const id = rest.id ?? auto;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select {...rest} id={id} aria-invalid={error ? true : undefined} aria-describedby={describe(id, error, hint)}>
        {placeholder !== undefined ? <option value="">{placeholder}</option> : null}
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      <Extras id={id} error={error} hint={hint} />
    </div>
  );
}

export function Alert({ kind = 'info', children }: { kind?: 'info' | 'error' | 'success'; children: ReactNode }) {
  return (
    <div className={`alert alert-${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      {children}
    </div>
  );
}

export function Loading() {
  const { t } = useI18n();
  return (
    <p className="loading" role="status">
      {t('app.loading')}
    </p>
  );
}

/** The page title: the document title follows it and focus moves to it after navigation. */
export function PageTitle({ children }: { children: string }) {
  const { t } = useI18n();
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${children} · ${document.documentElement.dataset.brand ?? t('app.name')}`;
  }, [children, t]);
  // Focus moves on navigation (a new title), not when only the language changes.
  useEffect(() => {
    ref.current?.focus({ preventScroll: true });
  }, [children]);
  return (
    <h1 ref={ref} tabIndex={-1}>
      {children}
    </h1>
  );
}

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
  setData: (d: T) => void;
}

/** Loads data with the API client: `fn` returns {data, error} (openapi-fetch) or throws. */
export function useLoad<T>(fn: () => Promise<{ data?: T; error?: unknown }>, deps: unknown[] = []): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  const reload = useCallback(() => {
    setState((s) => ({ ...s, loading: true }));
    setTick((n) => n + 1);
  }, []);
  // New `deps` start a new load: noticed while rendering (React's "adjusting some state when a prop
  // changes"), so the effect below has a fixed dependency list and sets no state synchronously.
  const [seen, setSeen] = useState({ deps, version: 0 });
  let version = seen.version;
  if (deps.length !== seen.deps.length || deps.some((d, i) => !Object.is(d, seen.deps[i]))) {
    version = seen.version + 1;
    setSeen({ deps, version });
    setState((s) => ({ ...s, loading: true }));
  }
  // The latest `fn` (it closes over the current deps), read by the effect without being a dependency.
  const load = useEffectEvent(fn);
  useEffect(() => {
    let live = true;
    load()
      .then((r) => live && setState({ data: r.data, error: r.error, loading: false }))
      .catch((error: unknown) => live && setState({ error, loading: false }));
    return () => {
      live = false;
    };
  }, [version, tick]);
  return { data: state.data, error: state.error, loading: state.loading, reload, setData: (d: T) => setState({ data: d, loading: false }) };
}

export function LoadError({ error }: { error: unknown }) {
  const { t } = useI18n();
  if (!error) return null;
  return <Alert kind="error">{t('app.error')}</Alert>;
}

export function StatusBadge({ status }: { status: string }) {
  const { t } = useI18n();
  const key = `status.${status}` as Parameters<typeof t>[0];
  const text = t(key);
  return <span className={`badge badge-${status}`}>{text === key ? status.replace(/_/g, ' ') : text}</span>;
}
