import * as journal from '../../journal/index.ts';
import * as s from '../schemas.ts';
import { tool } from './tool.ts';

export const addJournalNoteTool = tool({
  name: 'add_journal_note',
  title: 'Add a journal note',
  description: 'Adds a free-text note to the progress journal. Notes are read for red flags: one that raises a red flag is put on the medical team’s red-flag desk and answered with the emergency notice. To ask the team anything else, use send_message.',
  scope: 'journal:write',
  input: s.AddNoteIn,
  output: s.AddNoteOut,
  readOnly: false,
  screensItself: true,
  async run(ctx, args) {
    const n = await journal.createNote(ctx.deps, ctx.auth.userId, args.content);
    return { emergency: n.emergency, data: { note: { id: n.id, content: n.content, created_at: n.created_at } }, text: 'Note added to the journal.' };
  },
});
