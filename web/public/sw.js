// The web app's service worker: shows the service's push notifications and opens the page a
// notification names when it is tapped. The payload ({title, body, url, tag, id}) carries no health
// details (docs/notifications.md); the content is behind sign-in.
/* global self, URL */
self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

self.addEventListener('push', (event) => {
  let data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch {
    data = {};
  }
  const title = typeof data.title === 'string' ? data.title : 'Notification';
  // Only paths of this app: a payload cannot send the patient elsewhere.
  const url = typeof data.url === 'string' && /^\/[A-Za-z0-9/_?=&.-]*$/.test(data.url) ? data.url : '/home';
  event.waitUntil(
    self.registration.showNotification(title, {
      body: typeof data.body === 'string' ? data.body : '',
      tag: typeof data.tag === 'string' ? data.tag : undefined,
      icon: '/favicon.svg',
      data: { url },
    }),
  );
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const target = new URL(event.notification.data && event.notification.data.url ? event.notification.data.url : '/home', self.location.origin).href;
  event.waitUntil(
    (async () => {
      const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
      for (const client of windows) {
        if (new URL(client.url).origin === self.location.origin && 'navigate' in client) {
          // Focusing can be refused (no user activation); the page still follows the notification.
          await client.focus().catch(() => undefined);
          return client.navigate(target);
        }
      }
      return self.clients.openWindow(target);
    })(),
  );
});
