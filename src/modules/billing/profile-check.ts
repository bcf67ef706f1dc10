// The PROFILE_INCOMPLETE rule of checkout, from the profile module
// (src/modules/profile/service.ts: missingProfileFields, profileIncomplete). Until that module is
// present, a local equivalent checks the same columns.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Queryable } from '../../db/index.ts';
import { errorName } from '../../http/errors.ts';

let external: any | null | undefined;

async function profileService(): Promise<any | null> {
  if (external !== undefined) return external;
  const path = fileURLToPath(new URL(`../profile/service${import.meta.url.slice(-3)}`, import.meta.url)); // .ts in src, .js in dist
  try {
    external = existsSync(path) ? await import(pathToFileURL(path).href) : null;
    if (external && typeof external.missingProfileFields !== 'function') external = null;
  } catch {
    external = null;
  }
  return external;
}

const REQUIRED = ['first_name', 'last_name', 'date_of_birth', 'gender', 'country_of_residence'] as const;

export async function missingFields(q: Queryable, userId: string): Promise<string[]> {
  const ext = await profileService();
  if (ext) return (await ext.missingProfileFields(q, userId)) ?? [];
  const [u] = await q.query('select first_name, last_name, date_of_birth, gender, country_of_residence from users where id = $1', [userId]);
  if (!u) return [...REQUIRED];
  return REQUIRED.filter((f) => u[f] === null || u[f] === undefined || u[f] === '');
}

/** Throws 400 {error_name: PROFILE_INCOMPLETE, missing_fields} when a required field is missing. */
export async function assertProfileComplete(q: Queryable, userId: string): Promise<void> {
  const missing = await missingFields(q, userId);
  if (missing.length === 0) return;
  const ext = await profileService();
  if (ext && typeof ext.profileIncomplete === 'function') {
    const err = ext.profileIncomplete(missing);
    // The profile module's helper builds the ApiError; anything else falls through to ours.
    if (err instanceof Error) throw err;
  }
  throw errorName(400, 'PROFILE_INCOMPLETE', 'Complete your profile before checkout.', { missing_fields: missing });
}
