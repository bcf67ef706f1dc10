// The connector's resources, prompts and completions (docs/mcp.md, "Resources, prompts, completion"):
// the patient's own records as read-only resources (the same data and checks as the read tools, so
// one authorization rule: `patient:read`, checked by the route before the SDK runs), two prompts that
// start the common conversations, and completion of their arguments and of the consultation ids.
import { McpError, type ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { completable } from '@modelcontextprotocol/sdk/server/completable.js';
import { z } from 'zod';
import { CATEGORIES } from '../questionnaires/index.ts';
import { TOOLS, type ToolContext } from './tools/index.ts';

/** JSON-RPC code of an unknown resource (MCP resources spec). */
const RESOURCE_NOT_FOUND = -32002;

const STATIC = [
  { name: 'profile', uri: 'patient://profile', tool: 'get_profile_summary', title: 'My profile', description: 'The patient’s profile summary (as get_profile_summary).' },
  { name: 'consultations', uri: 'patient://consultations', tool: 'list_consultations', title: 'My consultations', description: 'The patient’s consultations, newest first (as list_consultations, up to 100).' },
  { name: 'plans', uri: 'patient://plans', tool: 'get_subscriptions', title: 'My treatment plans', description: 'The patient’s subscriptions and renewal options (as get_subscriptions).' },
] as const;

async function runRead(ctx: ToolContext, name: string, args: Record<string, unknown>) {
  const t = TOOLS.find((x) => x.name === name);
  if (!t) throw new Error(`no tool ${name}`);
  return (await t.run(ctx, args)).data;
}

const json = (uri: string, data: unknown): ReadResourceResult => ({ contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(data) }] });

type Consultation = { id: string; category: string; status: string; created_at: string };
const consultations = async (ctx: ToolContext): Promise<Consultation[]> => {
  const data = await runRead(ctx, 'list_consultations', { limit: 100 });
  return Array.isArray(data.results) ? (data.results as Consultation[]) : [];
};

/** Registers the resources, prompts and completions on one request's server. */
export function registerExtras(server: McpServer, ctx: ToolContext, record: (what: string, outcome: string) => Promise<void>): void {
  for (const r of STATIC) {
    server.registerResource(r.name, r.uri, { title: r.title, description: r.description, mimeType: 'application/json' }, async (uri) => {
      const data = await runRead(ctx, r.tool, r.tool === 'get_subscriptions' ? {} : { limit: 100 }).catch(async (err: unknown) => {
        await record(`resource:${r.uri}`, 'error').catch(() => undefined);
        throw err;
      });
      await record(`resource:${r.uri}`, 'ok');
      return json(uri.href, data);
    });
  }

  server.registerResource(
    'consultation',
    new ResourceTemplate('patient://consultations/{id}', {
      list: async () => ({
        resources: (await consultations(ctx)).map((c) => ({ uri: `patient://consultations/${c.id}`, name: `consultation-${c.id}`, title: `${c.category} (${c.status}, ${c.created_at.slice(0, 10)})`, mimeType: 'application/json' })),
      }),
      complete: { id: async (value) => (await consultations(ctx)).map((c) => c.id).filter((id) => id.startsWith(value)).slice(0, 100) },
    }),
    { title: 'One consultation', description: 'One of the patient’s consultations by id (another patient’s id is not found).', mimeType: 'application/json' },
    async (uri, vars) => {
      const id = String(vars.id);
      const found = (await consultations(ctx)).find((c) => c.id === id);
      await record('resource:patient://consultations/{id}', found ? 'ok' : 'refused:404');
      if (!found) throw new McpError(RESOURCE_NOT_FOUND, 'Resource not found', { uri: uri.href });
      return json(uri.href, found);
    },
  );

  const category = completable(z.string().describe('A treatment category slug (see list_questionnaires)'), (value) => CATEGORIES.filter((c) => c.startsWith(value ?? '')));
  server.registerPrompt(
    'prepare_renewal',
    { title: 'Prepare my renewal', description: 'Walks the patient through a renewal: what is pending, the questions, and the confirmation.', argsSchema: { category } },
    ({ category: slug }) => ({
      messages: [
        {
          role: 'user',
          content: {
            type: 'text',
            text: `Help me with the renewal of my ${slug} treatment. Read my plans and renewal options (get_subscriptions with category ${slug}) and tell me what is pending. If a renewal is waiting for my choice, ask me the renewal questions one by one, then call confirm_renewal: show me its summary and submit only after I explicitly say yes. If I mention severe or sudden symptoms, tell me first to call the emergency number.`,
          },
        },
      ],
    }),
  );
  server.registerPrompt(
    'progress_check_in',
    { title: 'Weekly check-in', description: 'Summarises the patient’s journal (weights, injections, notes) and the next injection day.' },
    () => ({
      messages: [
        {
          role: 'user',
          content: {
            type: 'text',
            text: 'Give me a short check-in on my treatment: read my journal (get_journal) and past weights (get_weights), summarise the trend since my last check-in and tell me my next injection day. Do not give medical advice; suggest I message my medical team (send_message) if something worries me.',
          },
        },
      ],
    }),
  );
}
