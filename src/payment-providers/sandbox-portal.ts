// The sandbox billing portal (HTML, outside the API document), standing in for Stripe's customer
// portal: the link from the billing-portal endpoint carries a 1-hour HMAC token naming the
// account. It shows the account's plans and lets the patient replace the card (a sandbox test card
// number), cancel at the period end and undo that.
//   GET  /sandbox/portal/{token}/
//   POST /sandbox/portal/{token}/card/    subscription_id, card_number
//   POST /sandbox/portal/{token}/cancel/  subscription_id
//   POST /sandbox/portal/{token}/resume/  subscription_id
// The plans and their changes go through the subscriptions module (SandboxPortalPort).
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import type { ZodApp } from '../http/plugin.ts';
import type { Deps } from '../deps.ts';
import { SANDBOX_CARDS, sandboxPortalAccount } from './sandbox.ts';
import { formPagePolicy } from '../http/csp.ts';

/** A plan as the portal shows it (a subscriptions record). */
export interface PortalPlan {
  id: string;
  category: string;
  treatment_id: string;
  dosage: string;
  price_cents: number;
  currency: string;
  cycle_days: number;
  status: string;
  current_period_end: Date;
  cancel_at_period_end: boolean;
  payment_method_brand: string | null;
  payment_method_last4: string | null;
}

/** What the portal needs from the subscriptions module; every call is scoped to the token's account. */
export interface SandboxPortalPort {
  /** The account's plans that have not ended, newest first. */
  plans(userId: string): Promise<PortalPlan[]>;
  /** A new card on one of the account's plans (a past-due plan is retried at the next run). */
  replaceCard(userId: string, planId: string, card: { brand: string; last4: string }): Promise<void>;
  /** Sets or clears cancel-at-period-end on one of the account's live plans. */
  setCancelAtPeriodEnd(userId: string, planId: string, cancel: boolean): Promise<void>;
}

const Params = z.object({ token: z.string() });
const Query = z.object({ return_url: z.unknown().optional() }).passthrough();
const Body = z.object({ subscription_id: z.unknown().optional(), card_number: z.unknown().optional() }).passthrough().nullish();
const text = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? String(v) : '');

const esc = (s: string | number | boolean | null | undefined) => String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

// The page's one inline style, allowed by its hash (src/http/csp.ts, formPagePolicy).
const STYLE = `body{font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;color:#222}section{border:1px solid #ddd;border-radius:6px;padding:1rem;margin:1rem 0}
button{font-size:1rem;padding:.4rem 1rem;margin:.3rem .3rem 0 0;cursor:pointer}input{font-size:1rem;padding:.3rem;width:14rem}.note{color:#666;font-size:.85rem}`;
const POLICY = formPagePolicy(STYLE);

function page(body: string) {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>Billing (sandbox)</title>
<style>${STYLE}</style></head><body>${body}</body></html>`;
}

export function registerSandboxPortal(app: ZodApp, deps: Deps, port: SandboxPortalPort): void {
  const account = (token: string, query: unknown = {}): { userId: string; returnUrl: string } | null => {
    const userId = sandboxPortalAccount(deps.secrets.jwtKey, deps.clock, token);
    const parsed = Query.safeParse(query);
    const returnUrl = parsed.success ? parsed.data.return_url : undefined;
    const back = typeof returnUrl === 'string' && returnUrl.startsWith(deps.config.PUBLIC_BASE_URL) ? returnUrl : '';
    return userId ? { userId, returnUrl: back } : null;
  };
  const gone = (reply: FastifyReply) => reply.code(404).type('text/html; charset=utf-8').header('cache-control', 'no-store').header('content-security-policy', POLICY).send(page('<h1>Link expired</h1><p>Open the billing portal again from the app.</p>'));

  app.get('/sandbox/portal/:token/', { schema: { hide: true } }, async (request, reply) => {
    const { token } = Params.parse(request.params);
    const who = account(token, request.query);
    if (!who) return gone(reply);
    const subs = await port.plans(who.userId);
    const base = `/sandbox/portal/${esc(token)}`;
    const sections = subs
      .map(
        (s) => `<section><h2>${esc(s.category)}: ${esc(s.treatment_id)} ${esc(s.dosage)}</h2>
<p>${(s.price_cents / 100).toFixed(2)} ${esc(s.currency)} every ${esc(s.cycle_days)} days &middot; status <b>${esc(s.status)}</b> &middot; next renewal ${esc(new Date(s.current_period_end).toISOString().slice(0, 10))}${s.cancel_at_period_end ? ' (ends then)' : ''}</p>
<p>Card: ${esc(s.payment_method_brand ?? 'card')} ending ${esc(s.payment_method_last4 ?? '----')}</p>
<form method="post" action="${base}/card/"><input type="hidden" name="subscription_id" value="${esc(s.id)}"><input name="card_number" placeholder="4242 4242 4242 4242" autocomplete="off"><button>Replace card</button></form>
<form method="post" action="${base}/${s.cancel_at_period_end ? 'resume' : 'cancel'}/"><input type="hidden" name="subscription_id" value="${esc(s.id)}"><button>${s.cancel_at_period_end ? 'Keep my plan' : 'Cancel at period end'}</button></form></section>`,
      )
      .join('');
    reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').header('content-security-policy', POLICY);
    return page(`<h1>Billing (sandbox)</h1>${sections || '<p>No active plan.</p>'}<p class="note">Sandbox: use a test card number from docs/billing.md. ${who.returnUrl ? `<a href="${esc(who.returnUrl)}">Back</a>` : ''}</p>`);
  });

  const action = (name: 'card' | 'cancel' | 'resume') =>
    app.post(`/sandbox/portal/:token/${name}/`, { schema: { hide: true } }, async (request, reply) => {
      const { token } = Params.parse(request.params);
      const who = account(token);
      if (!who) return gone(reply);
      const parsed = Body.safeParse(request.body);
      const body = parsed.success ? (parsed.data ?? {}) : {};
      const id = text(body.subscription_id);
      if (!/^[0-9a-f-]{36}$/i.test(id)) return gone(reply);
      if (name === 'card') {
        const number = text(body.card_number).replace(/\D/g, '');
        const card = SANDBOX_CARDS[number];
        if (card && card.outcome !== 'declined') await port.replaceCard(who.userId, id, { brand: card.brand, last4: number.slice(-4) });
      } else {
        await port.setCancelAtPeriodEnd(who.userId, id, name === 'cancel');
      }
      return reply.code(303).header('location', `/sandbox/portal/${token}/`).send();
    });
  action('card');
  action('cancel');
  action('resume');
}
