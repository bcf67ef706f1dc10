// Notification endpoints (docs/notifications.md) and the dispatcher's and the reminders' jobs.
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ModuleOptions, ZodApp } from '../../http/plugin.ts';
import { bearerSecurity, currentUser } from '../../http/auth.ts';
import { DetailCodeSchema, DetailSchema, FieldErrorsSchema, UnauthorisedResponses } from '../../http/errors.ts';
import { fields, notFoundDetail } from '../../http/operation.ts';
import { CreatedIdSchema, IdParams, PhonePut, PhoneSchema, PhoneVerify, PreferencesPatch, PreferencesSchema, PushSubscriptionCreate, VapidKeySchema } from './schemas.ts';
import * as notifications from './service.ts';

const BASE = '/v1/users/notifications';

export default function notificationsModule(app: ZodApp, { deps }: ModuleOptions): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const common = { tags: ['notifications'], security: bearerSecurity };
  const uid = (request: Parameters<typeof currentUser>[0]) => currentUser(request).id;

  // The outbox is sent by the scheduler's pass (every SCHEDULER_INTERVAL_MS on the embedded
  // database, each minute through pg-boss on PostgreSQL), after the due reminders are raised.
  deps.scheduler.register('notifications.reminders', async () => {
    await notifications.raiseDueReminders(deps);
  });
  deps.scheduler.register('notifications.dispatch', async () => {
    await notifications.dispatchDue(deps);
  });

  r.get(
    `${BASE}/preferences/`,
    { config: { operation: { id: 'getNotificationPreferences', descriptions: { 200: 'The preferences (defaults where never changed)' } } }, schema: { ...common, summary: 'Which channels each event uses, and the quiet hours', response: { 200: PreferencesSchema, ...UnauthorisedResponses } } },
    async (request) => notifications.getPreferences(deps, uid(request)),
  );
  r.patch(
    `${BASE}/preferences/`,
    {
      config: { operation: { id: 'updateNotificationPreferences', errors: { 400: [fields] }, descriptions: { 200: 'The preferences as stored' }, requestExample: { events: { care_team_message: { sms: true } }, quiet_hours: { start: '22:00', end: '07:00' } } } },
      schema: { ...common, summary: 'Turn channels on or off per event, set or clear the quiet hours (omitted fields are kept)', body: PreferencesPatch, response: { 200: PreferencesSchema, 400: FieldErrorsSchema, ...UnauthorisedResponses } },
    },
    async (request) => notifications.patchPreferences(deps, uid(request), request.body),
  );

  r.get(
    `${BASE}/vapid-key/`,
    { config: { operation: { id: 'getVapidKey', descriptions: { 200: 'The VAPID public key' } } }, schema: { ...common, summary: 'The application server key a browser subscribes with', response: { 200: VapidKeySchema, ...UnauthorisedResponses } } },
    async () => notifications.vapidPublicKey(deps),
  );
  r.post(
    `${BASE}/push-subscriptions/`,
    {
      config: {
        operation: {
          id: 'createPushSubscription',
          errors: { 400: [fields] },
          descriptions: { 201: 'Subscribed (a browser subscribing again keeps its id)' },
          requestExample: { endpoint: 'https://fcm.googleapis.com/fcm/send/c1KrmpTuRm0:APA91bG', keys: { p256dh: 'BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM', auth: 'tBHItJI5svbpez7KI4CCXg' } },
        },
      },
      schema: { ...common, summary: 'Subscribe this browser to web push (its PushSubscription JSON); only the browser vendors’ push services are accepted', body: PushSubscriptionCreate, response: { 201: CreatedIdSchema, 400: FieldErrorsSchema, ...UnauthorisedResponses } },
    },
    async (request, reply) => reply.code(201).send(await notifications.addSubscription(deps, uid(request), request.body)),
  );
  r.delete(
    `${BASE}/push-subscriptions/:id/`,
    { config: { operation: { id: 'deletePushSubscription', errors: { 404: [notFoundDetail] }, descriptions: { 204: 'Unsubscribed' } } }, schema: { ...common, summary: 'Unsubscribe a browser (204)', params: IdParams, response: { 204: z.null(), 404: DetailSchema, ...UnauthorisedResponses } } },
    async (request, reply) => {
      await notifications.removeSubscription(deps, uid(request), request.params.id);
      return reply.code(204).send(null);
    },
  );

  r.get(
    `${BASE}/phone/`,
    { config: { operation: { id: 'getNotificationPhone', descriptions: { 200: 'The phone for SMS' } } }, schema: { ...common, summary: 'The phone number SMS go to, and whether it is verified', response: { 200: PhoneSchema, ...UnauthorisedResponses } } },
    async (request) => notifications.getPhone(deps, uid(request)),
  );
  r.put(
    `${BASE}/phone/`,
    {
      config: { operation: { id: 'setNotificationPhone', errors: { 400: [fields], 429: [{ detail_code: ['throttled'] }] }, descriptions: { 202: 'Stored unverified; a code was texted to it' }, requestExample: { phone: '+49 151 23456789' } } },
      schema: { ...common, summary: 'Set the phone for SMS (stored in E.164); a 6-digit code is texted to it, valid 10 minutes (one a minute)', body: PhonePut, response: { 202: PhoneSchema, 400: FieldErrorsSchema, 429: DetailCodeSchema, ...UnauthorisedResponses } },
    },
    async (request, reply) => reply.code(202).send(await notifications.setPhone(deps, uid(request), request.body)),
  );
  r.post(
    `${BASE}/phone/verify/`,
    {
      config: { operation: { id: 'verifyNotificationPhone', errors: { 400: [fields], 404: [notFoundDetail] }, descriptions: { 200: 'Verified' }, requestExample: { code: '123456' } } },
      schema: { ...common, summary: 'Verify the phone with the texted code (5 tries per code)', body: PhoneVerify, response: { 200: PhoneSchema, 400: FieldErrorsSchema, 404: DetailSchema, ...UnauthorisedResponses } },
    },
    async (request) => notifications.verifyPhone(deps, uid(request), request.body.code),
  );
  r.delete(
    `${BASE}/phone/`,
    { config: { operation: { id: 'deleteNotificationPhone', descriptions: { 204: 'Removed (or there was none)' } } }, schema: { ...common, summary: 'Remove the phone (no more SMS) (204)', response: { 204: z.null(), ...UnauthorisedResponses } } },
    async (request, reply) => {
      await notifications.removePhone(deps, uid(request));
      return reply.code(204).send(null);
    },
  );
  return Promise.resolve();
}
