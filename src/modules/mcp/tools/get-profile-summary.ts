import type { Deps } from '../../../deps.ts';
import { getProfile } from '../../profile/index.ts';
import { verificationStatus } from '../../verification/index.ts';
import * as s from '../schemas.ts';
import { tool } from './tool.ts';

export const getProfileSummaryTool = tool({
  name: 'get_profile_summary',
  title: 'Profile summary',
  description: 'The patient’s name, contact email, date of birth, country, locale, time zone, which questionnaires they completed, and the state of their identity and weight verification (status only).',
  scope: 'patient:read',
  input: s.EmptyIn,
  output: s.ProfileOut,
  readOnly: true,
  async run({ deps, auth }) {
    const p = await getProfile(deps, auth.userId);
    const data = {
      id: p.id,
      email: p.email,
      first_name: p.first_name,
      last_name: p.last_name,
      date_of_birth: p.date_of_birth,
      gender: p.gender ?? null,
      country_of_residence: p.country_of_residence,
      city: p.city,
      timezone: p.timezone ?? null,
      locale: p.locale,
      forms_completed: p.forms_completed as Record<string, boolean>,
      verification: await verificationSummary(deps, auth.userId),
    };
    return { data, text: `Profile of ${[p.first_name, p.last_name].filter(Boolean).join(' ') || p.email}; identity ${data.verification.identity_status}, weight ${data.verification.weight_status}.` };
  },
});

/** The verification state the connector may see: statuses and dates, never an image or a document. */
async function verificationSummary(deps: Deps, userId: string) {
  const v = await verificationStatus(deps, userId);
  return {
    identity_status: v.identity.status,
    weight_status: v.weight.status,
    weight_due_at: v.weight.due_at,
    missing_by_category: Object.fromEntries(v.requirements.filter((r) => r.missing.length).map((r) => [r.category, r.missing])),
  };
}
