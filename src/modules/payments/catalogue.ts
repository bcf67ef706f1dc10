// What is sold: prices, supply and dosage ladders of each treatment, read from the
// questionnaires module's catalogue (catalogue/categories/*.json, loaded and validated at start).
// One source: no built-in price list, no optional import, so every build sells the same treatments.
import { getCategory, type Treatment } from '../questionnaires/index.ts';

export interface BillingTreatment {
  id: string;
  name: string;
  category: string;
  one_off_price_cents: number | null;
  plan_price_cents: number | null;
  supply_days: number | null;
  plan_cycle_days: number | null;
  /** Dosage ladder, lowest first (the strengths when the treatment is not titrated). */
  dosages: string[];
}

export interface BillingCategory {
  slug: string;
  treatments: BillingTreatment[];
}

/** Days a one-off consultation covers (spec 2.3): 30 for hair loss, 28 for weight loss. */
export function oneOffSupplyDays(category: string, t: BillingTreatment | null): number {
  if (category === 'hair_growth') return 30;
  if (category === 'weight_loss') return 28;
  return t?.supply_days ?? 30;
}

/** Billing cycle of a plan, in days. */
export function planCycleDays(category: string, t: BillingTreatment | null): number {
  return t?.plan_cycle_days ?? (category === 'hair_growth' ? 30 : 28);
}

function toBilling(category: string, t: Treatment): BillingTreatment {
  return {
    id: t.treatment_id,
    name: t.name,
    category,
    one_off_price_cents: t.one_off_price_cents,
    plan_price_cents: t.plan_price_cents,
    supply_days: t.supply_days,
    plan_cycle_days: t.plan_cycle_days,
    dosages: t.dosages,
  };
}

/** The category's treatments with prices, or null for an unknown category. */
export function billingCategory(slug: string): BillingCategory | null {
  const cat = getCategory(slug);
  return cat ? { slug, treatments: cat.treatments.map((t) => toBilling(slug, t)) } : null;
}

export function billingTreatment(slug: string, id: string): BillingTreatment | null {
  return billingCategory(slug)?.treatments.find((t) => t.id === id) ?? null;
}

/** Price of a plan for a treatment, or null when the treatment is not sold that way. */
export function priceFor(t: BillingTreatment, plan: 'one_off' | 'subscription'): number | null {
  return plan === 'subscription' ? t.plan_price_cents : t.one_off_price_cents;
}
