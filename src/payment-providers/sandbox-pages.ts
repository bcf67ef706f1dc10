// The sandbox provider's hosted checkout page (HTML, outside the API document):
//   GET  /sandbox/checkout/{id}/          line items, amount, a card field, Pay and Decline buttons
//   POST /sandbox/checkout/{id}/pay/      card 4242... (default) pays; 4000 0000 0000 0002 declines
//   POST /sandbox/checkout/{id}/decline/  the patient declines
// Both POSTs answer 303 to the session's success or cancel URL. Paying also finalises the session
// (what a provider webhook does), so the consultation exists when the browser comes back. The
// session's record and its changes go through the checkout module (SandboxCheckoutPort).
import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import type { ZodApp } from '../http/plugin.ts';
import type { Deps } from '../deps.ts';
import { SANDBOX_CARDS } from './sandbox.ts';
import { formPagePolicy, originOf } from '../http/csp.ts';

/** A sandbox checkout session as its page shows it (the checkout_sessions record). */
export interface SandboxPageSession {
  id: string;
  status: string;
  plan: string;
  treatment_id: string;
  treatment_name: string;
  dosage: string;
  amount_cents: number;
  currency: string;
  cycle_days: number | null;
  supply_days: number | null;
  success_url: string | null;
  cancel_url: string | null;
  expires_at: Date;
}

/** What the sandbox page needs from the checkout module. */
export interface SandboxCheckoutPort {
  load(id: string): Promise<SandboxPageSession | null>;
  /** An open session is declined (a declined card or the Decline button). */
  decline(id: string, declineCode: string): Promise<void>;
  /** An open session is paid with this card, then finalised (consultation, payment, plan). */
  pay(id: string, card: { providerPaymentId: string; brand: string; last4: string; fingerprint: string }): Promise<void>;
}

const Params = z.object({ id: z.string() });
const PayBody = z.object({ card_number: z.unknown().optional() }).passthrough().nullish();

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
const money = (c: number, cur: string) => `${(c / 100).toFixed(2)} ${esc(cur)}`;
const ID = /^cs_sandbox_[0-9a-f]{32}$/;

// The page's one inline style, allowed by its hash (src/http/csp.ts): no style attribute, no script.
const STYLE = `body{font-family:system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;color:#222}table{width:100%;border-collapse:collapse}td{padding:.4rem 0;border-bottom:1px solid #ddd}
.total{font-weight:bold}button{font-size:1rem;padding:.6rem 1.2rem;margin-right:.5rem;cursor:pointer}.pay{background:#1a7f37;color:#fff;border:0}.note{color:#666;font-size:.85rem}input{font-size:1rem;padding:.4rem;width:16rem}
.amount{text-align:right}.decline{margin-top:1rem}`;

/** The page's policy: its forms post here and redirect to the session's return pages. */
const policy = (row?: Pick<SandboxPageSession, 'success_url' | 'cancel_url'> | null) => formPagePolicy(STYLE, row ? [originOf(row.success_url), originOf(row.cancel_url)] : []);

function page(title: string, body: string) {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${esc(title)}</title>
<style>${STYLE}</style></head><body>${body}</body></html>`;
}

export function registerSandboxPages(app: ZodApp, deps: Deps, port: SandboxCheckoutPort): void {
  const load = async (id: string) => (ID.test(id) ? port.load(id) : null);
  const expired = (row: SandboxPageSession) => row.expires_at.getTime() <= deps.clock.now().getTime();
  // The return addresses are always set at checkout; '/' only satisfies the type.
  const back = (url: string | null) => url ?? '/';
  const notFoundPage = (reply: FastifyReply) => reply.code(404).type('text/html; charset=utf-8').header('content-security-policy', policy()).send(page('Not found', '<h1>Checkout session not found</h1>'));

  app.get('/sandbox/checkout/:id/', { schema: { hide: true } }, async (request, reply) => {
    const row = await load(Params.parse(request.params).id);
    reply.header('cache-control', 'no-store').header('content-security-policy', policy(row)).type('text/html; charset=utf-8');
    if (!row) return reply.code(404).send(page('Not found', '<h1>Checkout session not found</h1>'));
    if (row.status !== 'open' || expired(row)) {
      const state = row.status === 'open' ? 'expired' : row.status;
      return reply.send(page('Checkout', `<h1>This checkout session is ${esc(state)}</h1><p><a href="${esc(back(row.status === 'paid' ? row.success_url : row.cancel_url))}">Continue</a></p>`));
    }
    const what = row.plan === 'subscription' ? `Treatment plan, billed every ${row.cycle_days} days until cancelled` : `One-off, ${row.supply_days}-day supply`;
    return reply.send(
      page(
        'Sandbox checkout',
        `<h1>Sandbox checkout</h1><p class="note">Test mode: no real card is charged.</p>
<table><tr><td>Medical consultation and treatment: ${esc(row.treatment_name || row.treatment_id)}${row.dosage ? ` ${esc(row.dosage)}` : ''}<br><span class="note">${esc(what)}</span></td><td class="amount">${money(row.amount_cents, row.currency)}</td></tr>
<tr class="total"><td>Total${row.plan === 'subscription' ? ' today' : ''}</td><td class="amount">${money(row.amount_cents, row.currency)}</td></tr></table>
<form method="post" action="pay/"><p><label>Card number<br><input name="card_number" value="4242 4242 4242 4242" autocomplete="off"></label></p>
<p class="note">4242 4242 4242 4242 pays; 4000 0000 0000 0002 is declined; 4000 0000 0000 0341 pays now but later plan charges fail.</p>
<button class="pay" type="submit">Pay ${money(row.amount_cents, row.currency)}</button></form>
<form method="post" action="decline/" class="decline"><button type="submit">Decline</button></form>`,
      ),
    );
  });

  app.post('/sandbox/checkout/:id/pay/', { schema: { hide: true } }, async (request, reply) => {
    const row = await load(Params.parse(request.params).id);
    if (!row) return notFoundPage(reply);
    if (row.status === 'paid') return reply.redirect(back(row.success_url), 303);
    if (row.status !== 'open' || expired(row)) return reply.redirect(back(row.cancel_url), 303);
    const body = PayBody.safeParse(request.body);
    const given = body.success ? body.data?.card_number : undefined;
    const card = (typeof given === 'string' || typeof given === 'number' ? String(given) : '4242424242424242').replace(/\D/g, '') || '4242424242424242';
    const known = SANDBOX_CARDS[card];
    if (!known || known.outcome === 'declined') {
      await port.decline(row.id, known?.declineCode ?? 'card_declined');
      return reply.redirect(back(row.cancel_url), 303);
    }
    await port.pay(row.id, { providerPaymentId: `py_sandbox_${row.id.slice(11)}`, brand: known.brand, last4: card.slice(-4), fingerprint: sandboxCardFingerprint(card) });
    return reply.redirect(back(row.success_url), 303);
  });

  app.post('/sandbox/checkout/:id/decline/', { schema: { hide: true } }, async (request, reply) => {
    const row = await load(Params.parse(request.params).id);
    if (!row) return notFoundPage(reply);
    await port.decline(row.id, 'declined_by_customer');
    return reply.redirect(back(row.status === 'paid' ? row.success_url : row.cancel_url), 303);
  });

  // Default return pages when the client gave no success_url / cancel_url.
  for (const [path, title, text] of [
    ['/checkout/complete/', 'Payment received', 'Thank you. Your payment was received and your consultation is waiting for a doctor. You can close this page and return to the app.'],
    ['/checkout/cancelled/', 'Checkout cancelled', 'The payment was not completed. You can close this page and return to the app to try again.'],
  ] as const) {
    app.get(path, { schema: { hide: true } }, async (_request, reply) => reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').header('content-security-policy', policy()).send(page(title, `<h1>${title}</h1><p>${text}</p>`)));
  }
}

/** Like Stripe's card fingerprint: the same for every use of one (test) card number, and not the number. */
export function sandboxCardFingerprint(cardNumber: string): string {
  return `fp_sandbox_${createHash('sha256').update(cardNumber.replace(/\D/g, '')).digest('hex').slice(0, 24)}`;
}
