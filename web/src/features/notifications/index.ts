// Notifications in the web app: settings on the account page, the journal's reminder offer.
export { NotificationSettings, InjectionReminderOffer } from './NotificationSettings';
