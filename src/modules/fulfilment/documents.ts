// A prescription as a file (PDF), for its download route and the data export's zip.
import type { Config } from '../../config.ts';
import type { Queryable } from '../../db/index.ts';
import { prescriptionPdf, sellerFrom } from '../../lib/pdf.ts';
import { prescriptionForPdf } from './repository.ts';

/** The account's prescription as PDF (null: no such prescription of this account). */
export async function prescriptionFile(q: Queryable, config: Config, userId: string, id: string): Promise<{ name: string; data: Buffer } | null> {
  const rx = await prescriptionForPdf(q, userId, id);
  if (!rx) return null;
  const data = await prescriptionPdf({
    id: rx.id,
    issuedAt: new Date(rx.issued_at),
    validUntil: rx.valid_until ? new Date(rx.valid_until) : null,
    seller: sellerFrom(config),
    patient: { name: `${rx.patient_first_name} ${rx.patient_last_name}`.trim(), date_of_birth: rx.date_of_birth, email: rx.patient_email },
    doctor: { first_name: rx.doctor_first_name ?? '', last_name: rx.doctor_last_name ?? '', license: rx.doctor_license_number },
    treatment_name: rx.treatment_name,
    dosage: rx.dosage,
    supply_days: rx.supply_days,
    instructions: rx.instructions,
  });
  return { name: `prescription-${rx.id.slice(0, 8)}.pdf`, data };
}
