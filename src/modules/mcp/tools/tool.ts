// What every connector tool is made of (one file per tool beside this one, listed in ./index.ts):
// its definition type, the context a call runs in, and the helpers several tools share (the
// patient's locale, paging, the red-flag screening of inputs, the confirmation answers).
import type { z } from 'zod';
import type { Deps } from '../../../deps.ts';
import type { EmergencyNotice } from '../../../lib/emergency.ts';
import { isLocale } from '../../../lib/locales.ts';
import type * as messages from '../../messages/index.ts';
import type { Locale } from '../../questionnaires/index.ts';
import { screenFreeText } from '../../redflags/index.ts';
import type { Confirmation, Elicit } from '../confirmation.ts';
import type { McpAuth, Scope } from '../oauth.ts';

export interface ToolResult {
  data: Record<string, unknown>;
  text: string;
  emergency?: EmergencyNotice | null;
}

/** A tool as written: its run() receives the arguments typed by its own input schema. */
interface ToolDef<I extends z.ZodObject> {
  name: string;
  title: string;
  description: string;
  scope: Scope;
  input: I;
  output: z.ZodObject;
  readOnly: boolean;
  /** MCP annotations beyond readOnly (defaults: not destructive, idempotent when read-only, closed world). */
  destructive?: boolean;
  idempotent?: boolean;
  openWorld?: boolean;
  /** The owning service reads the tool's free text for red flags itself; otherwise every string input is screened here. */
  screensItself?: boolean;
  /** It submits something only after the patient confirms (its call may ask the patient through elicitation). */
  confirms?: boolean;
  run: (ctx: ToolContext, args: z.infer<I>) => Promise<ToolResult>;
}

/** A tool as registered: the SDK hands over arguments it validated against `input`. */
export interface ToolSpec extends Omit<ToolDef<z.ZodObject>, 'run'> {
  run: (ctx: ToolContext, args: unknown) => Promise<ToolResult>;
}

/** Erases a tool's argument type for the list; the arguments are parsed with the tool's own schema, so the type run() sees is the one it gets. */
export function tool<I extends z.ZodObject>(def: ToolDef<I>): ToolSpec {
  return { ...def, run: (ctx, args) => def.run(ctx, def.input.parse(args ?? {})) };
}

export interface ToolContext {
  deps: Deps;
  auth: McpAuth;
  /** Asks the patient through the client (MCP elicitation), when the client declared it. */
  elicit?: Elicit | undefined;
}

export const locale = (ctx: ToolContext): Locale => (isLocale(ctx.auth.locale) ? ctx.auth.locale : 'en');
export const paging = (a: { limit?: number; offset?: number }) => ({ limit: a.limit ?? 20, offset: a.offset ?? 0 });

/**
 * Free-text inputs the owning service does not read itself (an injection's dose and medication): the
 * one detector reads them too, and a red flag goes on the desk as a connector input (docs/red-flags.md).
 */
export async function screenInputs(ctx: ToolContext, ...texts: (string | undefined)[]) {
  const s = await screenFreeText(ctx.deps.db, { userId: ctx.auth.userId, source: 'connector', sourceId: null, texts, about: 'note' });
  return s.emergency;
}

/** A message as the messages service answers the patient (a sent one carries more fields). */
type PatientMessage = Awaited<ReturnType<typeof messages.readAsPatient>>[number];
export const messageOut = (m: PatientMessage) => ({ id: m.id, sender_type: m.sender_type, content: m.content, has_file: m.file !== null, is_read: m.is_read, created_at: m.created_at });

/** Files a red flag the engine raised on the desk (a connector input) and gives the notice to answer with: the notice says the team was told because the flag was just stored. */
export async function fileRedFlag(ctx: ToolContext, sourceId: string | null, codes: string[]): Promise<EmergencyNotice | null> {
  const s = await screenFreeText(ctx.deps.db, { userId: ctx.auth.userId, source: 'connector', sourceId, texts: [], about: 'report', review: { codes: codes.length ? codes : ['red_flag'], notice: true } });
  return s.emergency;
}

/** The answer of a submitting tool that did not submit: a confirmation to ask for, or the patient said no. */
export function unconfirmed(c: Exclude<Confirmation, { status: 'confirmed' }>, summary: string, rest: Record<string, unknown>): ToolResult {
  if (c.status === 'not_submitted') return { data: { status: 'not_submitted', summary, confirmation_token: null, expires_at: null, ...rest }, text: 'The patient did not confirm: nothing was submitted.' };
  return {
    data: { status: 'confirmation_required', summary, confirmation_token: c.token, expires_at: c.expiresAt, ...rest },
    text: `Nothing was submitted yet. Show the patient this summary and ask them to confirm: ${summary} When they agree, call again with the same input and confirm = "${c.token}" (valid until ${c.expiresAt}, once).`,
  };
}
