// The notification endpoints, and the browser's side of web push (service worker, PushManager).
import { api } from '../../api/client';
import type { paths } from '../../api/schema';

export const loadPreferences = () => api.GET('/v1/users/notifications/preferences/');
export type Preferences = NonNullable<Awaited<ReturnType<typeof loadPreferences>>['data']>;
export type PreferencesPatch = paths['/v1/users/notifications/preferences/']['patch']['requestBody']['content']['application/json'];
export const savePreferences = (body: PreferencesPatch) =>
  api.PATCH('/v1/users/notifications/preferences/', { body });
export const loadPhone = () => api.GET('/v1/users/notifications/phone/');
export const setPhone = (phone: string) => api.PUT('/v1/users/notifications/phone/', { body: { phone } });
export const verifyPhone = (code: string) => api.POST('/v1/users/notifications/phone/verify/', { body: { code } });

export const pushSupported = () => typeof window !== 'undefined' && 'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window;

const SUBSCRIPTION_ID = 'pts.push-subscription-id';

/** The service worker that shows the pushes (web/public/sw.js). */
const registration = () => navigator.serviceWorker.register('/sw.js');

/** Whether this browser is subscribed. */
export async function currentSubscription(): Promise<PushSubscription | null> {
  if (!pushSupported()) return null;
  const reg = await navigator.serviceWorker.getRegistration('/');
  return (await reg?.pushManager.getSubscription()) ?? null;
}

/** Asks for permission, subscribes with the service's VAPID key and registers the subscription. */
export async function enablePush(): Promise<'on' | 'denied' | 'unsupported' | 'error'> {
  if (!pushSupported()) return 'unsupported';
  if ((await Notification.requestPermission()) !== 'granted') return 'denied';
  const key = await api.GET('/v1/users/notifications/vapid-key/');
  if (!key.data) return 'error';
  const reg = await registration();
  await navigator.serviceWorker.ready;
  const subscription =
    (await reg.pushManager.getSubscription()) ?? (await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: base64UrlBytes(key.data.public_key) }));
  const json = subscription.toJSON();
  const created = await api.POST('/v1/users/notifications/push-subscriptions/', {
    body: { endpoint: subscription.endpoint, keys: { p256dh: json.keys?.p256dh ?? '', auth: json.keys?.auth ?? '' } },
  });
  if (!created.data) return 'error';
  localStorage.setItem(SUBSCRIPTION_ID, created.data.id);
  return 'on';
}

export async function disablePush(): Promise<void> {
  const id = localStorage.getItem(SUBSCRIPTION_ID);
  if (id) await api.DELETE('/v1/users/notifications/push-subscriptions/{id}/', { params: { path: { id } } });
  localStorage.removeItem(SUBSCRIPTION_ID);
  await (await currentSubscription())?.unsubscribe();
}

function base64UrlBytes(value: string): Uint8Array<ArrayBuffer> {
  const b64 = value.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(value.length / 4) * 4, '=');
  const raw = atob(b64);
  const out = new Uint8Array(new ArrayBuffer(raw.length));
  for (let i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
  return out;
}
