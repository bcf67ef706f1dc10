// The PROFILE_INCOMPLETE rule of checkout: the profile module's own check and error.
import type { Queryable } from '../../db/index.ts';
import { missingProfileFields, profileIncomplete } from '../profile/index.ts';

/** Throws 400 {error_name: PROFILE_INCOMPLETE, missing_fields} when a required field is missing. */
export async function assertProfileComplete(q: Queryable, userId: string): Promise<void> {
  const missing = await missingProfileFields(q, userId);
  if (missing.length > 0) throw profileIncomplete(missing);
}
