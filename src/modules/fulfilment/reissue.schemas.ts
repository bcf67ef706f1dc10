// The API shape of a prescription reissue request (ours: spec 2.11 leaves it open).
import { z } from 'zod';
import type { Queryable } from '../../db/index.ts';
import { iso } from '../../lib/iso.ts';
import { pageReissueRequests, type ReissueRow } from './reissue.repository.ts';

const ts = z.iso.datetime({ offset: true });

export const ReissueRequestSchema = z
  .object({
    id: z.uuid(),
    prescription_id: z.uuid(),
    status: z.enum(['pending', 'approved', 'declined']),
    reason: z.string(),
    decision_reason: z.string().nullable(),
    new_prescription_id: z.uuid().nullable(),
    decided_at: ts.nullable(),
    created_at: ts,
  })
  .meta({ id: 'PrescriptionReissueRequest' });
export type ReissueRequest = z.infer<typeof ReissueRequestSchema>;

const isStatus = (s: string): s is ReissueRequest['status'] => s === 'pending' || s === 'approved' || s === 'declined';

export function toReissue(r: ReissueRow): ReissueRequest {
  if (!isStatus(r.status)) throw new Error(`reissue request ${r.id} has an unknown status`);
  return {
    id: r.id,
    prescription_id: r.prescription_id,
    status: r.status,
    reason: r.reason,
    decision_reason: r.decision_reason,
    new_prescription_id: r.new_prescription_id,
    decided_at: iso(r.decided_at),
    created_at: iso(r.created_at)!,
  };
}


/** Every reissue request of the account, newest first (the data export). */
export async function listReissueRequests(q: Queryable, userId: string): Promise<ReissueRequest[]> {
  return (await pageReissueRequests(q, userId, 1_000_000, 0)).map(toReissue);
}
