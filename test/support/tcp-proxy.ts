// A TCP proxy the test controls, between the app and PostgreSQL: it forwards bytes both ways until
// cut. `cut('refuse')` closes every open connection and closes each new one at once (a database that
// restarts); `cut('blackhole')` closes every open connection and accepts new ones without ever
// answering (a host that vanished: connection attempts wait for their timeout). `restore()` forwards
// again.
import { createServer, connect, type Socket } from 'node:net';

export type CutMode = 'refuse' | 'blackhole';

export interface TcpProxy {
  readonly port: number;
  /** `url` with its host and port replaced by the proxy's. */
  via(url: string): string;
  cut(mode: CutMode): void;
  restore(): void;
  /** Connections forwarded since the start (each one the app opened). */
  readonly forwarded: number;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let mode: 'open' | CutMode = 'open';
  let forwarded = 0;
  const sockets = new Set<Socket>();
  const track = (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => s.destroy());
  };
  const server = createServer((client) => {
    track(client);
    if (mode === 'refuse') return void client.destroy();
    if (mode === 'blackhole') return; // held open, never answered, until restore() or the app gives up
    forwarded++;
    const upstream = connect(target.port, target.host);
    track(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const dropAll = () => {
    for (const s of sockets) s.destroy();
  };
  return {
    port,
    via(url) {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    cut(next) {
      mode = next;
      dropAll();
    },
    restore() {
      mode = 'open';
      dropAll(); // blackholed attempts are closed: the app's retry then gets through
    },
    get forwarded() {
      return forwarded;
    },
    async close() {
      dropAll();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
