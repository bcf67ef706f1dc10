// What other modules may use of notifications: `notify(q, {kind, userId, key})`, called inside their
// own transaction where they already mail (docs/notifications.md), and the account's notification
// data for the privacy module's export and erasure. Only this module writes its four tables.
export { notify, type NotificationEvent } from './service.ts';
export type { EventKind } from './events.ts';
export { notificationsOfAccount, eraseAccountNotifications } from './service.ts';
