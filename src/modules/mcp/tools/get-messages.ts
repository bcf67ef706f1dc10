import * as messages from '../../messages/index.ts';
import * as s from '../schemas.ts';
import { tool, messageOut } from './tool.ts';

export const getMessagesTool = tool({
  name: 'get_messages',
  title: 'Messages with the medical team',
  description: 'The conversation between the patient and the medical team, oldest first (attachments are only flagged). Reading marks the team’s messages read, as the app does.',
  scope: 'patient:read',
  input: s.EmptyIn,
  output: s.MessagesOut,
  // Not read-only: it marks the team's messages read (calling it again changes nothing more).
  readOnly: false,
  idempotent: true,
  async run({ deps, auth }) {
    const [conv] = await messages.listForPatient(deps, auth.userId);
    // Every patient has one conversation (an empty one is answered without a stored row).
    if (!conv) throw new Error('the patient has no conversation');
    const list = await messages.readAsPatient(deps, auth.userId, conv.id);
    return {
      data: { conversation_id: conv.id, unread_count: conv.unread_count, messages: list.map(messageOut) },
      text: `${list.length} message(s) in the conversation with the medical team.`,
    };
  },
});
