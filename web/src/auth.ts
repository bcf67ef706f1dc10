// The session: the token pair and the role flags (routing only; the API enforces permissions).
import { useSyncExternalStore } from 'react';

export interface Session {
  access: string;
  refresh: string;
  is_doctor: boolean;
  is_backoffice_admin: boolean;
  is_marketer: boolean;
  /** The pharmacy desk (absent in a session stored before the role existed). */
  is_pharmacist?: boolean;
}

const KEY = 'pts.session';
const listeners = new Set<() => void>();
let current: Session | null = read();

function read(): Session | null {
  try {
    const raw = typeof localStorage !== 'undefined' ? localStorage.getItem(KEY) : null;
    return raw ? (JSON.parse(raw) as Session) : null;
  } catch {
    return null;
  }
}

function write(s: Session | null) {
  current = s;
  try {
    if (s) localStorage.setItem(KEY, JSON.stringify(s));
    else localStorage.removeItem(KEY);
  } catch {
    /* private mode: the session lives in memory */
  }
  listeners.forEach((l) => l());
}

export const auth = {
  get: () => current,
  set: (s: Session) => write({ access: s.access, refresh: s.refresh, is_doctor: s.is_doctor, is_backoffice_admin: s.is_backoffice_admin, is_marketer: s.is_marketer, is_pharmacist: Boolean(s.is_pharmacist) }),
  update: (patch: Partial<Session>) => current && write({ ...current, ...patch }),
  clear: () => write(null),
  subscribe: (l: () => void) => {
    listeners.add(l);
    return () => listeners.delete(l);
  },
};

if (typeof window !== 'undefined')
  window.addEventListener('storage', (e) => {
    if (e.key === KEY) {
      current = read();
      listeners.forEach((l) => l());
    }
  });

export const useSession = () => useSyncExternalStore(auth.subscribe, auth.get, () => null);
