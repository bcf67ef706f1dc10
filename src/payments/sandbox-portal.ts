// The sandbox billing portal (HTML, outside the API document), standing in for Stripe's customer
// portal: the link from the billing-portal endpoint carries a 1-hour HMAC token naming the
// account. It shows the account's plans and lets the patient replace the card (a sandbox test card
// number), cancel at the period end and undo that.
//   GET  /sandbox/portal/{token}/
//   POST /sandbox/portal/{token}/card/    subscription_id, card_number
//   POST /sandbox/portal/{token}/cancel/  subscription_id
//   POST /sandbox/portal/{token}/resume/  subscription_id
import type { ZodApp } from '../http/plugin.ts';
import type { Deps } from '../deps.ts';
import { SANDBOX_CARDS, sandboxPortalAccount } from './sandbox.ts';

const esc = (s: unknown) => String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function page(body: string) {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>Billing (sandbox)</title>
<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;color:#222}section{border:1px solid #ddd;border-radius:6px;padding:1rem;margin:1rem 0}
button{font-size:1rem;padding:.4rem 1rem;margin:.3rem .3rem 0 0;cursor:pointer}input{font-size:1rem;padding:.3rem;width:14rem}.note{color:#666;font-size:.85rem}</style></head><body>${body}</body></html>`;
}

export function registerSandboxPortal(app: ZodApp, deps: Deps) {
  const account = async (token: string, query: Record<string, unknown> = {}): Promise<{ userId: string; returnUrl: string } | null> => {
    const userId = sandboxPortalAccount(deps.secrets.jwtKey, deps.clock, token);
    const back = typeof query.return_url === 'string' && query.return_url.startsWith(deps.config.PUBLIC_BASE_URL) ? query.return_url : '';
    return userId ? { userId, returnUrl: back } : null;
  };
  const gone = (reply: any) => reply.code(404).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(page('<h1>Link expired</h1><p>Open the billing portal again from the app.</p>'));

  app.get('/sandbox/portal/:token/', { schema: { hide: true } }, async (request: any, reply) => {
    const who = await account(request.params.token, request.query);
    if (!who) return gone(reply);
    const subs = await deps.db.query("select * from subscriptions where user_id = $1 and status <> 'canceled' order by created_at desc", [who.userId]);
    const base = `/sandbox/portal/${esc(request.params.token)}`;
    const sections = subs
      .map(
        (s) => `<section><h2>${esc(s.category)}: ${esc(s.treatment_id)} ${esc(s.dosage)}</h2>
<p>${(s.price_cents / 100).toFixed(2)} ${esc(s.currency)} every ${esc(s.cycle_days)} days &middot; status <b>${esc(s.status)}</b> &middot; next renewal ${esc(new Date(s.current_period_end).toISOString().slice(0, 10))}${s.cancel_at_period_end ? ' (ends then)' : ''}</p>
<p>Card: ${esc(s.payment_method_brand ?? 'card')} ending ${esc(s.payment_method_last4 ?? '----')}</p>
<form method="post" action="${base}/card/"><input type="hidden" name="subscription_id" value="${esc(s.id)}"><input name="card_number" placeholder="4242 4242 4242 4242" autocomplete="off"><button>Replace card</button></form>
<form method="post" action="${base}/${s.cancel_at_period_end ? 'resume' : 'cancel'}/"><input type="hidden" name="subscription_id" value="${esc(s.id)}"><button>${s.cancel_at_period_end ? 'Keep my plan' : 'Cancel at period end'}</button></form></section>`,
      )
      .join('');
    reply.type('text/html; charset=utf-8').header('cache-control', 'no-store');
    return page(`<h1>Billing (sandbox)</h1>${sections || '<p>No active plan.</p>'}<p class="note">Sandbox: use a test card number from docs/billing.md. ${who.returnUrl ? `<a href="${esc(who.returnUrl)}">Back</a>` : ''}</p>`);
  });

  const action = (name: 'card' | 'cancel' | 'resume') =>
    app.post(`/sandbox/portal/:token/${name}/`, { schema: { hide: true } }, async (request: any, reply) => {
      const who = await account(request.params.token);
      if (!who) return gone(reply);
      const body = (request.body ?? {}) as Record<string, string>;
      const id = String(body.subscription_id ?? '');
      if (!/^[0-9a-f-]{36}$/i.test(id)) return gone(reply);
      if (name === 'card') {
        const number = String(body.card_number ?? '').replace(/\D/g, '');
        const card = SANDBOX_CARDS[number];
        if (card && card.outcome !== 'declined') {
          // A past-due plan is retried at the next scheduler run with the new card.
          await deps.db.query(
            `update subscriptions set payment_method_brand = $3, payment_method_last4 = $4,
               next_charge_attempt_at = case when status = 'past_due' then $5 else next_charge_attempt_at end, updated_at = now()
             where id = $1 and user_id = $2`,
            [id, who.userId, card.brand, number.slice(-4), deps.clock.now()],
          );
        }
      } else {
        await deps.db.query("update subscriptions set cancel_at_period_end = $3, updated_at = now() where id = $1 and user_id = $2 and status <> 'canceled'", [
          id,
          who.userId,
          name === 'cancel',
        ]);
      }
      return reply.code(303).header('location', `/sandbox/portal/${request.params.token}/`).send();
    });
  action('card');
  action('cancel');
  action('resume');
}
