// A TCP proxy on loopback that stands between the service and a dependency (the database, the
// bucket) so a test can take the dependency away without touching it: cut() destroys every open
// connection and then either refuses new ones ('refuse': the listener closes, so a connect gets
// ECONNREFUSED as from a server that is down) or accepts and holds them without a byte ('blackhole':
// a network that drops packets, the case that makes clients hang unless they time out). restore()
// listens again on the same port and forwards again.
import { connect, createServer, type Server, type Socket } from 'node:net';

export type CutMode = 'refuse' | 'blackhole';

export interface FaultProxy {
  /** The loopback port to point the service at. */
  readonly port: number;
  /** Whether the link is cut now. */
  readonly isCut: boolean;
  /** Connections accepted (forwarded or held) since the start. */
  readonly connections: number;
  cut(mode?: CutMode): void;
  /** Resolves once the port accepts again. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startFaultProxy(target: { host?: string; port: number }): Promise<FaultProxy> {
  const host = target.host ?? '127.0.0.1';
  const open = new Set<Socket>();
  let mode: CutMode | null = null;
  let connections = 0;
  const track = (socket: Socket) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
    // A reset from either side is what a cut is about: nobody needs to hear of it.
    socket.on('error', () => socket.destroy());
  };

  const server: Server = createServer((client) => {
    connections++;
    track(client);
    if (mode !== null) return; // a black hole: held, silent, until restore() drops it
    const upstream = connect({ host, port: target.port });
    track(upstream);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
  });
  const listen = (on: number) => new Promise<void>((resolve, reject) => server.once('error', reject).listen(on, '127.0.0.1', resolve));
  await listen(0);
  const { port } = server.address() as { port: number };
  let listening: Promise<void> = Promise.resolve();

  // A plain close (FIN), not a reset: Node's resetAndDestroy() on a socket that is shutting down
  // fails inside libuv and leaves its handle open for ever (the process then spins at exit waiting
  // for it to close). The service sees what it sees when the database or the bucket closes its end.
  const dropAll = () => {
    for (const socket of open) socket.destroy();
  };
  return {
    port,
    get isCut() {
      return mode !== null;
    },
    get connections() {
      return connections;
    },
    cut(how: CutMode = 'refuse') {
      if (mode !== null) throw new Error('the link is already cut: restore() first');
      if (how === 'refuse') listening = new Promise<void>((resolve) => server.close(() => resolve()));
      mode = how;
      dropAll();
    },
    async restore() {
      // Connections held in a black hole never reached the target: drop them so their clients retry.
      dropAll();
      if (mode === 'refuse') listening = listening.then(() => listen(port));
      mode = null;
      await listening;
    },
    async close() {
      dropAll();
      await listening;
      if (server.listening) await new Promise((resolve) => server.close(resolve));
    },
  };
}
