// The uWebSockets.js transport (v20.57.0 through the pinned npm carrier of that release,
// @btc-vision/uwebsockets.js: docs/DESIGN.md "Dependencies"). Its binary is loaded directly rather
// than through the package's entry point, so that a binary that cannot load is a reason we can name:
// the `ws` transport then serves, and the start says why in one sentence. The Linux binaries need
// glibc 2.38 (Debian 13, Ubuntu 24.04); on Debian 12 (2.36) they do not load.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

import type * as Uws from '@btc-vision/uwebsockets.js';

import {
  CLOSE_BACKPRESSURE,
  CLOSE_GOING_AWAY,
  CLOSE_TOO_BIG,
  type ConnectionHandlers,
  HARD_FRAME_FACTOR,
  type ListeningTransport,
  type RealtimeConnection,
  type RealtimeTransport,
  UWS_LISTEN_FAILED,
} from './transport.js';

type UwsModule = typeof Uws;

interface SocketData {
  handlers?: ConnectionHandlers;
  connection?: RealtimeConnection;
  closed: boolean;
  /** The code a connection we cut without a close frame is reported with (backpressure). */
  cutWith?: number;
  /** Our own idle timer, as on the ws transport (uWS's own closes without a code: a backstop only). */
  idle?: NodeJS.Timeout;
}

type Loaded = { uws: UwsModule; reason: null } | { uws: null; reason: string };
let loaded: Loaded | undefined;

/** The binary for this platform and Node.js, loaded once; or why it cannot load, in one sentence. */
function loadBinary(): Loaded {
  if (loaded) return loaded;
  const binary = `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`;
  try {
    const require = createRequire(import.meta.url);
    const root = dirname(require.resolve('@btc-vision/uwebsockets.js'));
    loaded = { uws: require(join(root, binary)) as UwsModule, reason: null };
  } catch (error) {
    loaded = { uws: null, reason: whyNot(error, binary) };
  }
  return loaded;
}

/** Why the binary did not load, for the operator: the glibc it needs, a missing build, or the loader's words. */
export function whyNot(error: unknown, binary: string): string {
  const message = error instanceof Error ? error.message : String(error);
  const glibc = /GLIBC_(\d+\.\d+)' not found/.exec(message);
  if (glibc) {
    const here = (process.report.getReport() as { header?: { glibcVersionRuntime?: string } }).header?.glibcVersionRuntime ?? 'an older one';
    return `uWebSockets.js needs glibc ${glibc[1]} or newer (Debian 13, Ubuntu 24.04) and this system has ${here}`;
  }
  if ((error as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND') {
    return `uWebSockets.js has no binary for Node.js ${process.versions.node} on ${process.platform}-${process.arch} (${binary})`;
  }
  return `uWebSockets.js did not load: ${message.split('\n')[0]}`;
}

/** Why uWebSockets.js cannot serve here; null where it loads. */
export function uwsUnavailableReason(): string | null {
  return loadBinary().reason;
}

/** The transport, or null where this platform and Node.js version cannot load its binary. */
export function loadUwsTransport(): RealtimeTransport | null {
  const { uws } = loadBinary();
  if (!uws) return null;
  return {
    name: 'uws',
    async listen(host, port, paths, limits, accept): Promise<ListeningTransport> {
      const app = uws.App();
      const open = new Set<Uws.WebSocket<SocketData>>();
      const armIdle = (data: SocketData) => {
        clearTimeout(data.idle);
        data.idle = setTimeout(() => data.connection?.close(1000, 'IDLE_TIMEOUT'), limits.idleSeconds * 1000);
      };
      const behavior: Uws.WebSocketBehavior<SocketData> = {
        maxPayloadLength: limits.maxFrameBytes * HARD_FRAME_FACTOR,
        maxBackpressure: limits.maxBufferedBytes,
        closeOnBackpressureLimit: false,
        idleTimeout: Math.max(8, Math.round(limits.idleSeconds * 2)),
        sendPingsAutomatically: true,
        compression: uws.DISABLED,
        upgrade: (res, req, context) => {
          res.upgrade<SocketData>(
            { closed: false },
            req.getHeader('sec-websocket-key'),
            req.getHeader('sec-websocket-protocol'),
            req.getHeader('sec-websocket-extensions'),
            context,
          );
        },
        open: (ws) => {
          open.add(ws);
          const data = ws.getUserData();
          const connection: RealtimeConnection = {
            send(text) {
              if (data.closed) return false;
              if (ws.getBufferedAmount() > limits.maxBufferedBytes) {
                connection.close(CLOSE_BACKPRESSURE, 'BACKPRESSURE');
                return false;
              }
              return ws.send(text, false) !== 2;
            },
            bufferedBytes: () => (data.closed ? 0 : ws.getBufferedAmount()),
            close(code, reason) {
              if (data.closed) return;
              // A client that stopped reading cannot take a close frame either: cut it.
              if (code === CLOSE_BACKPRESSURE) {
                data.cutWith = code;
                ws.close();
              } else ws.end(code, reason);
            },
          };
          data.connection = connection;
          data.handlers = accept(connection);
          armIdle(data);
        },
        message: (ws, message, isBinary) => {
          const data = ws.getUserData();
          armIdle(data);
          if (message.byteLength > limits.maxFrameBytes) return data.connection?.close(CLOSE_TOO_BIG, 'FRAME_TOO_BIG');
          // The ArrayBuffer is neutered when this returns: handlers copy what they keep.
          data.handlers?.message(new Uint8Array(message), isBinary);
        },
        close: (ws, code) => {
          open.delete(ws);
          const data = ws.getUserData();
          clearTimeout(data.idle);
          if (data.closed) return;
          data.closed = true;
          data.handlers?.closed(data.cutWith ?? code);
        },
      };
      for (const path of paths) app.ws(path, behavior);
      app.any('/*', (res) => {
        res.writeStatus('426 Upgrade Required').end('WebSocket only: connect to /v1/realtime or /v1/stream\n');
      });
      const listenSocket = await new Promise<Uws.us_listen_socket>((resolve, reject) => {
        app.listen(host, port, (socket) =>
          socket ? resolve(socket) : reject(Object.assign(new Error(`the realtime listener could not bind ${host}:${port}`), { code: UWS_LISTEN_FAILED })),
        );
      });
      return {
        port: uws.us_socket_local_port(listenSocket as unknown as Uws.us_socket),
        close: async () => {
          uws.us_listen_socket_close(listenSocket);
          for (const ws of [...open]) ws.end(CLOSE_GOING_AWAY, 'SERVER_CLOSING');
        },
      };
    },
  };
}
