// POST /v1/webhooks/identity/{provider}/: a vendor's decision. The signature is verified on the RAW
// body (a content-type parser scoped to this plugin keeps the bytes), the event is mapped to this
// service's terms (IdentityEvent) and handed to the verification module, which records the event id
// with its effect in one transaction, so a redelivered or replayed event changes nothing.
import { z } from 'zod';
import type { Deps } from '../deps.ts';
import { DetailCodeSchema, fail } from '../http/errors.ts';
import type { ZodApp } from '../http/plugin.ts';
import { veriffSettings } from './index.ts';
import type { IdentityWebhookPort } from './types.ts';
import { verifyVeriffWebhook } from './veriff.ts';

const header = (v: string | string[] | undefined) => (typeof v === 'string' ? v : undefined);

export function registerIdentityWebhook(app: ZodApp, deps: Deps, port: IdentityWebhookPort): void {
  void app.register((scope) => {
    scope.removeContentTypeParser(['application/json', 'text/plain']);
    scope.addContentTypeParser(['application/json', 'text/plain', 'application/octet-stream'], { parseAs: 'buffer', bodyLimit: 1024 * 1024 }, (_req, body, done) => done(null, body));
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 1024 * 1024 }, (_req, body, done) => done(null, body));
    scope.post(
      '/v1/webhooks/identity/:provider/',
      {
        config: {
          access: 'public',
          operation: {
            id: 'receiveIdentityWebhook',
            rawBody: true,
            errors: { 400: [{ detail_code: ['invalid_signature', 'stale_webhook'] }], 404: [{ detail_code: ['not_found'] }] },
            descriptions: { 200: 'The event was recorded (or had been: `duplicate`)', 404: 'Not the configured identity provider' },
          },
        },
        schema: {
          tags: ['verification'],
          summary: 'Identity provider webhook',
          description:
            'A document + liveness vendor’s decision (provider `veriff`: its decision webhook). The X-HMAC-SIGNATURE header must be the hex HMAC-SHA256 of the raw body with IDENTITY_VERIFF_SHARED_SECRET and X-AUTH-CLIENT the integration’s API key (checked in constant time), else 400 invalid_signature; a decision time further than IDENTITY_WEBHOOK_TOLERANCE_SECONDS from now is 400 stale_webhook. Each event id is processed once (a redelivery answers 200 with duplicate true). An approved document whose name or birth date differs from the profile goes to the desk (needs_review), never a silent pass. See docs/verification.md.',
          security: [],
          params: z.object({ provider: z.string().max(32) }),
          response: { 200: z.object({ received: z.literal(true), duplicate: z.boolean() }), 400: DetailCodeSchema, 404: DetailCodeSchema },
        },
      },
      async (request) => {
        const { provider } = request.params as { provider: string };
        const settings = veriffSettings(deps.config);
        if (provider !== 'veriff' || deps.config.IDENTITY_PROVIDER !== 'veriff' || !settings) throw fail('not_found');
        const raw = request.body;
        if (!Buffer.isBuffer(raw)) throw fail('invalid_signature', { message: 'Missing signature headers or body.' });
        const checked = verifyVeriffWebhook(settings, deps.clock, raw, { authClient: header(request.headers['x-auth-client']), signature: header(request.headers['x-hmac-signature']) });
        if (!checked.ok) {
          if (checked.reason === 'stale') throw fail('stale_webhook');
          throw fail('invalid_signature', { message: 'The webhook signature does not verify.' });
        }
        const duplicate = checked.event ? await port.receive('veriff', checked.event) : false;
        return { received: true as const, duplicate };
      },
    );
    return Promise.resolve();
  });
}
