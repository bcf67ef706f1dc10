// Supported countries of residence and their emergency numbers (catalogue/countries.json). The first
// emergency number is the MEDICAL one (Norway 113, France 15, Switzerland and Liechtenstein 144 [K8];
// 112 in the rest of the EU [K1]; 999 in the UK [K1b] and Ireland [K2]; the national medical numbers reviewed
// [K9, K10]: Austria 144, Italy 118, Czechia and Slovakia 155, Greece 166, Latvia 113, Croatia 194,
// Poland 999): the emergency notice names it first. Every entry names its source code from
// shared/guide/clinical-facts.md (K10: the national pages of the 2026-11-26 review, docs/red-flags.md) and
// `sources`: at least one page (URL, publisher, what it says) for its medical emergency number.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

const SourceSchema = z.object({ url: z.string().regex(/^https?:\/\/[^\s/]+\.[^\s]+$/), publisher: z.string().min(3), says: z.string().min(10) }).strict();

const CountrySchema = z.object({
  code: z.string().regex(/^[A-Z]{3}$/),
  name: z.string(),
  eu: z.boolean(),
  emergency_numbers: z.array(z.string().regex(/^\d{2,6}$/)).min(1),
  non_emergency: z.array(z.object({ number: z.string(), label: z.string() })),
  source: z.string().regex(/\bK\d+b?\b|\bUNSOURCED\b/, 'a source code from clinical-facts.md (K1, K8...) or UNSOURCED'),
  sources: z.array(SourceSchema).min(1),
  /** Suicide-prevention or emotional-support lines (116 123 where it is in service), each with its source page. */
  crisis_lines: z.array(z.object({ number: z.string().regex(/^[\d ]{3,16}$/), label: z.string().min(3), sources: z.array(SourceSchema).min(1) }).strict()),
});
const FileSchema = z.object({ version: z.number(), description: z.string(), countries: z.array(CountrySchema).min(1) });

export type Country = z.infer<typeof CountrySchema>;

const file = join(dirname(fileURLToPath(import.meta.url)), '../../catalogue/countries.json');
export const COUNTRIES: readonly Country[] = FileSchema.parse(JSON.parse(readFileSync(file, 'utf8'))).countries;
const BY_CODE = new Map(COUNTRIES.map((c) => [c.code, c]));

export const isSupportedCountry = (code: string) => BY_CODE.has(code);
export const countryByCode = (code: string | null | undefined) => (code ? BY_CODE.get(code) : undefined);

/** The emergency number to show a patient: the country's first (medical) one, 112 (EU-wide [K1]) when unknown. */
export const emergencyNumberFor = (code: string | null | undefined) => countryByCode(code)?.emergency_numbers[0] ?? '112';

/** The country's crisis lines (number and label) for suicidal or self-harm wording; empty when none is sourced. */
export const crisisLinesFor = (code: string | null | undefined) => (countryByCode(code)?.crisis_lines ?? []).map((l) => ({ number: l.number, label: l.label }));
