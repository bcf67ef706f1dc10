// The request log: one line per answer that carries the request as well, secrets kept out,
// and the process's batched stdout writes error lines before the logging call returns.
import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchedLogDestination } from '../src/http/logging.ts';
import { call, createTestContext, seedPatient, type TestContext } from './support/harness.ts';

type Line = { level: number; msg: string; reqId?: string; req?: { method: string; url: string; reqId: string; remoteAddress: string }; res?: { statusCode: number }; responseTime?: number };

describe('request lines', () => {
  let ctx: TestContext;
  const lines: string[] = [];
  beforeAll(async () => {
    ctx = await createTestContext({ LOG_LEVEL: 'info' }, { logStream: { write: (line: string) => void lines.push(line) } });
  });
  afterAll(async () => ctx?.close());
  const linesOf = (reqId: string) => lines.map((l) => JSON.parse(l) as Line).filter((l) => l.reqId === reqId);

  it('logs one line per answer with the request, its status and its time', async () => {
    const r = await call(ctx, 'GET', '/healthz', { headers: { 'x-request-id': 'log-test-0001' } });
    expect(r.status).toBe(200);
    const mine = linesOf('log-test-0001');
    expect(mine).toHaveLength(1);
    const [line] = mine;
    expect(line).toMatchObject({ level: 30, msg: 'request completed', req: { method: 'GET', url: '/healthz', reqId: 'log-test-0001', remoteAddress: '127.0.0.1' }, res: { statusCode: 200 } });
    expect(typeof line!.responseTime).toBe('number');
  });

  it('logs refused requests too, with no token and no secret query value in the line', async () => {
    const patient = await seedPatient(ctx);
    const ok = await call(ctx, 'GET', '/v1/users/profile/?token=s3cret-value', { token: patient.access, headers: { 'x-request-id': 'log-test-0002' } });
    expect(ok.status).toBe(200);
    const bad = await call(ctx, 'GET', '/v1/users/profile/', { token: 'not-a-token', headers: { 'x-request-id': 'log-test-0003' } });
    expect(bad.status).toBe(401);
    const [okLine] = linesOf('log-test-0002');
    expect(okLine).toMatchObject({ msg: 'request completed', res: { statusCode: 200 }, req: { url: '/v1/users/profile/?token=[redacted]' } });
    expect(linesOf('log-test-0003').find((l) => l.msg === 'request completed')).toMatchObject({ res: { statusCode: 401 } });
    const text = lines.join('');
    expect(text).not.toContain(patient.access);
    expect(text).not.toContain('s3cret-value');
  });
});

describe('batchedLogDestination', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pts-log-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('has an error or fatal line in the file when the logging call returns', () => {
    const file = join(dir, 'out.log');
    const fd = openSync(file, 'w');
    const dest = batchedLogDestination(fd);
    dest.write('{"level":30,"msg":"info before"}\n');
    dest.write('{"level":50,"msg":"an error"}\n');
    // Read synchronously: nothing asynchronous could have run in between.
    const now = readFileSync(file, 'utf8');
    expect(now).toContain('"msg":"an error"');
    // The lines before it go out with it, in order.
    expect(now.indexOf('info before')).toBeLessThan(now.indexOf('an error'));
    dest.write('{"level":60,"msg":"fatal"}\n');
    expect(readFileSync(file, 'utf8')).toContain('"msg":"fatal"');
  });

  it('writes the info lines of one turn together at its end, in order', async () => {
    const file = join(dir, 'info.log');
    const dest = batchedLogDestination(openSync(file, 'w'));
    for (let i = 0; i < 100; i++) dest.write(`{"level":30,"msg":"line ${i}"}\n`);
    // Still this turn: one batch, not yet written.
    expect(readFileSync(file, 'utf8')).toBe('');
    await new Promise((r) => setImmediate(r));
    const written = readFileSync(file, 'utf8').trim().split('\n');
    expect(written).toEqual(Array.from({ length: 100 }, (_, i) => `{"level":30,"msg":"line ${i}"}`));
  });
});
