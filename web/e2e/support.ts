// What the browser journey (e2e/journey.ts) and the Lighthouse run (scripts/lighthouse.ts) share:
// a free port, the service started on a throw-away data directory and waited for, and the mails the
// service writes to its .eml outbox (DATA_DIR/outbox) read back as text.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

export function fail(msg: string): never {
  throw new Error(msg);
}

export async function freePort(): Promise<number> {
  return new Promise((ok) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => ok(port));
    });
  });
}

/** Starts `node <args>` in `cwd` with `env` and resolves once GET /readyz on `port` answers 200. */
export async function startService(args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; port: number }): Promise<ChildProcess> {
  const child = spawn(process.execPath, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'inherit', 'inherit'] });
  for (let i = 0; i < 200; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${options.port}/readyz`)).ok) return child;
    } catch {
      /* not yet */
    }
    if (child.exitCode !== null) fail('the server exited');
    await new Promise((r) => setTimeout(r, 300));
  }
  fail('the server did not become ready');
}

// ---- mail: the newest .eml to an address, decoded (quoted-printable or base64 text part) ----------
function decodePart(headers: string, body: string): string {
  if (/content-transfer-encoding:\s*base64/i.test(headers)) return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (/content-transfer-encoding:\s*quoted-printable/i.test(headers))
    return Buffer.from(body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/gi, (_, h) => String.fromCharCode(parseInt(h, 16))), 'latin1').toString('utf8');
  return body;
}

export function mailText(raw: string): string {
  const [head, ...rest] = raw.split(/\r?\n\r?\n/);
  const body = rest.join('\n\n');
  const boundary = /boundary="?([^";\r\n]+)"?/i.exec(head)?.[1];
  if (!boundary) return decodePart(head, body);
  const parts = body.split(`--${boundary}`).slice(1);
  const text = parts.find((p) => /content-type:\s*text\/plain/i.test(p)) ?? parts[0] ?? '';
  const [ph, ...pb] = text.replace(/^\r?\n/, '').split(/\r?\n\r?\n/);
  return decodePart(ph, pb.join('\n\n'));
}

/** The first capture (else the match) of `match` in the newest mail to `to` written at or after `after` (ms). */
export async function waitForMail(dataDir: string, to: string, match: RegExp, after = 0): Promise<string> {
  const dir = join(dataDir, 'outbox');
  for (let i = 0; i < 100; i++) {
    if (existsSync(dir)) {
      const files = readdirSync(dir).filter((f) => f.endsWith('.eml')).sort().reverse();
      for (const f of files) {
        if (Number(f.split('-')[0]) < after) continue;
        const raw = readFileSync(join(dir, f), 'utf8');
        if (!new RegExp(`^To:.*${to.replace(/[.+]/g, '\\$&')}`, 'im').test(raw)) continue;
        const text = mailText(raw);
        const m = match.exec(text);
        if (m) return m[1] ?? m[0];
      }
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  fail(`no mail to ${to} matching ${match}`);
}
