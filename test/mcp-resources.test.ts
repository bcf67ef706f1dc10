// The connector's resources, prompts, completion and logging (conformance): the patient's
// own records as read-only resources (another patient's real consultation id is not found), two
// prompts with a completable argument, completion of consultation ids, logging/setLevel, and the
// patient:read scope on resources/read. Over HTTP with the SDK's own client.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MCP_URL, MemoryProvider, authorize, connectAs, listen, patientWithPassword, type Fetch } from './mcp-support.ts';
import { TEST_BASE_URL, createTestContext, firstRow, type Patient, type TestContext } from './support/harness.ts';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

let ctx: TestContext;
let f: Fetch;
let a: Patient;
let b: Patient;
let clientA: Client;
let clientB: Client;
let consultationA: string;
beforeAll(async () => {
  ctx = await createTestContext();
  f = await listen(ctx);
  a = await patientWithPassword(ctx);
  b = await patientWithPassword(ctx);
  consultationA = firstRow(await ctx.db.query(
    "insert into consultations (user_id, category, status, origin, plan, supply_days, treatment_id, dosage) values ($1, 'hair_growth', 'pending_review', 'checkout', 'one_off', 30, 'finasteride', '1 mg') returning id",
    [a.id],
  )).id as string;
  ({ client: clientA } = await connectAs(f, a.email, new MemoryProvider('http://127.0.0.1:53701/callback')));
  ({ client: clientB } = await connectAs(f, b.email, new MemoryProvider('http://127.0.0.1:53702/callback')));
});
afterAll(async () => {
  await clientA?.close();
  await clientB?.close();
  await ctx?.close();
});

const text = (r: { contents: unknown[] }) => JSON.parse(String((r.contents[0] as { text: string }).text));

describe('resources', () => {
  it('lists the patient’s records and their own consultations; reads them as JSON', async () => {
    const list = await clientA.listResources();
    const uris = list.resources.map((r) => r.uri);
    expect(uris).toEqual(expect.arrayContaining(['patient://profile', 'patient://consultations', 'patient://plans', `patient://consultations/${consultationA}`]));
    for (const r of list.resources) expect(r.name).toBeTruthy();
    expect((await clientB.listResources()).resources.map((r) => r.uri)).not.toContain(`patient://consultations/${consultationA}`);
    const templates = await clientA.listResourceTemplates();
    expect(templates.resourceTemplates.map((t) => t.uriTemplate)).toEqual(['patient://consultations/{id}']);

    const profile = await clientA.readResource({ uri: 'patient://profile' });
    expect(profile.contents[0]).toMatchObject({ uri: 'patient://profile', mimeType: 'application/json' });
    expect(text(profile).id).toBe(a.id);
    expect(text(await clientB.readResource({ uri: 'patient://profile' })).id).toBe(b.id);
    expect(text(await clientA.readResource({ uri: 'patient://consultations' })).results.map((c: { id: string }) => c.id)).toEqual([consultationA]);
    expect(text(await clientA.readResource({ uri: 'patient://plans' }))).toMatchObject({ count: 0 });
    const one = await clientA.readResource({ uri: `patient://consultations/${consultationA}` });
    expect(text(one)).toMatchObject({ id: consultationA, category: 'hair_growth', status: 'pending_review' });
  });

  it('patient B reading A’s real consultation id: not found, nothing of A’s answered', async () => {
    const err = await clientB.readResource({ uri: `patient://consultations/${consultationA}` }).then(
      () => null,
      (e: unknown) => e as { code?: number; message?: string },
    );
    expect(err).not.toBeNull();
    expect(err!.code).toBe(-32002);
    expect(String(err!.message)).not.toContain('hair_growth');
    const calls = await ctx.db.query("select outcome from mcp_tool_calls where user_id = $1 and tool = 'resource:patient://consultations/{id}'", [b.id]);
    expect(calls.map((c) => c.outcome)).toEqual(['refused:404']);
  });

  it('resources/read needs patient:read (the step-up 403)', async () => {
    const reg = await f(`${TEST_BASE_URL}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:9/cb'], token_endpoint_auth_method: 'none', client_name: 'Writer' }),
    }).then((r) => r.json());
    const verifier = 'w'.repeat(64);
    const { createHash } = await import('node:crypto');
    const url = new URL(`${TEST_BASE_URL}/oauth/authorize`);
    url.search = new URLSearchParams({ response_type: 'code', client_id: reg.client_id, redirect_uri: 'http://127.0.0.1:9/cb', code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256', scope: 'journal:write', resource: MCP_URL }).toString();
    const flow = await authorize(f, url, a.email);
    const tok = await f(`${TEST_BASE_URL}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: flow.code!, code_verifier: verifier, redirect_uri: 'http://127.0.0.1:9/cb', client_id: reg.client_id, resource: MCP_URL }),
    }).then((r) => r.json());
    expect(tok.scope).toBe('journal:write');
    const rpc = (body: unknown) =>
      f(MCP_URL, { method: 'POST', headers: { authorization: `Bearer ${tok.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' }, body: JSON.stringify(body) });
    const read = await rpc({ jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: 'patient://profile' } });
    expect(read.status).toBe(403);
    expect(read.headers.get('www-authenticate')).toContain('scope="journal:write patient:read"');
    // Listing names no record content: allowed.
    expect((await rpc({ jsonrpc: '2.0', id: 2, method: 'resources/list' })).status).toBe(200);
  });
});

describe('prompts, completion, logging', () => {
  it('lists and gets the prompts; completes the category argument and consultation ids; answers logging/setLevel', async () => {
    const prompts = await clientA.listPrompts();
    expect(prompts.prompts.map((p) => p.name).sort()).toEqual(['prepare_renewal', 'progress_check_in']);
    for (const p of prompts.prompts) expect(p.description).toBeTruthy();
    const got = await clientA.getPrompt({ name: 'prepare_renewal', arguments: { category: 'weight_loss' } });
    expect(JSON.stringify(got.messages)).toContain('weight_loss');
    expect(JSON.stringify(got.messages)).toContain('explicitly say yes');

    const done = await clientA.complete({ ref: { type: 'ref/prompt', name: 'prepare_renewal' }, argument: { name: 'category', value: 'we' } });
    expect(done.completion.values).toEqual(['weight_loss']);
    const ids = await clientA.complete({ ref: { type: 'ref/resource', uri: 'patient://consultations/{id}' }, argument: { name: 'id', value: consultationA.slice(0, 4) } });
    expect(ids.completion.values).toEqual([consultationA]);
    const none = await clientB.complete({ ref: { type: 'ref/resource', uri: 'patient://consultations/{id}' }, argument: { name: 'id', value: consultationA.slice(0, 4) } });
    expect(none.completion.values).toEqual([]);

    await expect(clientA.setLoggingLevel('info')).resolves.toBeDefined();
    expect(clientA.getServerCapabilities()).toMatchObject({ tools: {}, logging: {}, resources: {}, prompts: {}, completions: {} });
  });
});
