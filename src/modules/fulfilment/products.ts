// What a prescription names of the prescribed product (Implementing Directive 2012/52/EU, annex):
// catalogue/prescription-products.json, validated at first use. A treatment without an entry, or a
// file that does not parse, stops the signing of its prescriptions (test/prescriptions-signed.test.ts
// checks every catalogue treatment has one).
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { PrescribedProduct } from '../../lib/pdf.ts';

const PerStrength = z.object({ default: z.string().min(1) }).catchall(z.string().min(1));
const ProductSchema = z.object({
  inn: z.string().min(1),
  form: z.string().min(1),
  quantity: PerStrength,
  regimen: z.union([z.string().min(1), PerStrength]),
  brand: z.object({ name: z.string().min(1), reason: z.string().min(10) }).nullable(),
  source: z.string().min(1),
  // Repeats a doctor may state (docs/prescriptions.md, "Repeats"): the prescription validity's 6 months at most.
  max_repeats: z.number().int().min(0).max(12),
  repeats_basis: z.string().min(10),
  // What the patient pays for one repeat supply (no new consultation): required where repeats may be stated.
  supply_price_cents: z.number().int().positive().optional(),
});
const FileSchema = z.object({ description: z.string(), products: z.record(z.string(), ProductSchema) }).superRefine((f, ctx) => {
  for (const [id, p] of Object.entries(f.products)) {
    if (p.max_repeats > 0 && p.supply_price_cents === undefined) ctx.addIssue({ code: 'custom', path: ['products', id, 'supply_price_cents'], message: 'required where repeats may be stated' });
  }
});

export const PRODUCTS_FILE = join(dirname(fileURLToPath(import.meta.url)), '../../../catalogue/prescription-products.json');

let products: z.infer<typeof FileSchema>['products'] | undefined;
const load = () => (products ??= FileSchema.parse(JSON.parse(readFileSync(PRODUCTS_FILE, 'utf8'))).products);

const pick = (v: string | z.infer<typeof PerStrength>, strength: string) => (typeof v === 'string' ? v : (v[strength] ?? v.default));

/** The product block of a prescription of `treatmentId` at `strength`; null when the catalogue has no entry. */
export function prescribedProduct(treatmentId: string, strength: string): PrescribedProduct | null {
  const p = load()[treatmentId];
  if (!p) return null;
  return {
    inn: p.inn,
    brand: p.brand,
    form: p.form,
    strength,
    quantity: pick(p.quantity, strength),
    regimen: pick(p.regimen, strength).replaceAll('{strength}', strength),
  };
}

export const productTreatmentIds = (): string[] => Object.keys(load());

/** The most repeats a doctor may state for `treatmentId` (0 for a treatment without a catalogue entry). */
export const maxRepeats = (treatmentId: string): number => load()[treatmentId]?.max_repeats ?? 0;

/** The price in EUR cents of one repeat supply of `treatmentId` (null: none is sold: no repeats). */
export const supplyPriceCents = (treatmentId: string): number | null => load()[treatmentId]?.supply_price_cents ?? null;
