// Profile rules (spec 2.2, 4.2, 8). Design decisions: docs/profile.md.
import type { Queryable } from '../../db/index.ts';
import type { Deps } from '../../deps.ts';
import { fail, fieldErrors, notFound, type FieldErrors } from '../../http/errors.ts';
import { isCalendarDate } from '../../http/fields.ts';
import { CATEGORY_SLUGS } from '../../lib/categories.ts';
import { isSupportedCountry } from '../../lib/countries.ts';
import { decrypt, encrypt } from '../../lib/crypto.ts';
import type { UserFields } from '../accounts/index.ts';
import { toOrder } from '../fulfilment/index.ts';
import { careFields, profileRow, updateProfileRow, type ProfileWithForms } from './repository.ts';
import { AddressSchema, GpSchema, type Profile, type ProfilePatchInput } from './schemas.ts';

const MIN_AGE = 18;

// Made once: a schema built per call (AddressSchema.array() in toProfile) was ~2 % of a GET's CPU.
const Addresses = AddressSchema.array();

/** Fields that submission and checkout need, in this order. */
const REQUIRED_FOR_CARE = ['first_name', 'last_name', 'date_of_birth', 'gender', 'country_of_residence'] as const;

export async function missingProfileFields(q: Queryable, userId: string): Promise<string[]> {
  const u = await careFields(q, userId);
  if (!u) return [...REQUIRED_FOR_CARE];
  return REQUIRED_FOR_CARE.filter((f) => u[f] === null || u[f].trim() === '');
}

export const profileIncomplete = (missing: string[]) =>
  fail('PROFILE_INCOMPLETE', { extra: { missing_fields: missing } });

/** Whole years between a YYYY-MM-DD birth date and today (UTC). */
export function ageOn(dateOfBirth: string, today: Date): number {
  const [y = 0, m = 0, d = 0] = dateOfBirth.split('-').map(Number);
  let age = today.getUTCFullYear() - y;
  const month = today.getUTCMonth() + 1;
  if (month < m || (month === m && today.getUTCDate() < d)) age--;
  return age;
}

function isIanaZone(zone: string): boolean {
  if (!zone || zone.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return /\//.test(zone) || zone === 'UTC';
  } catch {
    return false;
  }
}

export async function getProfile(deps: Deps, userId: string): Promise<Profile> {
  // One statement: the row, its submitted categories and its orders.
  const row = await profileRow(deps.db, userId);
  // The caller's own account: the access check found it active a moment ago.
  if (!row) throw notFound();
  return toProfile(deps, row);
}

function toProfile(deps: Deps, row: ProfileWithForms): Profile {
  const submitted = new Set(row.submitted);
  return {
    id: row.id,
    email: row.email,
    first_name: row.first_name,
    last_name: row.last_name,
    date_of_birth: row.date_of_birth,
    gender: row.gender,
    country_of_residence: row.country_of_residence,
    timezone: row.timezone,
    locale: row.locale,
    city: row.city,
    postal_code: row.postal_code,
    issuing_state: row.issuing_state,
    document_number: row.document_number_enc ? decrypt(deps.secrets.documentKeys, row.document_number_enc) : '',
    document_type: row.document_type,
    addresses: Addresses.parse(row.addresses ?? []),
    gp: row.gp ? GpSchema.parse(row.gp) : null,
    is_doctor: row.is_doctor,
    is_backoffice_admin: row.is_backoffice_admin,
    is_marketer: row.is_marketer,
    is_referrer: row.is_referrer,
    forms_completed: Object.fromEntries(CATEGORY_SLUGS.map((k) => [k, submitted.has(k)])) as Profile['forms_completed'],
    orders: row.orders.map(toOrder),
  };
}

export async function patchProfile(deps: Deps, userId: string, input: ProfilePatchInput): Promise<Profile> {
  const errors: FieldErrors = {};
  const columns: UserFields = {};
  const add = (field: string, message: string) => (errors[field] ??= []).push(message);

  if (input.first_name !== undefined) columns.first_name = input.first_name;
  if (input.last_name !== undefined) columns.last_name = input.last_name;
  if (input.gender !== undefined) columns.gender = input.gender;
  if (input.locale !== undefined) columns.locale = input.locale;
  if (input.city !== undefined) columns.city = input.city;
  if (input.postal_code !== undefined) columns.postal_code = input.postal_code;
  if (input.issuing_state !== undefined) columns.issuing_state = input.issuing_state;
  if (input.document_type !== undefined) columns.document_type = input.document_type;
  if (input.date_of_birth !== undefined) {
    const dob = input.date_of_birth;
    if (dob === null) columns.date_of_birth = null;
    else if (!isCalendarDate(dob)) add('date_of_birth', 'Date has wrong format. Use one of these formats instead: YYYY-MM-DD.');
    else if (dob > deps.clock.now().toISOString().slice(0, 10)) add('date_of_birth', 'The date of birth cannot be in the future.');
    else if (dob < '1900-01-01') add('date_of_birth', 'Enter a real date of birth.');
    else if (ageOn(dob, deps.clock.now()) < MIN_AGE) add('date_of_birth', `You must be at least ${MIN_AGE} years old to use this service.`);
    else columns.date_of_birth = dob;
  }
  if (input.country_of_residence !== undefined) {
    const code = input.country_of_residence?.toUpperCase() ?? null;
    if (code !== null && !isSupportedCountry(code)) add('country_of_residence', `"${input.country_of_residence}" is not a supported country.`);
    else columns.country_of_residence = code;
  }
  if (input.timezone !== undefined) {
    if (input.timezone !== '' && !isIanaZone(input.timezone)) add('timezone', 'Enter a valid IANA time zone, such as Europe/Berlin.');
    else columns.timezone = input.timezone;
  }
  if (input.document_number !== undefined) {
    columns.document_number_enc = input.document_number ? encrypt(deps.secrets.documentKeys, input.document_number) : null;
  }
  if (input.addresses !== undefined) {
    input.addresses.forEach((a, i) => {
      if (!isSupportedCountry(a.country)) add(`addresses.${i}.country`, `"${a.country}" is not a supported country.`);
    });
    if (input.addresses.filter((a) => a.is_default).length > 1) add('addresses', 'Only one address can be the default.');
    columns.addresses = JSON.stringify(input.addresses);
  }
  if (input.gp !== undefined) columns.gp = input.gp === null ? null : JSON.stringify(input.gp);
  if (Object.keys(errors).length) throw fieldErrors(errors);
  if (Object.keys(columns).length === 0) return getProfile(deps, userId);
  // The update answers the row as written, with its submitted categories and orders (`returning`): no read-back.
  const row = await updateProfileRow(deps.db, userId, columns);
  if (!row) throw notFound();
  return toProfile(deps, row);
}
