// The account's FHIR patient summary (docs/interoperability.md), read for one account: the profile,
// the consultations with their questionnaire answers, the prescriptions and the journal's weights,
// each read by its owning module with the account id in its SQL, then built by fhir.ts.
import type { Bundle } from '@medplum/fhirtypes';
import type { Deps } from '../../deps.ts';
import { pageForUser, serialiseConsultations } from '../consultations/index.ts';
import { pagePrescriptions, toPrescription } from '../fulfilment/index.ts';
import { journalOfAccount } from '../journal/index.ts';
import { getProfile } from '../profile/index.ts';
import { buildPatientSummary, type SummaryInput } from './fhir.ts';

const ALL = 100_000;
/** JSON-safe copy: timestamps as ISO 8601 text. */
const plain = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

export async function summaryInputOf(deps: Deps, userId: string): Promise<SummaryInput> {
  const q = deps.db;
  const base = deps.config.PUBLIC_BASE_URL;
  const profile = await getProfile(deps, userId);
  const consultations = await serialiseConsultations(q, deps, await pageForUser(q, userId, ALL, 0));
  const prescriptions = (await pagePrescriptions(q, userId, ALL, 0)).map((r) => toPrescription(r, base));
  const journal = await journalOfAccount(q, userId);
  return plain({
    now: deps.clock.now(),
    baseUrl: base,
    serviceName: deps.config.SELLER_NAME ?? 'Patient Treatment Service',
    profile,
    consultations: consultations,
    prescriptions,
    weights: journal.weight_entries.map((w) => ({ id: w.id, weight_kg: Number(w.weight_kg), logged_on: String(w.logged_on), verified_at: w.verified_at ? String(w.verified_at) : null })),
  });
}

/** The account's patient summary: a FHIR R4 Bundle of type `document` (IPS). */
export async function patientSummary(deps: Deps, userId: string): Promise<Bundle> {
  const input = await summaryInputOf(deps, userId);
  return buildPatientSummary({ ...input, now: deps.clock.now() });
}
