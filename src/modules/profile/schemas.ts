// Profile shapes (spec 2.2). Read-only fields are not in the PATCH body schema: sent anyway, they are
// ignored, as DRF ignores read-only fields (docs/profile.md).
import { z } from 'zod';
import { calendarDate } from '../../http/fields.ts';
import { CATEGORY_SLUGS, type CategorySlug } from '../../lib/categories.ts';
import { LOCALES } from '../../lib/locales.ts';
import { OrderSchema } from '../fulfilment/index.ts';

const GENDER_CODES = ['0', '1', '2', '3'] as const;
const MAX_ADDRESSES = 5;

// Output shape (no transforms: the serializer encodes responses, and transforms are one-way).
export const AddressSchema = z
  .object({
    label: z.string(),
    line1: z.string(),
    line2: z.string(),
    city: z.string(),
    postal_code: z.string(),
    country: z.string(),
    is_default: z.boolean(),
  })
  .meta({ id: 'Address' });

const AddressInput = z
  .object({
    label: z.string().max(50).default(''),
    line1: z.string().trim().min(1, 'This field may not be blank.').max(200),
    line2: z.string().max(200).default(''),
    city: z.string().trim().min(1, 'This field may not be blank.').max(120),
    postal_code: z.string().trim().min(1, 'This field may not be blank.').max(20),
    country: z
      .string()
      .max(3, { error: 'Use an ISO 3166 alpha-3 code.', abort: true })
      .regex(/^[A-Za-z]{3}$/, 'Use an ISO 3166 alpha-3 code.')
      .transform((s) => s.toUpperCase()),
    is_default: z.boolean().default(false),
  });

const maxLen = (n: number) => `Ensure this field has no more than ${n} characters.`;
const GENDER_MESSAGE = 'Must be one of "0", "1", "2", "3".';

/** The patient's own doctor (GP): an extension of the spec's profile (docs/profile.md). */
export const GpSchema = z
  .object({
    name: z.string().trim().min(1, { error: 'Enter the doctor’s name.' }).max(150, maxLen(150)),
    practice: z.string().trim().max(200, maxLen(200)).default(''),
    address: z.string().trim().max(500, maxLen(500)).default(''),
    email: z.email({ error: 'Enter a valid e-mail address.' }).max(254, maxLen(254)),
  })
  .meta({ id: 'GeneralPractitioner', description: 'The patient’s own doctor, to whom letters go with the `gp_sharing` consent (not shown in spec — our design, docs/profile.md)' });

export const ProfilePatch = z.object({
  first_name: z.string().max(150, maxLen(150)).optional(),
  last_name: z.string().max(150, maxLen(150)).optional(),
  date_of_birth: calendarDate.nullable().optional(),
  gender: z
    .union([z.string().max(1, { error: GENDER_MESSAGE }), z.number({ error: GENDER_MESSAGE }).int({ error: GENDER_MESSAGE }).min(0, { error: GENDER_MESSAGE }).max(9, { error: GENDER_MESSAGE })], { error: GENDER_MESSAGE })
    .transform((g) => String(g))
    .pipe(z.enum(GENDER_CODES, { error: GENDER_MESSAGE }))
    .optional()
    .meta({ description: '0 male, 1 female, 2 diverse / non-binary, 3 prefers not to say' }),
  country_of_residence: z.string().max(3, 'Use a supported ISO 3166 alpha-3 code.').nullable().optional(),
  timezone: z.string().max(64, maxLen(64)).optional(),
  locale: z.enum(LOCALES, { error: 'Must be one of de, en, es, fr, it, nl, pt.' }).optional(),
  city: z.string().max(120, maxLen(120)).nullable().optional(),
  postal_code: z.string().max(20, maxLen(20)).nullable().optional(),
  issuing_state: z.string().max(200, maxLen(200)).optional(),
  document_number: z.string().max(50, maxLen(50)).optional().meta({ description: 'Identity document number (stored encrypted); "" clears it' }),
  document_type: z.enum(['PASSPORT', 'ID_CARD'], { error: 'Must be one of PASSPORT, ID_CARD.' }).nullable().optional(),
  addresses: z.array(AddressInput).max(MAX_ADDRESSES, `At most ${MAX_ADDRESSES} addresses.`).optional(),
  gp: GpSchema.nullable().optional().meta({ description: 'The patient’s own doctor (extension, not in the spec); `null` removes it' }),
});
export type ProfilePatchInput = z.infer<typeof ProfilePatch>;

export const ProfileSchema = z
  .object({
    id: z.uuid(),
    email: z.string(),
    first_name: z.string(),
    last_name: z.string(),
    date_of_birth: z.string().nullable(),
    gender: z.string().nullable(),
    country_of_residence: z.string().nullable(),
    timezone: z.string(),
    locale: z.string(),
    city: z.string().nullable(),
    postal_code: z.string().nullable(),
    issuing_state: z.string(),
    document_number: z.string().meta({ description: '"" when not set' }),
    document_type: z.string().nullable(),
    addresses: z.array(AddressSchema),
    is_doctor: z.boolean(),
    is_backoffice_admin: z.boolean(),
    is_marketer: z.boolean(),
    is_referrer: z.boolean(),
    // One flag per category, in the category list's order (spec 2.2).
    forms_completed: z.object(Object.fromEntries(CATEGORY_SLUGS.map((k) => [k, z.boolean()])) as Record<CategorySlug, z.ZodBoolean>),
    orders: z.array(OrderSchema),
    gp: GpSchema.nullable().meta({ description: 'The patient’s own doctor (extension, not in the spec: docs/profile.md); null when not given' }),
  })
  .meta({ id: 'Profile' });
export type Profile = z.infer<typeof ProfileSchema>;
