// The mail outbox: rows written in the caller's transaction, delivered by the dispatcher, retried
// with backoff while the transport fails, suppressed on a permanent rejection, bodies blanked once
// sent, and `.eml` files that appear whole.
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDispatcher, enqueueMail, type MailTemplate } from '../src/mail/outbox.ts';
import { fileTransport, type MailTransport, type OutgoingMail } from '../src/mail/transports.ts';
import { createTestContext, type TestContext, firstRow } from './support/harness.ts';

const hello: MailTemplate<{ name: string }> = {
  name: 'test_hello',
  en: (v) => ({ subject: 'Hello', text: `Hello ${v.name}` }),
  de: (v) => ({ subject: 'Hallo', text: `Hallo ${v.name}` }),
  es: (v) => ({ subject: 'Hola', text: `Hola ${v.name}` }),
  fr: (v) => ({ subject: 'Bonjour', text: `Bonjour ${v.name}` }),
  it: (v) => ({ subject: 'Ciao', text: `Ciao ${v.name}` }),
  nl: (v) => ({ subject: 'Hallo', text: `Hallo ${v.name}` }),
  pt: (v) => ({ subject: 'Olá', text: `Olá ${v.name}` }),
};
const silent = { warn: () => undefined };

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => ctx?.close());

describe('mail outbox', () => {
  it('renders in the locale, delivers once, and blanks the stored body', async () => {
    const sent: OutgoingMail[] = [];
    const dispatcher = createDispatcher(ctx.db, { send: async (m) => void sent.push(m) }, 'from@test', silent);
    await ctx.db.tx((q) => enqueueMail(q, 'de@example.org', hello, 'de', { name: 'Ada' }));
    expect(await dispatcher.runOnce()).toBe(1);
    expect(await dispatcher.runOnce()).toBe(0);
    expect(sent).toMatchObject([{ to: 'de@example.org', subject: 'Hallo', text: 'Hallo Ada' }]);
    const row = firstRow(await ctx.db.query("select status, text_body from mail_outbox where to_address = 'de@example.org'"));
    expect(row).toEqual({ status: 'sent', text_body: null });
  });

  it('writes nothing when the surrounding transaction rolls back', async () => {
    await expect(
      ctx.db.tx(async (q) => {
        await enqueueMail(q, 'rollback@example.org', hello, 'en', { name: 'x' });
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await ctx.db.query("select 1 from mail_outbox where to_address = 'rollback@example.org'")).toEqual([]);
  });

  it('keeps a mail pending through a transport outage and delivers it afterwards', async () => {
    let down = true;
    const sent: OutgoingMail[] = [];
    const flaky: MailTransport = {
      send: async (m) => {
        if (down) throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
        sent.push(m);
      },
    };
    const dispatcher = createDispatcher(ctx.db, flaky, 'from@test', silent);
    await ctx.db.tx((q) => enqueueMail(q, 'outage@example.org', hello, 'en', { name: 'Ada' }));
    expect(await dispatcher.runOnce()).toBe(0);
    const [pending] = await ctx.db.query("select status, attempts, next_attempt_at > now() as backed_off from mail_outbox where to_address = 'outage@example.org'");
    expect(pending).toEqual({ status: 'pending', attempts: 1, backed_off: true });
    down = false;
    await ctx.db.query("update mail_outbox set next_attempt_at = now() where to_address = 'outage@example.org'"); // the backoff elapses
    expect(await dispatcher.runOnce()).toBe(1);
    expect(sent.map((m) => m.to)).toEqual(['outage@example.org']);
  });

  it('suppresses an address the SMTP server rejects permanently', async () => {
    const rejecting: MailTransport = {
      send: async () => {
        throw Object.assign(new Error('550 mailbox unavailable'), { responseCode: 550, response: '550 5.1.1 no such user' });
      },
    };
    const dispatcher = createDispatcher(ctx.db, rejecting, 'from@test', silent);
    await ctx.db.tx((q) => enqueueMail(q, 'Bounce@Example.org', hello, 'en', { name: 'x' }));
    await dispatcher.runOnce();
    const row = firstRow(await ctx.db.query("select status from mail_outbox where to_address = 'Bounce@Example.org'"));
    expect(row.status).toBe('bounced');
    expect(await ctx.db.query("select reason from email_suppressions where email = 'bounce@example.org'")).toEqual([{ reason: 'hard_bounce' }]);
  });

  it('writes .eml files under a temporary name and renames them whole', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'eml-')), 'outbox');
    const t = fileTransport(dir);
    await t.send({ id: '00000000-0000-4000-8000-000000000001', from: 'a@test', to: 'b@example.org', subject: 'Code', text: 'Your code: 123456' });
    const files = readdirSync(dir);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/\.eml$/);
    const raw = readFileSync(join(dir, files[0]!), 'utf8');
    expect(raw).toMatch(/^To: b@example.org$/m);
    expect(raw).toContain('123456');
    expect(existsSync(join(dir, `.${files[0]}.tmp`))).toBe(false);
  });
});
