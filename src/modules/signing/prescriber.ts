// A prescriber's details (docs/prescriptions.md, "The prescriber's details"): what every prescription
// names (2012/52/EU annex) and what the sandbox certificate's subject carries. The doctor may change
// only the professional telephone (printed on the prescription, not in the certificate). The
// qualification and the licence number are checked credentials: the back office changes them
// (`npm run cli -- set-prescriber`), and a change rotates the signing identity so the next
// certificate names the new values.
import { X509Certificate } from 'node:crypto';
import { parsePhoneNumberFromString } from 'libphonenumber-js';
import type { Deps } from '../../deps.ts';
import { fieldErrors, notFound } from '../../http/errors.ts';
import { iso } from '../../lib/iso.ts';
import { updateUserFields } from '../accounts/index.ts';
import * as repo from './repository.ts';

/** What a qualification defaults to for a doctor account without one: every doctor account is a registered medical doctor. */
export const DEFAULT_QUALIFICATION = 'Medical doctor (physician)';

export interface CertificateSummary {
  provider: 'sandbox' | 'csc';
  serial_number: string;
  sha256: string;
  subject: string;
  not_after: string;
  status: 'active' | 'rotated' | 'revoked';
}

export interface PrescriberDetails {
  first_name: string;
  last_name: string;
  email: string;
  licence_number: string | null;
  qualification: string;
  qualification_is_default: boolean;
  phone: string | null;
  phone_printed: string | null;
  certificate: CertificateSummary | null;
}

/** One attribute of a certificate subject as node prints it (`title=...`), or null. */
export function subjectAttribute(pem: string, key: string): string | null {
  try {
    const line = new X509Certificate(pem).subject.split('\n').find((l) => l.startsWith(`${key}=`));
    return line ? line.slice(key.length + 1) : null;
  } catch {
    return null;
  }
}

export function certificateSummary(identity: repo.IdentityRow): CertificateSummary {
  let subject = '';
  try {
    subject = new X509Certificate(identity.certificate_pem).subject.replace(/\n/g, ', ');
  } catch {
    subject = '';
  }
  return {
    provider: identity.provider === 'csc' ? 'csc' : 'sandbox',
    serial_number: identity.serial_number,
    sha256: identity.certificate_sha256,
    subject,
    not_after: iso(identity.not_after)!,
    status: identity.status === 'revoked' ? 'revoked' : identity.status === 'rotated' ? 'rotated' : 'active',
  };
}

export async function prescriberDetails(deps: Deps, doctorId: string): Promise<PrescriberDetails> {
  const row = await repo.prescriberOf(deps.reader, doctorId);
  if (!row?.is_doctor) throw notFound();
  const identity = await repo.currentIdentityOf(deps.reader, doctorId);
  return {
    first_name: row.first_name ?? '',
    last_name: row.last_name ?? '',
    email: row.email,
    licence_number: row.doctor_license_number,
    qualification: row.prescriber_qualification ?? DEFAULT_QUALIFICATION,
    qualification_is_default: row.prescriber_qualification === null,
    phone: row.prescriber_phone,
    phone_printed: row.prescriber_phone ?? deps.config.SELLER_PHONE ?? null,
    certificate: identity ? certificateSummary(identity) : null,
  };
}

/** A telephone number with its international prefix, as E.164 (+4930123456), or a field error. */
export function e164(value: string): string {
  const parsed = parsePhoneNumberFromString(value.trim());
  if (!parsed?.isValid()) throw fieldErrors({ phone: ['Enter a telephone number with its international prefix, e.g. +49 30 1234567.'] });
  return parsed.number;
}

/** The doctor's own change: the professional telephone (null: the service's SELLER_PHONE is printed). */
export async function updatePrescriberPhone(deps: Deps, doctorId: string, phone: string | null): Promise<PrescriberDetails> {
  const value = phone === null || phone.trim() === '' ? null : e164(phone);
  const row = await repo.prescriberOf(deps.reader, doctorId);
  if (!row?.is_doctor) throw notFound();
  await updateUserFields(deps.db, doctorId, { prescriber_phone: value });
  return prescriberDetails(deps, doctorId);
}

/**
 * The back office's change of a prescriber's credentials (CLI): qualification and/or licence number.
 * The active signing identity is rotated in the same transaction, so no prescription is signed with
 * a certificate naming the old values.
 */
export async function setPrescriberCredentials(
  deps: Deps,
  email: string,
  change: { qualification?: string; licenceNumber?: string },
): Promise<{ found: boolean; rotated: number }> {
  return deps.db.tx(async (q) => {
    const doctor = await repo.doctorByEmail(q, email);
    if (!doctor?.is_doctor) return { found: false, rotated: 0 };
    await updateUserFields(q, doctor.id, {
      ...(change.qualification !== undefined ? { prescriber_qualification: change.qualification } : {}),
      ...(change.licenceNumber !== undefined ? { doctor_license_number: change.licenceNumber } : {}),
    });
    return { found: true, rotated: await repo.retireActiveIdentities(q, doctor.id, 'rotated', null, deps.clock.now()) };
  });
}
