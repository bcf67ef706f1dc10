// The connector's MCP server for one request: the tools of ./tools/ registered with their schemas and
// annotations, and the one wrapper every call goes through: free text that the emergency detector
// flags puts the emergency notice (the patient's country's number) first, a service refusal is an
// error result, and every call is recorded (no content) by the caller.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ElicitResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Deps } from '../../deps.ts';
import { ApiError } from '../../http/errors.ts';
import type { EmergencyNotice } from '../../lib/emergency.ts';
import type { McpAuth } from './oauth.ts';
import { registerExtras } from './resources.ts';
import { ELICITATION_TIMEOUT_MS, type Elicit } from './confirmation.ts';
import { TOOLS, type ToolContext } from './tools/index.ts';
import { screenInputs } from './tools/tool.ts';

export const SERVER_INFO = { name: 'patient-treatment-service', version: '1.0.0' };

/** The text of a service refusal (field errors, a 403 without an active plan, a 404...). */
function refusal(err: ApiError): string {
  const b = err.body;
  if (typeof b.detail === 'string') return b.detail;
  if (typeof b.error === 'string') return b.error;
  if (typeof b.message === 'string') return b.message;
  if (typeof b.code === 'string') return b.code;
  return Object.entries(b)
    .map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(' ') : String(v)}`)
    .join('; ');
}

/** A service refusal of a tool whose input raised a red flag: the notice still comes first. */
class ScreenedRefusal extends Error {
  constructor(
    override readonly cause: ApiError,
    readonly emergency: EmergencyNotice,
  ) {
    super('refused');
  }
}

/** Every string among a tool's arguments (nested), for the red-flag screening. */
function stringsOf(v: unknown, out: string[] = []): string[] {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) stringsOf(x, out);
  else if (v && typeof v === 'object') for (const x of Object.values(v)) stringsOf(x, out);
  return out;
}

/** One MCP server for one request (stateless): the tools of the authenticated patient. */
export function buildServer(deps: Deps, auth: McpAuth, record: (tool: string, outcome: string) => Promise<void>, opts: { elicits?: boolean } = {}): McpServer {
  const server = new McpServer(SERVER_INFO, {
    // Logging: `logging/setLevel` is answered; the stateless server sends no log notifications
    // (server logs stay on the server). Resources, prompts and completions: resources.ts.
    capabilities: { tools: {}, logging: {} },
    instructions:
      'Tools over one patient’s own records at a telemedicine service. The service is not an emergency service: when a result carries an emergency notice, show it to the patient first.',
  });
  for (const tool of TOOLS) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: `${tool.description} (scope: ${tool.scope})`,
        inputSchema: tool.input,
        outputSchema: tool.output,
        annotations: {
          title: tool.title,
          readOnlyHint: tool.readOnly,
          destructiveHint: tool.destructive ?? false,
          idempotentHint: tool.idempotent ?? tool.readOnly,
          openWorldHint: tool.openWorld ?? false,
        },
      },
      async (args: unknown, extra): Promise<CallToolResult> => {
        // The client declared form elicitation: a submitting tool asks the patient through it.
        const elicit: Elicit | undefined = opts.elicits
          ? async (message) => {
              try {
                const answer = await extra.sendRequest(
                  {
                    method: 'elicitation/create',
                    params: {
                      message,
                      requestedSchema: {
                        type: 'object',
                        properties: { confirm: { type: 'boolean', title: 'Submit', description: 'Yes: submit it now. No: nothing is submitted.', default: false } },
                        required: ['confirm'],
                      },
                    },
                  },
                  ElicitResultSchema,
                  { timeout: ELICITATION_TIMEOUT_MS },
                );
                if (answer.action !== 'accept') return answer.action;
                return answer.content?.confirm === true ? 'accept' : 'decline';
              } catch {
                return 'unavailable';
              }
            }
          : undefined;
        const ctx: ToolContext = { deps, auth, elicit };
        try {
          // A red flag in any input (a category, a symptom, a dose...) raises the desk flag and puts
          // the notice first, even when the tool then refuses. The notice's wording ("passed to the
          // medical team") is only given when the flag was stored (screenFreeText stores it).
          const texts = tool.screensItself ? [] : stringsOf(args);
          const screened = texts.length ? await screenInputs(ctx, ...texts) : null;
          const r = await tool.run(ctx, args ?? {}).catch((err: unknown) => {
            if (screened && err instanceof ApiError) throw new ScreenedRefusal(err, screened);
            throw err;
          });
          const emergency = r.emergency ?? screened;
          await record(tool.name, 'ok');
          const structured = 'emergency' in tool.output.shape ? { emergency: emergency ?? null, ...r.data } : r.data;
          const content: CallToolResult['content'] = [];
          if (emergency) content.push({ type: 'text', text: `EMERGENCY: ${emergency.message} (${emergency.number})` });
          content.push({ type: 'text', text: r.text });
          content.push({ type: 'text', text: JSON.stringify(structured) });
          return { content, structuredContent: structured };
        } catch (err) {
          if (err instanceof ScreenedRefusal) {
            await record(tool.name, `refused:${err.cause.status}`);
            const n = err.emergency;
            return { isError: true, content: [{ type: 'text', text: `EMERGENCY: ${n.message} (${n.number})` }, { type: 'text', text: refusal(err.cause) }] };
          }
          if (err instanceof ApiError) {
            await record(tool.name, `refused:${err.status}`);
            return { isError: true, content: [{ type: 'text', text: refusal(err) }] };
          }
          await record(tool.name, 'error').catch(() => undefined);
          throw err;
        }
      },
    );
  }
  registerExtras(server, { deps, auth }, record);
  return server;
}
