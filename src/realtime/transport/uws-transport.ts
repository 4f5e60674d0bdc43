// The uWebSockets.js transport (the pinned republish @trufflesuite/uws-js-unofficial, docs/DESIGN.md
// "Dependencies"). Its binary is loaded directly rather than through the package's entry point,
// which silently falls back to a JavaScript implementation: here a missing binary means the `ws`
// transport, chosen and logged by us.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

import type * as Uws from '@trufflesuite/uws-js-unofficial';

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

/** The transport, or null where this platform and Node.js version have no binary. */
export function loadUwsTransport(): RealtimeTransport | null {
  let uws: UwsModule;
  try {
    const require = createRequire(import.meta.url);
    const root = dirname(require.resolve('@trufflesuite/uws-js-unofficial/package.json'));
    uws = require(join(root, 'binaries', `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`)) as UwsModule;
  } catch {
    return null;
  }
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
        closeOnBackpressureLimit: 0,
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
