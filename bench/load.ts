// Load runs, in their own process (bench/run.ts forks it so that the load generator never shares
// an event loop or a core's time slice accounting with the server it measures): each LoadSpec drives
// autocannon once and gives one LoadResult.
//
// Latencies are collected from autocannon's per-response event (float milliseconds) rather than
// its HDR histogram, which records whole milliseconds: at 2-10 ms per request a 1 ms bucket is too
// coarse for a p50 ratio goal of 1.2.
//
// A run with `overallRate` is paced by this file, not by autocannon: autocannon's rate lets each
// connection send as fast as answers come until it has made its share for the current second, then
// waits for the next second, so "half of peak" was a burst at full speed for the first half of every
// second and an idle second half (its p99 was the saturated p99; even the floor's minimal query
// showed p50 5 ms at half its peak). paced() sends request i at start + i/rate on a keep-alive pool
// of `connections` sockets and measures each latency from that scheduled time, so a request that
// waits for a free socket counts its wait (no coordinated omission). Its connections read into a
// buffer each keeps (PacedConnection), so the measuring process makes no garbage per answer.
import { connect, type Socket } from 'node:net';
import autocannon from 'autocannon';

export interface LoadSpec {
  url: string;
  method?: 'GET' | 'POST' | 'PATCH';
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  /** Seconds. */
  duration: number;
  /** Requests per second over all connections (open-ish load); unset: as fast as answers come. */
  overallRate?: number;
  /**
   * A sequence each connection sends in turn, over and over (autocannon's `requests`), instead of one
   * request: e.g. five list reads then one profile write. Paths are relative to `url`'s origin; the
   * spec's headers go with each. Not with overallRate.
   */
  requests?: { method: 'GET' | 'POST' | 'PATCH'; path: string; body?: string; headers?: Record<string, string> }[];
}

export interface LoadResult {
  /** Answers with a 2xx status per second of the run. */
  rps: number;
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** Milliseconds over the 2xx answers; null when there was none. */
  p50: number | null;
  p90: number | null;
  p99: number | null;
  mean: number | null;
  max: number | null;
  /** Mean body bytes of a 2xx answer. */
  bytes: number;
  seconds: number;
  /** The machine's 1-minute load average when the run ended (set by bench/run.ts). */
  loadavg?: number;
  /** CPU ms the answering server process spent per 2xx answer during the run (set by bench/run.ts). */
  cpuMsPerRequest?: number;
}

function percentile(sorted: number[], p: number): number | null {
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i] ?? null;
}

const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;
const roundOrNull = (n: number | null | undefined) => (n === null || n === undefined ? null : round(n));

function summarise(latencies: number[], bytes: number, seconds: number, failures: { non2xx: number; errors: number; timeouts: number }): LoadResult {
  latencies.sort((a, b) => a - b);
  const ok = latencies.length;
  return {
    rps: round(ok / seconds, 1),
    ok,
    ...failures,
    p50: roundOrNull(percentile(latencies, 50)),
    p90: roundOrNull(percentile(latencies, 90)),
    p99: roundOrNull(percentile(latencies, 99)),
    mean: roundOrNull(ok ? latencies.reduce((a, b) => a + b, 0) / ok : null),
    max: roundOrNull(latencies[latencies.length - 1]),
    bytes: ok ? Math.round(bytes / ok) : 0,
    seconds: round(seconds),
  };
}

/**
 * One keep-alive HTTP/1.1 connection of the paced client. It reads into one buffer it keeps
 * (net's `onread`), so taking in an answer allocates nothing: node:http allocated a Buffer per read,
 * and at ~130 MB/s of 57 KB bodies the load process's own garbage collection (major collections
 * every half second, pauses up to 13 ms) showed up as the server's tail latency. Answers must carry
 * a Content-Length (the service and the floor send one); anything else counts as an error.
 */
class PacedConnection {
  private readonly socket: Socket;
  private readonly buffer = Buffer.allocUnsafe(256 * 1024);
  private head = '';
  private inBody = false;
  private remaining = 0;
  private status = 0;
  private size = 0;
  private scheduled = 0;
  busy = false;

  constructor(
    url: URL,
    private readonly onAnswer: (connection: PacedConnection, scheduled: number, status: number, size: number) => void,
    private readonly onError: (scheduled: number | undefined) => void,
  ) {
    this.socket = connect({
      host: url.hostname,
      port: Number(url.port),
      onread: { buffer: this.buffer, callback: (n) => this.read(n) },
    });
    this.socket.setNoDelay(true);
    this.socket.on('error', () => this.fail());
    this.socket.on('close', () => this.fail());
  }

  send(request: Buffer, scheduled: number): void {
    this.busy = true;
    this.scheduled = scheduled;
    this.head = '';
    this.inBody = false;
    this.socket.write(request);
  }

  close(): void {
    this.socket.removeAllListeners('close');
    this.socket.destroy();
  }

  private fail(): void {
    const was = this.busy ? this.scheduled : undefined;
    this.busy = false;
    this.onError(was);
  }

  private read(n: number): boolean {
    let at = 0;
    if (!this.inBody) {
      // The head is a few hundred bytes: read as text (at most 4 KB of the read), the body never is.
      const text = this.head + this.buffer.toString('latin1', 0, Math.min(n, 4096));
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) {
        if (n > 4096) this.socket.destroy();
        else this.head = text;
        return true;
      }
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(text);
      const length = /\r\ncontent-length:\s*(\d+)/i.exec(text.slice(0, end + 2));
      if (!status || !length) {
        this.socket.destroy();
        return false;
      }
      this.status = Number(status[1]);
      this.remaining = Number(length[1]);
      this.size = this.remaining;
      this.inBody = true;
      at = end + 4 - this.head.length;
    }
    this.remaining -= n - at;
    if (this.remaining <= 0) {
      this.busy = false;
      this.onAnswer(this, this.scheduled, this.status, this.size);
    }
    return true;
  }
}

/** An open-loop run at `overallRate` requests per second, evenly spaced (see the file comment). */
function paced(spec: LoadSpec & { overallRate: number }): Promise<LoadResult> {
  const url = new URL(spec.url);
  const headers = { host: url.host, connection: 'keep-alive', ...(spec.body ? { 'content-length': String(Buffer.byteLength(spec.body)) } : {}), ...spec.headers };
  const request = Buffer.from(
    `${spec.method ?? 'GET'} ${url.pathname}${url.search} HTTP/1.1\r\n${Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('')}\r\n${spec.body ?? ''}`,
  );
  const interval = 1000 / spec.overallRate;
  const total = Math.round(spec.duration * spec.overallRate);
  const latencies: number[] = [];
  const failures = { non2xx: 0, errors: 0, timeouts: 0 };
  let bytes = 0;
  let sent = 0;
  let done = 0;
  // Requests due while every connection is busy wait here, timed from when they were due.
  const waiting: number[] = [];
  let waitingAt = 0;
  const start = performance.now();
  return new Promise((resolve) => {
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      clearTimeout(deadline);
      for (const c of pool) c.close();
      resolve(summarise(latencies, bytes, (performance.now() - start) / 1000, failures));
    };
    const next = (c: PacedConnection) => {
      if (waitingAt < waiting.length) c.send(request, waiting[waitingAt++]!);
    };
    const answered = (c: PacedConnection, scheduled: number, status: number, size: number) => {
      if (status >= 200 && status < 300) {
        latencies.push(performance.now() - scheduled);
        bytes += size;
      } else failures.non2xx++;
      if (++done >= total) return finish();
      next(c);
    };
    const failed = (scheduled: number | undefined) => {
      if (finished) return;
      if (scheduled !== undefined) failures.errors++;
      if (scheduled !== undefined && ++done >= total) finish();
    };
    const pool: PacedConnection[] = [];
    for (let i = 0; i < spec.connections; i++) pool.push(new PacedConnection(url, answered, failed));
    // Whatever has not been answered 10 s after the last request was due is a timeout.
    const deadline = setTimeout(() => {
      failures.timeouts += total - done;
      finish();
    }, spec.duration * 1000 + 10_000);
    const tick = () => {
      const now = performance.now();
      while (sent < total && start + sent * interval <= now) {
        waiting.push(start + sent++ * interval);
        const idle = pool.find((c) => !c.busy);
        if (idle) next(idle);
      }
      if (sent < total) setTimeout(tick, Math.max(0, start + sent * interval - performance.now()));
    };
    tick();
  });
}

export function runLoad(spec: LoadSpec): Promise<LoadResult> {
  if (spec.overallRate) {
    if (spec.requests) throw new Error('load: a paced run sends one request, not a sequence');
    return paced({ ...spec, overallRate: spec.overallRate });
  }
  return new Promise((resolve, reject) => {
    const latencies: number[] = [];
    let bytes = 0;
    const started = process.hrtime.bigint();
    const instance = autocannon(
      {
        url: spec.url,
        method: spec.method ?? 'GET',
        headers: spec.headers,
        body: spec.body,
        ...(spec.requests ? { requests: spec.requests.map((r) => ({ ...r, headers: { ...spec.headers, ...r.headers } })) } : {}),
        connections: spec.connections,
        pipelining: 1,
        duration: spec.duration,
        timeout: 10,
      },
      (err: Error | null, result: { non2xx: number; errors: number; timeouts: number; '2xx': number }) => {
        if (err) return reject(err);
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        resolve(summarise(latencies, bytes, seconds, { non2xx: result.non2xx, errors: result.errors, timeouts: result.timeouts }));
      },
    );
    instance.on('response', (_client: unknown, statusCode: number, resBytes: number, responseTime: number) => {
      if (statusCode >= 200 && statusCode < 300) {
        latencies.push(responseTime);
        bytes += resBytes;
      }
    });
  });
}

// As a process: `node --import tsx bench/load.ts '<LoadSpec JSON>'` prints one result; forked with
// an IPC channel (bench/run.ts keeps two such workers for the whole run, so that no measured run
// waits for a process start) it answers each `{id, spec}` message with `{id, result}` or `{id, error}`.
if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop() ?? '\0')) {
  if (process.send) {
    process.on('message', (message: { id: number; spec: LoadSpec }) => {
      runLoad(message.spec).then(
        (result) => process.send?.({ id: message.id, result }),
        (err: unknown) => process.send?.({ id: message.id, error: String(err) }),
      );
    });
  } else {
    const spec = JSON.parse(process.argv[2] ?? '{}') as LoadSpec;
    runLoad(spec)
      .then((result) => {
        process.stdout.write(`${JSON.stringify(result)}\n`);
      })
      .catch((err: unknown) => {
        console.error(err);
        process.exit(1);
      });
  }
}
