// The confirmation step in front of every tool that submits something for the patient (a renewal
// confirm, a questionnaire submission): docs/mcp.md, "Steps behind a confirmation". Nothing is
// submitted before the patient said yes:
// - through MCP elicitation, when the client declared the `elicitation` capability (form mode): the
//   tool call asks the patient (a yes/no form with the summary) and goes on only on "accept" + yes;
// - otherwise in two steps: the first call answers with the summary and a confirmation token (short
//   lived, single use, bound to the patient, the grant, the tool and the hash of the exact input); the
//   same call with `confirm: <token>` submits.
// The elicitation request travels on the SSE stream of the tool call's POST; the client answers with
// a new POST, which this (stateless) endpoint routes back to the waiting call by a random request id.
import { createHash } from 'node:crypto';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Deps } from '../../deps.ts';
import { ApiError } from '../../http/errors.ts';
import { randomToken, sha256 } from '../../lib/crypto.ts';
import type { McpAuth } from './oauth.ts';
import * as repo from './repository.ts';

/** How long a two-step confirmation token is valid. */
export const CONFIRMATION_TTL_SECONDS = 600;
/** How long a tool call waits for the patient's answer to an elicitation. */
export const ELICITATION_TIMEOUT_MS = 5 * 60_000;

/** Asks the patient through the client (elicitation); `unavailable` when the client could not be asked. */
export type Elicit = (message: string) => Promise<'accept' | 'decline' | 'cancel' | 'unavailable'>;

export type Confirmation =
  | { status: 'confirmed'; via: 'elicitation' | 'token' }
  | { status: 'confirmation_required'; token: string; expiresAt: string }
  | { status: 'not_submitted' };

/** JSON with sorted keys: the same input always hashes the same. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

export const inputHash = (tool: string, bound: unknown) => createHash('sha256').update(tool).update('\0').update(canonical(bound)).digest('hex');

/** Does the client's `initialize` capabilities object declare form elicitation? */
export function elicitsForms(capabilities: Record<string, unknown>): boolean {
  const e = capabilities.elicitation;
  if (!e || typeof e !== 'object') return false;
  const modes = e as Record<string, unknown>;
  // `{}` is form mode (2025-06-18); 2025-11-25 names the modes.
  return 'form' in modes || !('url' in modes);
}

/**
 * The confirmation of one submitting call. `bound` is everything the submission depends on (the
 * input, and for a questionnaire the saved draft): a token confirms that exact content only.
 */
export async function confirmStep(
  ctx: { deps: Deps; auth: McpAuth; elicit?: Elicit | undefined },
  tool: string,
  bound: unknown,
  confirm: string | undefined,
  summary: string,
): Promise<Confirmation> {
  const { deps, auth } = ctx;
  const hash = inputHash(tool, bound);
  const now = deps.clock.now();
  if (confirm !== undefined) {
    const ok = await repo.useConfirmation(deps.db, { tokenHash: sha256(confirm), userId: auth.userId, grantId: auth.grantId, tool, inputHash: hash, now });
    if (!ok) {
      throw new ApiError(400, {
        confirm: ['This confirmation token is not valid for this input: it expired, was used, or was issued for other input. Nothing was submitted; call again without confirm to get a new one.'],
      });
    }
    return { status: 'confirmed', via: 'token' };
  }
  if (ctx.elicit) {
    const answer = await ctx.elicit(summary);
    if (answer === 'accept') return { status: 'confirmed', via: 'elicitation' };
    if (answer !== 'unavailable') return { status: 'not_submitted' };
    // The client could not be asked (no answer, or it refused the request): fall back to two steps.
  }
  const token = `mcp_cf_${randomToken(24)}`;
  const expiresAt = new Date(now.getTime() + CONFIRMATION_TTL_SECONDS * 1000);
  await repo.insertConfirmation(deps.db, { tokenHash: sha256(token), userId: auth.userId, grantId: auth.grantId, tool, inputHash: hash, expiresAt });
  return { status: 'confirmation_required', token, expiresAt: expiresAt.toISOString() };
}

// ---------------------------------------------------------------- elicitation over a stateless endpoint

interface Pending {
  grantId: string;
  deliver: (message: JSONRPCMessage) => void;
}
/** Server-to-client requests waiting for the client's answer, by their random wire id (this process only). */
const pending = new Map<string, Pending>();

type Responding = { id: string | number } & ({ result: unknown } | { error: unknown });
const isResponse = (m: unknown): m is Responding =>
  typeof m === 'object' && m !== null && !('method' in m) && 'id' in m && ('result' in m || 'error' in m);

/** A POST made only of JSON-RPC responses (a client answering the server's requests). */
export const onlyResponses = (messages: unknown[]): messages is Responding[] => messages.length > 0 && messages.every(isResponse);

/**
 * Gives every request the server sends on this transport a random wire id, so that the client's
 * answer (a new POST, to a new stateless server) finds its way back. Returns the cleanup.
 */
export function routeServerRequests(transport: Transport, grantId: string): () => void {
  const mine = new Set<string>();
  const send = transport.send.bind(transport);
  transport.send = async (message, options) => {
    if ('method' in message && 'id' in message) {
      const original = message.id;
      const wire = `srv_${randomToken(18)}`;
      mine.add(wire);
      pending.set(wire, {
        grantId,
        deliver: (answer) => {
          pending.delete(wire);
          mine.delete(wire);
          transport.onmessage?.({ ...answer, id: original });
        },
      });
      return send({ ...message, id: wire }, options);
    }
    return send(message, options);
  };
  return () => {
    for (const wire of mine) pending.delete(wire);
    mine.clear();
  };
}

/** Hands the client's answers to the calls waiting for them; false when one has no waiting call of this grant. */
export function deliverResponses(grantId: string, messages: Responding[]): boolean {
  let all = true;
  for (const m of messages) {
    const p = pending.get(String(m.id));
    // Another grant's (another patient's) request id is treated as unknown: it is not answered for them.
    if (!p || p.grantId !== grantId) {
      all = false;
      continue;
    }
    p.deliver(m as JSONRPCMessage);
  }
  return all;
}
