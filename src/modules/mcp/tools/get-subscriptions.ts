import * as subs from '../../subscriptions/index.ts';
import * as s from '../schemas.ts';
import { tool, locale } from './tool.ts';

export const getSubscriptionsTool = tool({
  name: 'get_subscriptions',
  title: 'Subscriptions and renewal options',
  description:
    'The patient’s treatment subscriptions and, for each subscribed category (or the given one), what can be done next: confirm a pending renewal, order early, re-order, or why not.',
  scope: 'patient:read',
  input: s.SubscriptionsIn,
  output: s.SubscriptionsOut,
  readOnly: true,
  async run(ctx, args) {
    const { deps, auth } = ctx;
    const list = await subs.listSubscriptions(deps, auth.userId, 100, 0);
    const categories = args.category ? [String(args.category)] : [...new Set(list.results.map((x) => x.category))];
    const renewal_options = [];
    for (const category of categories) {
      const o = await subs.renewalOptions(deps, auth.userId, category, locale(ctx));
      renewal_options.push({
        category: o.category,
        mode: o.mode,
        blocked_code: o.blocked_code,
        pending_consultation_id: o.pending_consultation_id,
        current: o.current ? { treatment_id: o.current.treatment_id, dosage: o.current.dosage } : null,
        next_dosage: o.ladder ? o.ladder.next : null,
        alternatives: o.alternatives,
        price: o.price ? { amount_cents: o.price.amount_cents, currency: o.price.currency, plan: o.price.plan } : null,
      });
    }
    const results = list.results.map((x) => ({
      id: x.id,
      status: x.status,
      category: x.category,
      treatment_id: x.treatment_id,
      dosage: x.dosage,
      price_cents: x.price_cents,
      currency: x.currency,
      cycle_days: x.cycle_days,
      current_period_end: x.current_period_end,
      cancel_at_period_end: x.cancel_at_period_end,
      early_order_locked_until: x.early_order_locked_until,
    }));
    return {
      data: { count: list.count, results, renewal_options },
      text: `${list.count} subscription(s)${results.length ? `: ${results.map((x) => `${x.category} ${x.treatment_id} ${x.dosage} (${x.status})`).join('; ')}` : ''}; renewal options: ${renewal_options.map((o) => `${o.category}: ${o.mode}`).join(', ') || 'none'}.`,
    };
  },
});
