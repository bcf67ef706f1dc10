// The session: the access token (in memory only) and the role flags (routing only; the API enforces
// permissions). The refresh token is never readable here: the API keeps it in an HttpOnly, Secure,
// SameSite=Strict cookie scoped to its refresh path (issue 43; docs/web.md, "Session storage"), which
// it sets because every request of this app sends `X-Session-Cookie: 1` (api/client.ts).
//
// localStorage keeps only what is no secret: the role flags and a random key naming this sign-in, so
// that a reload (or another tab) knows someone is signed in; the first request after it answers 401
// and the client gets a fresh access token from the cookie. A session stored by an older version
// (with both tokens) is read once: its refresh token is spent on the first refresh (which sets the
// cookie), then forgotten; it is never written back.
import { useSyncExternalStore } from 'react';

export interface Session {
  /** The access token: in memory only ('' after a reload, until the cookie refresh). */
  access: string;
  /** Accepted from a sign-in answer but never kept (the cookie holds it); set only for a legacy session. */
  refresh?: string;
  /** A random id of this sign-in (not a secret): what the app keys per-session state on. */
  key?: string;
  is_doctor: boolean;
  is_backoffice_admin: boolean;
  is_marketer: boolean;
  /** The pharmacy desk (absent in a session stored before the role existed). */
  is_pharmacist?: boolean;
}

const KEY = 'pts.session';
const listeners = new Set<() => void>();
let current: Session | null = read();

const newKey = () => (typeof crypto !== 'undefined' && 'randomUUID' in crypto ? crypto.randomUUID() : String(Math.random()).slice(2));

function read(): Session | null {
  try {
    const raw = typeof localStorage !== 'undefined' ? localStorage.getItem(KEY) : null;
    if (!raw) return null;
    const s = JSON.parse(raw) as Partial<Session>;
    const legacy = typeof s.refresh === 'string' && s.refresh ? s.refresh : undefined;
    const session: Session = {
      access: '',
      key: s.key ?? newKey(),
      is_doctor: Boolean(s.is_doctor),
      is_backoffice_admin: Boolean(s.is_backoffice_admin),
      is_marketer: Boolean(s.is_marketer),
      is_pharmacist: Boolean(s.is_pharmacist),
      ...(legacy ? { refresh: legacy } : {}),
    };
    if (legacy || s.access) store(session); // the tokens leave the storage at once
    return session;
  } catch {
    return null;
  }
}

/** What localStorage holds: never a token. */
function store(s: Session | null) {
  try {
    if (s) localStorage.setItem(KEY, JSON.stringify({ key: s.key, is_doctor: s.is_doctor, is_backoffice_admin: s.is_backoffice_admin, is_marketer: s.is_marketer, is_pharmacist: Boolean(s.is_pharmacist) }));
    else localStorage.removeItem(KEY);
  } catch {
    /* private mode: the session lives in memory */
  }
}

function write(s: Session | null) {
  current = s;
  store(s);
  listeners.forEach((l) => l());
}

export const auth = {
  get: () => current,
  /** A new sign-in: the access token in memory, the flags stored; the refresh token is dropped. */
  set: (s: Session) =>
    write({ access: s.access, key: newKey(), is_doctor: s.is_doctor, is_backoffice_admin: s.is_backoffice_admin, is_marketer: s.is_marketer, is_pharmacist: Boolean(s.is_pharmacist) }),
  /** A refreshed access token (the refresh token, if given, is not kept). */
  update: (patch: Partial<Session>) => {
    if (!current) return;
    const { refresh: _drop, ...rest } = { ...current, ...patch };
    void _drop;
    write(rest);
  },
  clear: () => write(null),
  subscribe: (l: () => void) => {
    listeners.add(l);
    return () => listeners.delete(l);
  },
};

if (typeof window !== 'undefined')
  window.addEventListener('storage', (e) => {
    if (e.key === KEY) {
      const next = read();
      // Another tab signed out, or signed in as someone else: this tab follows; its own access token stays otherwise.
      current = next && current && next.key === current.key ? current : next;
      listeners.forEach((l) => l());
    }
  });

export const useSession = () => useSyncExternalStore(auth.subscribe, auth.get, () => null);
