import { countAccessForPatient, pageAccessForPatient } from '../../audit/index.ts';
import { grantsOfAccount } from '../repository.ts';
import { appLinks } from '../../../mail/links.ts';
import * as s from '../schemas.ts';
import { tool, paging } from './tool.ts';

export const getPrivacyRecordTool = tool({
  name: 'get_privacy_record',
  title: 'Who read my record, and my connected assistants',
  description:
    'Which staff member (doctor, pharmacist, back office) read or changed the patient’s record and when (newest first), the assistants the patient connected (live and disconnected), and the page where they manage consents, download all their data or delete their account (those are done there, signed in, not through the connector).',
  scope: 'patient:read',
  input: s.PageInput,
  output: s.PrivacyOut,
  readOnly: true,
  async run({ deps, auth }, args) {
    const { limit, offset } = paging(args);
    const [count, rows, grants] = await Promise.all([
      countAccessForPatient(deps.db, auth.userId),
      pageAccessForPatient(deps.db, auth.userId, limit, offset),
      grantsOfAccount(deps.db, auth.userId),
    ]);
    const page = appLinks.account(deps.config);
    const data = {
      note: 'Consents, the full data export and account erasure are on the account page, signed in.',
      access_log: {
        count,
        results: rows.map((r) => ({ at: new Date(r.at).toISOString(), actor_role: r.actor_role, actor_name: r.actor_name, action: r.action, resource_type: r.resource_type, resource_id: r.resource_id })),
      },
      connected_assistants: grants.map((g) => ({ client_name: g.client_name, scopes: g.scopes.split(' ').filter(Boolean), connected_at: new Date(g.created_at).toISOString(), revoked_at: g.revoked_at ? new Date(g.revoked_at).toISOString() : null })),
      page_url: page,
    };
    return { data, text: `${count} access-log entr${count === 1 ? 'y' : 'ies'}; ${grants.filter((g) => !g.revoked_at).length} connected assistant(s). Manage consents, export or erasure at ${page}.` };
  },
});
