// Supported countries of residence and their emergency numbers (catalogue/countries.json).
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

const CountrySchema = z.object({
  code: z.string().regex(/^[A-Z]{3}$/),
  name: z.string(),
  eu: z.boolean(),
  emergency_numbers: z.array(z.string()).min(1),
  non_emergency: z.array(z.object({ number: z.string(), label: z.string() })),
  source: z.string(),
});
const FileSchema = z.object({ version: z.number(), description: z.string(), countries: z.array(CountrySchema).min(1) });

export type Country = z.infer<typeof CountrySchema>;

const file = join(dirname(fileURLToPath(import.meta.url)), '../../catalogue/countries.json');
export const COUNTRIES: readonly Country[] = FileSchema.parse(JSON.parse(readFileSync(file, 'utf8'))).countries;
const BY_CODE = new Map(COUNTRIES.map((c) => [c.code, c]));

export const isSupportedCountry = (code: string) => BY_CODE.has(code);
export const countryByCode = (code: string | null | undefined) => (code ? BY_CODE.get(code) : undefined);

/** The emergency number to show a patient: the country's first, 112 (EU-wide) when unknown. */
export const emergencyNumberFor = (code: string | null | undefined) => countryByCode(code)?.emergency_numbers[0] ?? '112';
