// The signalling channel as server-sent events (docs/appointments.md, "Signalling"): one long GET per
// participant, authorised by the call pass in the X-Call-Token header, that pushes the other
// participant's signals as they arrive. The relay stays the database (call_signals): each open stream
// reads its participant's new signals every STREAM_POLL_MS, so a signal POSTed through any process
// reaches a stream held by any other (two processes behind a load balancer). One small indexed read
// per open stream and tick is cheap at the scale of 1:1 calls, and works the same on the embedded
// database (which has no LISTEN/NOTIFY here) and on PostgreSQL.
//
// Events: `presence` {peer_present, expires_at} first and on each change; `signal` {seq, type,
// payload, sent_at} with `id: <seq>` (a reconnecting client sends Last-Event-ID or `after`); a
// comment line `: heartbeat` after HEARTBEAT_MS without a write (proxies keep the connection); and a
// last `end` {reason: hung_up | expired | cancelled | replaced | shutdown} before the server closes the
// stream: the participant hung up (its `bye`), the call's window ended, the appointment was cancelled,
// a newer stream of the same pass took over, or the process is shutting down (reconnect elsewhere).
import { PassThrough } from 'node:stream';
import type { Deps } from '../../deps.ts';
import { notFound } from '../../http/errors.ts';
import { passState, signalsOf } from './service.ts';

/** How often an open stream reads the database for new signals. */
export const STREAM_POLL_MS = 500;
/** A comment line after this long without a write. */
export const HEARTBEAT_MS = 15_000;
/** How often the stream marks its participant present (presence counts 15 seconds). */
const TOUCH_MS = 5_000;

/**
 * The open streams of this process, by call pass: one per pass (a new one, e.g. a client reconnecting
 * before the server noticed the old connection drop, replaces the older, which ends with `replaced`),
 * so a pass cannot hold many polling loops open; all end when the process shuts down.
 */
export class SignalStreams {
  private readonly open = new Map<string, (reason: string) => void>();
  add(key: string, stop: (reason: string) => void): () => void {
    this.open.get(key)?.('replaced');
    this.open.set(key, stop);
    return () => {
      if (this.open.get(key) === stop) this.open.delete(key);
    };
  }
  closeAll(): void {
    for (const stop of [...this.open.values()]) stop('shutdown');
  }
  get size(): number {
    return this.open.size;
  }
}

const frame = (event: string, data: unknown, id?: number) => `${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/**
 * Opens the participant's stream: 404 (thrown before any byte is written) for a pass that is unknown,
 * ended, cancelled or outside the call's window, as the poll answers. The stream ends itself when the
 * pass closes; `streams` ends it when the process shuts down; the client's disconnect ends the loop.
 */
export async function openSignalStream(deps: Deps, streams: SignalStreams, token: string, after: number): Promise<PassThrough> {
  const first = await passState(deps, token);
  if (!first.open) throw notFound();
  const out = new PassThrough();
  let last = after;
  let present: boolean | null = null;
  let lastWrite = Date.now();
  let lastTouch = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;

  const write = (chunk: string) => {
    lastWrite = Date.now();
    out.write(chunk);
  };
  const stop = (reason?: string) => {
    if (stopped) return;
    stopped = true;
    clearTimeout(timer);
    forget();
    if (reason) out.write(frame('end', { reason }));
    out.end();
  };
  const forget = streams.add(first.pass.token_hash, stop);
  // The client went away (or the response was destroyed): stop reading for it.
  out.on('close', () => stop());

  const tick = async () => {
    timer = undefined;
    if (stopped) return;
    try {
      const state = await passState(deps, token);
      if (stopped) return;
      if (!state.open) {
        stop(state.closed === 'not_yet' ? 'expired' : state.closed);
        return;
      }
      const touch = Date.now() - lastTouch >= TOUCH_MS;
      if (touch) lastTouch = Date.now();
      const s = await signalsOf(deps, state.pass, last, touch);
      if (stopped) return;
      if (s.peer_present !== present) {
        present = s.peer_present;
        write(frame('presence', { peer_present: s.peer_present, expires_at: s.expires_at }));
      }
      for (const m of s.messages) {
        last = Math.max(last, m.seq);
        write(frame('signal', m, m.seq));
      }
      if (Date.now() - lastWrite >= HEARTBEAT_MS) write(': heartbeat\n\n');
    } catch {
      // A database hiccup: the next tick tries again (the client keeps its connection).
    }
    if (!stopped) timer = setTimeout(() => void tick(), STREAM_POLL_MS);
  };
  // The reconnection delay a client should use, and a first byte so that proxies pass the headers on.
  write('retry: 2000\n: connected\n\n');
  void tick();
  return out;
}
