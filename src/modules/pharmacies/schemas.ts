// Partner pharmacies (docs/pharmacy.md "Partner pharmacies"): the back office's shape, the
// patient's shape (no management fields) and the request bodies.
import { z } from 'zod';
import { iso } from '../../lib/iso.ts';
import { isSupportedCountry } from '../../lib/countries.ts';
import type { PartnerPharmacyRow } from './repository.ts';

const ts = z.iso.datetime({ offset: true });
export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
const hhmm = z.string().max(5, { error: 'Use HH:MM (24 h).', abort: true }).regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'Use HH:MM (24 h).');

export const OpeningHoursSchema = z
  .array(
    z
      .object({ day: z.enum(WEEKDAYS), opens: hhmm, closes: hhmm })
      .refine((h) => h.opens < h.closes, { message: 'closes must be after opens.', path: ['closes'] }),
  )
  .max(21)
  .meta({ description: 'Opening periods per weekday (several per day for a lunch break); a day not listed is closed' });
export type OpeningHours = z.infer<typeof OpeningHoursSchema>;

const text = (max: number) => z.string().trim().min(1).max(max);
const country = z
  .string()
  .max(3, { error: 'Use the ISO 3166-1 alpha-3 code (DEU, FRA...).', abort: true })
  .regex(/^[A-Z]{3}$/, 'Use the ISO 3166-1 alpha-3 code (DEU, FRA...).')
  .refine(isSupportedCountry, { message: 'Not a country this service serves.' });

const fields = {
  name: text(200),
  address_line: text(300).meta({ description: 'Street and number' }),
  postal_code: text(20),
  city: text(120),
  country: country.meta({ description: 'ISO 3166-1 alpha-3, like the profile' }),
  opening_hours: OpeningHoursSchema,
  click_and_collect: z.boolean().meta({ description: 'Patients may collect their order here' }),
  delivery: z.boolean().meta({ description: 'The pharmacy delivers locally' }),
};
const oneService = { message: 'A pharmacy offers click-and-collect, delivery or both.', path: ['click_and_collect'] };

export const CreatePharmacyBody = z
  .object({ ...fields, opening_hours: OpeningHoursSchema.default([]), click_and_collect: fields.click_and_collect.default(false), delivery: fields.delivery.default(false) })
  .refine((b) => b.click_and_collect || b.delivery, oneService);
export const UpdatePharmacyBody = z.object(fields).partial();
export type CreatePharmacyInput = z.infer<typeof CreatePharmacyBody>;
export type UpdatePharmacyInput = z.infer<typeof UpdatePharmacyBody>;

const common = {
  id: z.uuid(),
  name: z.string(),
  address_line: z.string(),
  postal_code: z.string(),
  city: z.string(),
  country: z.string(),
  opening_hours: OpeningHoursSchema,
  click_and_collect: z.boolean(),
  delivery: z.boolean(),
};

export const PartnerPharmacySchema = z
  .object({ ...common, is_active: z.boolean(), deactivated_at: ts.nullable(), created_at: ts, updated_at: ts })
  .meta({ id: 'PartnerPharmacy' });
export type PartnerPharmacy = z.infer<typeof PartnerPharmacySchema>;

/** What a patient sees of a pharmacy (a collection point of an order, or a nearby one). */
export const PharmacyPublicSchema = z.object(common).meta({ id: 'Pharmacy' });
export type PharmacyPublic = z.infer<typeof PharmacyPublicSchema>;

export const NEARBY_MATCHES = ['postal_code', 'postal_area_3', 'postal_area_2', 'city', 'country'] as const;
export const NearbyPharmacySchema = PharmacyPublicSchema.extend({
  match: z.enum(NEARBY_MATCHES).meta({
    description: 'Why it ranks where it does: same postal code; same first 3, then first 2 characters of the postal code; same city; same country only',
  }),
}).meta({ id: 'NearbyPharmacy' });
export type NearbyPharmacy = z.infer<typeof NearbyPharmacySchema>;

/** Stored opening hours that no longer parse (edited by hand) read as none rather than failing the list. */
const hoursOf = (v: unknown): OpeningHours => {
  const parsed = OpeningHoursSchema.safeParse(v);
  return parsed.success ? parsed.data : [];
};

/** The columns a pharmacy's public shape reads (a whole row, or an order's joined `ph_*` columns). */
export type PharmacyPublicRow = Pick<PartnerPharmacyRow, 'id' | 'name' | 'address_line' | 'postal_code' | 'city' | 'country' | 'opening_hours' | 'click_and_collect' | 'delivery'>;

export function toPharmacyPublic(r: PharmacyPublicRow): PharmacyPublic {
  return {
    id: r.id,
    name: r.name,
    address_line: r.address_line,
    postal_code: r.postal_code,
    city: r.city,
    country: r.country,
    opening_hours: hoursOf(r.opening_hours),
    click_and_collect: r.click_and_collect,
    delivery: r.delivery,
  };
}

export function toPartnerPharmacy(r: PartnerPharmacyRow): PartnerPharmacy {
  return { ...toPharmacyPublic(r), is_active: r.is_active, deactivated_at: iso(r.deactivated_at), created_at: iso(r.created_at)!, updated_at: iso(r.updated_at)! };
}

export function toNearby(r: PartnerPharmacyRow, match: NearbyPharmacy['match']): NearbyPharmacy {
  return { ...toPharmacyPublic(r), match };
}

/** The fulfilment choice of a checkout or renewal confirm (optional; omitted means delivery). */
export const FulfilmentChoiceSchema = z
  .discriminatedUnion('method', [
    z.object({ method: z.literal('delivery') }),
    z.object({ method: z.literal('collection'), pharmacy_id: z.uuid().meta({ description: 'An active partner pharmacy offering click-and-collect (GET /v1/users/pharmacies/)' }) }),
  ])
  .meta({ id: 'FulfilmentChoice', description: 'How the order reaches the patient: delivery to the default address (the default), or collection at a partner pharmacy' });
