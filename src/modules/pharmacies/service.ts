// Partner pharmacies' rules (docs/pharmacy.md "Partner pharmacies"): back-office management with an
// audit entry per change, the patient's nearby list, and the check of a collection choice.
import type { Queryable } from '../../db/index.ts';
import type { Deps } from '../../deps.ts';
import { fieldErrors, notFound } from '../../http/errors.ts';
import type { PageParams } from '../../http/pagination.ts';
import { recordAudit } from '../audit/index.ts';
import * as repo from './repository.ts';
import { NEARBY_MATCHES, toNearby, toPartnerPharmacy, type CreatePharmacyInput, type NearbyPharmacy, type PartnerPharmacy, type UpdatePharmacyInput } from './schemas.ts';

export async function listPharmacies(deps: Deps, p: PageParams): Promise<{ count: number; results: PartnerPharmacy[] }> {
  const count = await repo.countPharmacies(deps.reader);
  const rows = await repo.pagePharmacies(deps.reader, p.limit, p.offset);
  return { count, results: rows.map(toPartnerPharmacy) };
}

export async function getPharmacy(deps: Deps, id: string): Promise<PartnerPharmacy> {
  const row = await repo.pharmacyById(deps.reader, id);
  if (!row) throw notFound();
  return toPartnerPharmacy(row);
}

export async function createPharmacy(deps: Deps, actorId: string, input: CreatePharmacyInput): Promise<PartnerPharmacy> {
  const row = await deps.db.tx(async (q) => {
    const created = await repo.insertPharmacy(q, input, deps.clock.now());
    await recordAudit(q, { actorId, action: 'pharmacy.created', subjectType: 'partner_pharmacy', subjectId: created.id, details: { name: created.name, country: created.country } });
    return created;
  });
  return toPartnerPharmacy(row);
}

export async function updatePharmacy(deps: Deps, actorId: string, id: string, input: UpdatePharmacyInput): Promise<PartnerPharmacy> {
  const row = await deps.db.tx(async (q) => {
    const current = await repo.lockPharmacy(q, id);
    if (!current) throw notFound();
    // The services are checked on the result: a change may not leave a pharmacy offering neither.
    const collect = input.click_and_collect ?? current.click_and_collect;
    const deliver = input.delivery ?? current.delivery;
    if (!collect && !deliver) throw fieldErrors({ click_and_collect: ['A pharmacy offers click-and-collect, delivery or both.'] });
    const set = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) as UpdatePharmacyInput;
    const updated = await repo.updatePharmacy(q, id, set, deps.clock.now());
    await recordAudit(q, { actorId, action: 'pharmacy.updated', subjectType: 'partner_pharmacy', subjectId: id, details: { fields: Object.keys(set) } });
    return updated;
  });
  if (!row) throw notFound();
  return toPartnerPharmacy(row);
}

/** Deactivates (or activates again) a pharmacy; idempotent, audited when it changes anything. */
export async function setPharmacyActive(deps: Deps, actorId: string, id: string, active: boolean): Promise<PartnerPharmacy> {
  const row = await deps.db.tx(async (q) => {
    const current = await repo.lockPharmacy(q, id);
    if (!current) throw notFound();
    if (current.is_active === active) return current;
    const now = deps.clock.now();
    const updated = await repo.updatePharmacy(q, id, { is_active: active, deactivated_at: active ? null : now }, now);
    await recordAudit(q, { actorId, action: active ? 'pharmacy.activated' : 'pharmacy.deactivated', subjectType: 'partner_pharmacy', subjectId: id });
    return updated;
  });
  if (!row) throw notFound();
  return toPartnerPharmacy(row);
}

export interface NearbyInput {
  postal_code?: string | undefined;
  city?: string | undefined;
  collection_only: boolean;
}

/**
 * Active pharmacies in the profile's country, nearest first by the ranking rule (repository.ts):
 * the profile's postal code and city, either replaced by the query's. Without a country, or with
 * neither a postal code nor a city, there is nothing to rank by: 400 with a field error.
 */
export async function nearbyPharmacies(deps: Deps, userId: string, input: NearbyInput, p: PageParams): Promise<{ count: number; results: NearbyPharmacy[] }> {
  const profile = await repo.profileLocation(deps.reader, userId);
  const country = profile?.country_of_residence ?? null;
  if (!country) throw fieldErrors({ near: ['Add your country of residence to your profile to find nearby pharmacies.'] });
  const postalCode = input.postal_code?.trim() || profile?.postal_code?.trim() || null;
  const city = input.city?.trim() || profile?.city?.trim() || null;
  if (!postalCode && !city) throw fieldErrors({ near: ['Add your postal code or city to your profile (or pass postal_code or city) to find nearby pharmacies.'] });
  const query = { country, postalCode, city, collectionOnly: input.collection_only };
  const count = await repo.countNearby(deps.reader, query);
  const rows = await repo.pageNearby(deps.reader, query, p.limit, p.offset);
  return { count, results: rows.map((r) => toNearby(r, NEARBY_MATCHES[Math.min(Math.max(r.rank, 1), 5) - 1]!)) };
}

/** A patient's fulfilment choice: delivery, or collection at a pharmacy (docs/pharmacy.md). */
export type FulfilmentChoice = { method: 'delivery' } | { method: 'collection'; pharmacy_id: string };

/**
 * The pharmacy a fulfilment choice collects at (null for delivery), checked inside the caller's
 * transaction: it must exist, be active, offer click-and-collect and be in the patient's country;
 * otherwise 400 `{"fulfilment.pharmacy_id": [...]}`.
 */
export async function collectionPharmacyFor(q: Queryable, userId: string, choice: FulfilmentChoice | undefined): Promise<string | null> {
  if (!choice || choice.method === 'delivery') return null;
  const refuse = (m: string) => fieldErrors({ 'fulfilment.pharmacy_id': [m] });
  const row = await repo.pharmacyById(q, choice.pharmacy_id);
  if (!row || !row.is_active) throw refuse('No active partner pharmacy has this id.');
  if (!row.click_and_collect) throw refuse('This pharmacy does not offer click-and-collect.');
  const profile = await repo.profileLocation(q, userId);
  if (profile?.country_of_residence && profile.country_of_residence !== row.country) throw refuse('This pharmacy is not in your country of residence.');
  return row.id;
}

/** One partner pharmacy by id (null: none). */
export function pharmacyById(q: Queryable, id: string): Promise<repo.PartnerPharmacyRow | null> {
  return repo.pharmacyById(q, id);
}

// ---- pharmacists and their pharmacy (issue 43; docs/pharmacy.md, "Pharmacies and their pharmacists")

export interface PharmacistAssignment {
  pharmacist_id: string;
  pharmacy: PartnerPharmacy;
  is_central: boolean;
  assigned_at: string | null;
}

/**
 * A back-office admin (or the operator's CLI, `actorId` null) assigns a pharmacist to a pharmacy: from
 * then on they see and move only that pharmacy's orders. An id that names no pharmacist is 404; a
 * pharmacy that does not exist or is deactivated is a field error. Audit-logged.
 */
export async function assignPharmacistToPharmacy(deps: Deps, actorId: string | null, pharmacistId: string, pharmacyId: string /* an id, or 'central' */): Promise<PharmacistAssignment> {
  return deps.db.tx(async (q) => {
    const pharmacist = await repo.lockPharmacistAccount(q, pharmacistId);
    if (!pharmacist) throw notFound();
    const pharmacy = pharmacyId === 'central' ? await repo.centralPharmacy(q) : await repo.lockPharmacy(q, pharmacyId);
    if (!pharmacy || !pharmacy.is_active) throw fieldErrors({ pharmacy_id: ['No active pharmacy has this id.'] });
    const a = await repo.assignPharmacist(q, pharmacist.id, pharmacy.id, actorId, deps.clock.now());
    await recordAudit(q, { actorId, action: 'pharmacist.assigned', subjectType: 'pharmacist', subjectId: pharmacist.id, details: { pharmacy_id: pharmacy.id } });
    return { pharmacist_id: pharmacist.id, pharmacy: toPartnerPharmacy(pharmacy), is_central: pharmacy.is_central, assigned_at: a.assigned_at.toISOString() };
  });
}

/** The pharmacy a pharmacist works for (their assignment, else the central dispatch pharmacy). */
export async function pharmacistAssignment(deps: Deps, pharmacistId: string): Promise<PharmacistAssignment> {
  const row = await repo.pharmacyOfPharmacist(deps.reader, pharmacistId);
  if (!row) throw notFound();
  return { pharmacist_id: pharmacistId, pharmacy: toPartnerPharmacy(row.pharmacy), is_central: row.pharmacy.is_central, assigned_at: row.assigned_at ? row.assigned_at.toISOString() : null };
}

/** The CLI's lookup: a pharmacist by e-mail address. */
export async function pharmacistIdByEmail(deps: Deps, email: string): Promise<string | null> {
  return (await repo.pharmacistByEmail(deps.reader, email))?.id ?? null;
}
