import * as messages from '../../messages/index.ts';
import * as s from '../schemas.ts';
import { tool, messageOut } from './tool.ts';

export const sendMessageTool = tool({
  name: 'send_message',
  title: 'Send a message to the medical team',
  description: 'Sends a text message from the patient to their medical team (not an emergency service: in an emergency call the local emergency number).',
  scope: 'messages:write',
  input: s.SendMessageIn,
  output: s.SendMessageOut,
  readOnly: false,
  // The message reaches people outside the system (the medical team).
  openWorld: true,
  screensItself: true,
  async run(ctx, args) {
    const [conv] = await messages.listForPatient(ctx.deps, ctx.auth.userId);
    // Every patient has one conversation (an empty one is answered without a stored row).
    if (!conv) throw new Error('the patient has no conversation');
    const sent = await messages.sendAsPatient(ctx.deps, ctx.auth.userId, conv.id, args.content);
    return {
      emergency: sent.emergency,
      data: { conversation_id: sent.id, message: sent.last_message ? messageOut(sent.last_message) : null },
      text: 'Message sent to the medical team.',
    };
  },
});
