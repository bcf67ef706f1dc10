// Browser journey step for notifications (docs/notifications.md), called by journey.ts with a signed-in
// patient's page: the app's service worker (web/public/sw.js) receives a push through the DevTools
// protocol (ServiceWorker.deliverPushMessage: no push service needed), shows it without health
// details, and its tap opens the page it names (/messages).
import type { BrowserContext, Page } from 'playwright-core';
import { fail } from './support';

export async function notificationsStep(context: BrowserContext, page: Page, base: string): Promise<void> {
  await context.grantPermissions(['notifications'], { origin: base });
  await page.goto(`${base}/home`);
  const cdp = await context.newCDPSession(page);
  const registrations = new Map<string, string>();
  cdp.on('ServiceWorker.workerRegistrationUpdated', (e: { registrations: { registrationId: string; scopeURL: string; isDeleted: boolean }[] }) => {
    for (const r of e.registrations) if (!r.isDeleted) registrations.set(r.scopeURL, r.registrationId);
  });
  await cdp.send('ServiceWorker.enable');
  await page.evaluate(async () => {
    await navigator.serviceWorker.register('/sw.js');
    await navigator.serviceWorker.ready;
  });
  const scope = `${base}/`;
  for (let i = 0; i < 50 && !registrations.has(scope); i++) await page.waitForTimeout(100);
  const registrationId = registrations.get(scope) ?? fail('notifications: the service worker did not register');

  const payload = { title: 'New message', body: 'You have a new message from your care team. Sign in to read it.', url: '/messages', tag: 'care_team_message', id: 'journey' };
  await cdp.send('ServiceWorker.deliverPushMessage', { origin: base, registrationId, data: JSON.stringify(payload) });
  let shown: { title: string; body: string; url: string }[] = [];
  for (let i = 0; i < 50 && shown.length === 0; i++) {
    shown = await page.evaluate(async () => {
      const reg = await navigator.serviceWorker.ready;
      return (await reg.getNotifications()).map((n) => ({ title: n.title, body: n.body, url: String((n.data as { url?: string } | null)?.url ?? '') }));
    });
    if (shown.length === 0) await page.waitForTimeout(100);
  }
  const [first] = shown;
  if (!first || first.title !== payload.title || first.body !== payload.body || first.url !== '/messages') fail(`notifications: unexpected notification ${JSON.stringify(shown)}`);

  // Tapping it: the protocol has no Notification domain, so the worker is handed the click event
  // itself (an untrusted event: its waitUntil refuses, the handler's navigation still runs). The
  // page the worker controls follows the notification's link.
  const worker = context.serviceWorkers().find((w) => w.url().endsWith('/sw.js')) ?? (await context.waitForEvent('serviceworker', { timeout: 5000 }));
  await worker.evaluate(async () => {
    const sw = self as unknown as { registration: ServiceWorkerRegistration; dispatchEvent(e: Event): boolean };
    const [notification] = await sw.registration.getNotifications();
    const NotificationEventClass = (self as unknown as { NotificationEvent: new (type: string, init: { notification: Notification }) => Event }).NotificationEvent;
    try {
      sw.dispatchEvent(new NotificationEventClass('notificationclick', { notification: notification! }));
    } catch {
      // waitUntil on an untrusted event throws after the handler started its work.
    }
  });
  await page.waitForURL(`${base}/messages`, { timeout: 10_000 });
  // Leave the browser as the rest of the journey had it: no protocol session listening to workers,
  // no worker controlling the page, no notification permission.
  await cdp.send('ServiceWorker.disable').catch(() => undefined);
  await cdp.detach().catch(() => undefined);
  await page.evaluate(async () => {
    for (const r of await navigator.serviceWorker.getRegistrations()) await r.unregister();
  });
  await context.clearPermissions();
  await page.getByRole('heading', { level: 1 }).first().waitFor();
}
