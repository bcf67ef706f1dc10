// Prices, supply and dosage ladders for checkout and the review desk, read from the questionnaires
// module's catalogue (src/modules/questionnaires/catalogue.ts: getCategory, findTreatment). The
// adapter normalises its treatment shape; until that module is present it falls back to the
// built-in defaults below (same field names), so billing works on its own.
import { pathToFileURL } from 'node:url';
import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';

export interface BillingTreatment {
  id: string;
  name: string;
  category: string;
  one_off_price_cents: number | null;
  plan_price_cents: number | null;
  supply_days: number | null;
  plan_cycle_days: number | null;
  /** Dosage ladder, lowest first (empty: no dosage choice). */
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

const FALLBACK: Record<string, BillingTreatment[]> = {
  weight_loss: [
    { id: 'semaglutide', name: 'Semaglutide pen', category: 'weight_loss', one_off_price_cents: 24900, plan_price_cents: 21900, supply_days: 28, plan_cycle_days: 28, dosages: ['0.25 mg', '0.5 mg', '1 mg', '1.7 mg', '2.4 mg'] },
    { id: 'tirzepatide', name: 'Tirzepatide pen', category: 'weight_loss', one_off_price_cents: 29900, plan_price_cents: 26900, supply_days: 28, plan_cycle_days: 28, dosages: ['2.5 mg', '5 mg', '7.5 mg', '10 mg', '12.5 mg', '15 mg'] },
  ],
  hair_growth: [
    { id: 'finasteride', name: 'Finasteride tablets', category: 'hair_growth', one_off_price_cents: 3900, plan_price_cents: 2900, supply_days: 30, plan_cycle_days: 30, dosages: ['1 mg'] },
    { id: 'minoxidil', name: 'Minoxidil solution', category: 'hair_growth', one_off_price_cents: 3400, plan_price_cents: 2500, supply_days: 30, plan_cycle_days: 30, dosages: ['5 %'] },
  ],
  sexual_health: [{ id: 'sildenafil', name: 'Sildenafil tablets', category: 'sexual_health', one_off_price_cents: 3900, plan_price_cents: null, supply_days: 30, plan_cycle_days: null, dosages: ['50 mg', '100 mg'] }],
  premature_ejaculation: [{ id: 'dapoxetine', name: 'Dapoxetine tablets', category: 'premature_ejaculation', one_off_price_cents: 4900, plan_price_cents: null, supply_days: 30, plan_cycle_days: null, dosages: ['30 mg', '60 mg'] }],
  chlamydia: [{ id: 'doxycycline', name: 'Doxycycline capsules', category: 'chlamydia', one_off_price_cents: 2900, plan_price_cents: null, supply_days: 7, plan_cycle_days: null, dosages: ['100 mg'] }],
  urinary_tract_infection: [{ id: 'nitrofurantoin', name: 'Nitrofurantoin capsules', category: 'urinary_tract_infection', one_off_price_cents: 2900, plan_price_cents: null, supply_days: 5, plan_cycle_days: null, dosages: ['100 mg'] }],
  emergency_contraception: [{ id: 'ulipristal', name: 'Ulipristal acetate tablet', category: 'emergency_contraception', one_off_price_cents: 3500, plan_price_cents: null, supply_days: 1, plan_cycle_days: null, dosages: ['30 mg'] }],
  hiv_prep: [{ id: 'emtricitabine-tenofovir', name: 'Emtricitabine/Tenofovir tablets', category: 'hiv_prep', one_off_price_cents: 5900, plan_price_cents: 4900, supply_days: 30, plan_cycle_days: 30, dosages: ['200/245 mg'] }],
};

let external: any | null | undefined;

async function questionnaireCatalogue(): Promise<any | null> {
  if (external !== undefined) return external;
  const url = new URL(`../questionnaires/catalogue${import.meta.url.slice(-3)}`, import.meta.url); // .ts in src, .js in dist
  try {
    external = existsSync(fileURLToPath(url)) ? await import(pathToFileURL(fileURLToPath(url)).href) : null;
    if (external && typeof external.getCategory !== 'function') external = null;
  } catch {
    external = null;
  }
  return external;
}

function dosagesOf(t: any): string[] {
  const raw = t.dosages ?? t.dosage_ladder ?? t.ladder?.dosages ?? t.ladder ?? [];
  if (!Array.isArray(raw)) return [];
  return raw.map((d: any) => (typeof d === 'string' ? d : String(d?.dosage ?? d?.label ?? d?.id ?? d?.value ?? ''))).filter(Boolean);
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

function normalise(category: string, t: any): BillingTreatment {
  return {
    id: String(t.id ?? t.treatment_id),
    name: String(t.name ?? t.title ?? t.display_name ?? t.id),
    category,
    one_off_price_cents: num(t.one_off_price_cents ?? t.prices?.one_off_price_cents),
    plan_price_cents: num(t.plan_price_cents ?? t.prices?.plan_price_cents),
    supply_days: num(t.supply_days),
    plan_cycle_days: num(t.plan_cycle_days),
    dosages: dosagesOf(t),
  };
}

/** The category's treatments with prices, or null for an unknown category. */
export async function billingCategory(slug: string): Promise<BillingCategory | null> {
  const ext = await questionnaireCatalogue();
  if (ext) {
    const cat = await ext.getCategory(slug);
    if (!cat) return null;
    const list = cat.treatments ?? cat.variants ?? [];
    const treatments = (Array.isArray(list) ? list : Object.values(list)).map((t: any) => normalise(slug, t));
    if (treatments.length) return { slug, treatments };
    // A category without priced treatments in the questionnaire catalogue: use the defaults.
    return FALLBACK[slug] ? { slug, treatments: FALLBACK[slug] } : { slug, treatments: [] };
  }
  return FALLBACK[slug] ? { slug, treatments: FALLBACK[slug] } : null;
}

export async function billingTreatment(slug: string, id: string): Promise<BillingTreatment | null> {
  const cat = await billingCategory(slug);
  return cat?.treatments.find((t) => t.id === id) ?? null;
}

/** Price of a plan for a treatment, or null when the treatment is not sold that way. */
export function priceFor(t: BillingTreatment, plan: 'one_off' | 'subscription'): number | null {
  return plan === 'subscription' ? t.plan_price_cents : t.one_off_price_cents;
}
