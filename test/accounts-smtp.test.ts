// SMTP outage then recovery: the code mailed while the server is down is queued, not lost, and
// delivered when the server returns; the delivered code verifies the account.
import { createServer as createNetServer } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { smtpTransport } from '../src/mail/transports.ts';
import { call, createTestContext, PASSWORD, uniqueEmail, type TestContext } from './support/harness.ts';

let ctx: TestContext;
let port: number;
let smtp: SMTPServer | undefined;
const received: { to: string; raw: string }[] = [];

async function freePort(): Promise<number> {
  const s = createNetServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const p = (s.address() as any).port;
  await new Promise((r) => s.close(r));
  return p;
}

beforeAll(async () => {
  port = await freePort();
  ctx = await createTestContext({ SMTP_URL: `smtp://127.0.0.1:${port}` }, { transport: smtpTransport(`smtp://127.0.0.1:${port}?ignoreTLS=true`) });
});
afterAll(async () => {
  await ctx?.close();
  await new Promise((r) => (smtp ? smtp.close(() => r(undefined)) : r(undefined)));
});

describe('SMTP outage', () => {
  it('queues the code while SMTP is down and delivers it when SMTP is back', async () => {
    const email = uniqueEmail('smtp');
    expect((await call(ctx, 'POST', '/v1/users/register/', { brand: true, json: { email, password: PASSWORD } })).status).toBe(200);
    expect(await ctx.deps.mail.runOnce()).toBe(0); // connection refused
    const [pending] = await ctx.db.query("select status, attempts, last_error from mail_outbox where to_address = $1", [email]);
    expect(pending).toMatchObject({ status: 'pending', attempts: 1 });

    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData(stream, session, callback) {
        let raw = '';
        stream.on('data', (c) => (raw += c));
        stream.on('end', () => {
          received.push({ to: session.envelope.rcptTo.map((r) => r.address).join(','), raw });
          callback();
        });
      },
    });
    await new Promise<void>((r) => smtp!.listen(port, '127.0.0.1', r));
    await ctx.db.query("update mail_outbox set next_attempt_at = now() where to_address = $1", [email]); // the backoff elapses
    expect(await ctx.deps.mail.runOnce()).toBe(1);
    const mail = received.find((m) => m.to === email)!;
    expect(mail).toBeDefined();
    const code = /^(\d{6})\r?$/m.exec(mail.raw)![1];
    const ok = await call(ctx, 'POST', '/v1/users/verify-email/', { brand: true, json: { email, otp: code } });
    expect(ok.status).toBe(200);
    const [sent] = await ctx.db.query("select status, text_body from mail_outbox where to_address = $1", [email]);
    expect(sent).toEqual({ status: 'sent', text_body: null });
  });
});
