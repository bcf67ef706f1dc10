// A catalogue price change reaches a running plan only after a notice (docs/compliance.md): the
// sweep mails the patient at least PRICE_CHANGE_NOTICE_DAYS before the first charge at the new
// price, with the cancel link; the recurring charge applies the new price only for a period that
// starts on or after the noticed date. A plan never noticed is charged its own (old) price. A plan
// the provider bills itself (Stripe) gets the same notice; the new price is set on the provider's
// subscription only once its last period at the old price is running, without proration.
import type { Queryable } from '../../db/index.ts';
import type { Deps } from '../../deps.ts';
import { isLocale, type Locale } from '../../lib/locales.ts';
import { appLinks } from '../../mail/links.ts';
import { enqueueMail, type MailTemplate } from '../../mail/outbox.ts';
import { providerFor } from '../../payment-providers/index.ts';
import { findTreatment, publicCategoryText } from '../questionnaires/index.ts';
import type { PlanRow } from './repository.ts';
import * as notices from './price-notices.repository.ts';

const DAY_MS = 24 * 3600 * 1000;

type NoticeVars = { plan: string; old: string; new: string; days: number; date: string; cancel: string; link: string };
const noticeMail = (subject: string, body: (v: NoticeVars) => string) => (v: NoticeVars) => ({ subject, text: `${body(v)}\n` });

export const priceChangeMail: MailTemplate<NoticeVars> = {
  name: 'plan_price_change',
  en: noticeMail('The price of your plan changes', (v) => `The price of your plan "${v.plan}" changes from ${v.old} to ${v.new} per ${v.days} days, first charged on ${v.date}. Until then nothing changes.\n\nIf you do not want to continue at the new price, cancel before that date, free of charge:\n${v.cancel}\n\nYour plan:\n${v.link}`),
  de: noticeMail('Der Preis Ihres Plans ändert sich', (v) => `Der Preis Ihres Plans „${v.plan}“ ändert sich von ${v.old} auf ${v.new} pro ${v.days} Tage, erstmals abgebucht am ${v.date}. Bis dahin ändert sich nichts.\n\nWenn Sie zum neuen Preis nicht fortfahren möchten, kündigen Sie vor diesem Datum kostenlos:\n${v.cancel}\n\nIhr Plan:\n${v.link}`),
  es: noticeMail('El precio de su plan cambia', (v) => `El precio de su plan «${v.plan}» cambia de ${v.old} a ${v.new} cada ${v.days} días, con el primer cobro el ${v.date}. Hasta entonces no cambia nada.\n\nSi no desea continuar con el nuevo precio, cancele antes de esa fecha sin coste:\n${v.cancel}\n\nSu plan:\n${v.link}`),
  fr: noticeMail('Le prix de votre plan change', (v) => `Le prix de votre plan « ${v.plan} » passe de ${v.old} à ${v.new} tous les ${v.days} jours, premier prélèvement le ${v.date}. D’ici là, rien ne change.\n\nSi vous ne souhaitez pas continuer au nouveau prix, résiliez sans frais avant cette date :\n${v.cancel}\n\nVotre plan :\n${v.link}`),
  it: noticeMail('Il prezzo del Suo piano cambia', (v) => `Il prezzo del Suo piano «${v.plan}» passa da ${v.old} a ${v.new} ogni ${v.days} giorni, con il primo addebito il ${v.date}. Fino ad allora non cambia nulla.\n\nSe non desidera continuare al nuovo prezzo, disdica gratuitamente prima di quella data:\n${v.cancel}\n\nIl Suo piano:\n${v.link}`),
  nl: noticeMail('De prijs van uw plan verandert', (v) => `De prijs van uw plan "${v.plan}" verandert van ${v.old} naar ${v.new} per ${v.days} dagen, voor het eerst afgeschreven op ${v.date}. Tot dan verandert er niets.\n\nWilt u niet doorgaan tegen de nieuwe prijs, zeg dan vóór die datum kosteloos op:\n${v.cancel}\n\nUw plan:\n${v.link}`),
  pt: noticeMail('O preço do seu plano vai mudar', (v) => `O preço do seu plano «${v.plan}» passa de ${v.old} para ${v.new} a cada ${v.days} dias, com a primeira cobrança em ${v.date}. Até lá nada muda.\n\nSe não quiser continuar com o novo preço, cancele antes dessa data, sem custos:\n${v.cancel}\n\nO seu plano:\n${v.link}`),
};

const money = (locale: Locale, cents: number, currency: string) => new Intl.NumberFormat(locale === 'en' ? 'en-GB' : locale, { style: 'currency', currency }).format(cents / 100);

/**
 * The first charge date at or after `earliest`: the plan's next charge (the moved delivery date or
 * the period end), then every cycle after it.
 */
export function firstChargeOnOrAfter(plan: { current_period_end: Date | string; next_delivery_at: Date | string | null; cycle_days: number }, earliest: Date): Date {
  let at = new Date(plan.next_delivery_at ?? plan.current_period_end).getTime();
  const step = plan.cycle_days * DAY_MS;
  if (at < earliest.getTime()) at += Math.ceil((earliest.getTime() - at) / step) * step;
  return new Date(at);
}

/**
 * Scheduler job: for each live plan whose catalogue price differs from the price it is charged,
 * a notice (once per new price) mailed at least PRICE_CHANGE_NOTICE_DAYS before its first charge at
 * the new price. A price set back before it applied withdraws the notice (nothing changes then).
 */
export async function noticePriceChanges(deps: Deps): Promise<number> {
  const days = deps.config.PRICE_CHANGE_NOTICE_DAYS;
  let sent = 0;
  let after: string | null = null;
  for (;;) {
    const page = await notices.plansForPriceSweepForScheduler(deps.db, after, 200);
    if (!page.length) return sent;
    after = page.at(-1)!.id;
    for (const plan of page) {
      const catalogue = findTreatment(plan.category, plan.treatment_id)?.plan_price_cents ?? null;
      // Most plans most minutes: nothing to notice, no transaction.
      if (catalogue === null || (plan.open_new_price_cents === null ? catalogue === plan.price_cents : plan.open_new_price_cents === catalogue)) continue;
      const noticed = await deps.db.tx(async (q) => {
        const now = deps.clock.now();
        const open = await notices.openNoticeForScheduler(q, plan.id);
        if (open && open.new_price_cents === catalogue) return false;
        if (open?.provider_applied_at && plan.provider_subscription_id) {
          // The provider already has the superseded price for the next invoice: set the plan's own back.
          await providerFor(deps, plan.provider).changePlanPrice?.({
            providerSubscriptionId: plan.provider_subscription_id,
            amountCents: plan.price_cents,
            currency: plan.currency,
            cycleDays: plan.cycle_days,
            idempotencyKey: `price_notice_${open.id}_withdrawn`,
          });
        }
        if (open) await notices.supersedeNotice(q, plan.user_id, open.id, now);
        if (catalogue === plan.price_cents) return false;
        const effective = firstChargeOnOrAfter(plan, new Date(now.getTime() + days * DAY_MS));
        await notices.insertNotice(q, {
          user_id: plan.user_id,
          subscription_id: plan.id,
          treatment_id: plan.treatment_id,
          old_price_cents: plan.price_cents,
          new_price_cents: catalogue,
          currency: plan.currency,
          notified_at: now,
          effective_from: effective,
        });
        const locale: Locale = isLocale(plan.locale) ? plan.locale : 'en';
        await enqueueMail(q, plan.email, priceChangeMail, locale, {
          plan: publicCategoryText(plan.category, locale).title,
          old: money(locale, plan.price_cents, plan.currency),
          new: money(locale, catalogue, plan.currency),
          days: plan.cycle_days,
          date: effective.toISOString().slice(0, 10),
          cancel: appLinks.cancel(deps.config),
          link: appLinks.plan(deps.config),
        });
        return true;
      });
      if (noticed) sent++;
    }
  }
}

/**
 * Scheduler job (with the notice sweep): a noticed price of a plan the provider bills itself goes to
 * the provider once the period that ends at the notice's date is running, so the provider's next
 * invoice, the first period at the new price, charges it. The local price follows when that invoice
 * is paid (`priceForPeriod`). One plan's provider error leaves it for the next run.
 */
export async function pushNoticedPricesToProvider(deps: Deps): Promise<number> {
  let pushed = 0;
  for (const n of await notices.noticesDueAtProviderForScheduler(deps.db, 100)) {
    try {
      await providerFor(deps, n.provider).changePlanPrice?.({
        providerSubscriptionId: n.provider_subscription_id!,
        amountCents: n.new_price_cents,
        currency: n.currency,
        cycleDays: n.cycle_days,
        idempotencyKey: `price_notice_${n.id}`,
      });
      await notices.markNoticeAtProvider(deps.db, n.user_id, n.id, deps.clock.now());
      pushed++;
    } catch (err: unknown) {
      deps.log.warn({ subscriptionId: n.subscription_id, err: err instanceof Error ? err.message : String(err) }, 'a noticed price could not be set at the provider');
    }
  }
  return pushed;
}

/**
 * The price a period starting at `periodStart` is charged: the noticed new price once its date has
 * come (recorded on the plan, in the charge's transaction), else the plan's own price.
 */
export async function priceForPeriod(q: Queryable, plan: PlanRow, periodStart: Date, now: Date): Promise<PlanRow> {
  const due = await notices.dueNotice(q, plan.user_id, plan.id, periodStart, plan.cycle_days);
  if (!due) return plan;
  await notices.applyNotice(q, plan.user_id, due.id, plan.id, due.new_price_cents, now);
  return { ...plan, price_cents: due.new_price_cents };
}
