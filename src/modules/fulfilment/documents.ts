// A prescription as a file (PDF), for its download route and the data export's zip: the signed file
// as issued (docs/prescriptions.md), or, for a prescription issued before signing existed, its
// document rendered again (unsigned, as it always was).
import type { Config } from '../../config.ts';
import type { Queryable } from '../../db/index.ts';
import { prescriptionPdf } from '../../lib/pdf.ts';
import { prescriptionForPdf } from './repository.ts';
import { signedPdfOf } from './signed.repository.ts';
import { prescriptionDocument } from './signing.ts';

/** The account's prescription as PDF (null: no such prescription of this account). */
export async function prescriptionFile(q: Queryable, config: Config, userId: string, id: string): Promise<{ name: string; data: Buffer } | null> {
  const rx = await prescriptionForPdf(q, userId, id);
  if (!rx) return null;
  const name = `prescription-${rx.id.slice(0, 8)}.pdf`;
  const signed = await signedPdfOf(q, userId, id);
  if (signed) return { name, data: signed };
  return { name, data: await prescriptionPdf(prescriptionDocument(config, rx, false)) };
}
