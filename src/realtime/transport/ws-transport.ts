// The `ws` transport: a Node http server upgrading on the realtime paths. Used where no uWS.js
// binary loads (Node 22+, Windows), and in the protocol tests as the second transport.
import { createServer, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';

import { type RawData, type WebSocket, WebSocketServer } from 'ws';

import {
  CLOSE_BACKPRESSURE,
  CLOSE_GOING_AWAY,
  CLOSE_TOO_BIG,
  HARD_FRAME_FACTOR,
  type ListeningTransport,
  type RealtimeConnection,
  type RealtimeTransport,
} from './transport.js';

export const wsTransport: RealtimeTransport = {
  name: 'ws',
  async listen(host, port, paths, limits, accept): Promise<ListeningTransport> {
    const wss = new WebSocketServer({ noServer: true, maxPayload: limits.maxFrameBytes * HARD_FRAME_FACTOR, perMessageDeflate: false });
    const server = createServer((_req, res) => {
      res.writeHead(426, { 'content-type': 'text/plain' }).end('WebSocket only: connect to /v1/realtime or /v1/stream\n');
    });
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      const path = (req.url ?? '').split('?')[0];
      if (!paths.includes(path)) {
        socket.end('HTTP/1.1 404 Not Found\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
        return;
      }
      wss.handleUpgrade(req, socket, head, (ws) => serve(ws));
    });

    const serve = (ws: WebSocket) => {
      let closed = false;
      // The code a connection we cut without a close frame is reported with (backpressure).
      let cutWith: number | null = null;
      let idle: NodeJS.Timeout;
      const armIdle = () => {
        clearTimeout(idle);
        idle = setTimeout(() => connection.close(1000, 'IDLE_TIMEOUT'), limits.idleSeconds * 1000);
      };
      const connection: RealtimeConnection = {
        send(text) {
          if (closed || ws.readyState !== ws.OPEN) return false;
          if (ws.bufferedAmount > limits.maxBufferedBytes) {
            connection.close(CLOSE_BACKPRESSURE, 'BACKPRESSURE');
            return false;
          }
          ws.send(text);
          return true;
        },
        bufferedBytes: () => ws.bufferedAmount,
        close(code, reason) {
          if (closed) return;
          // A client that stopped reading cannot take a close frame either: cut it.
          if (code === CLOSE_BACKPRESSURE) {
            cutWith = code;
            ws.terminate();
          } else ws.close(code, reason);
        },
      };
      const handlers = accept(connection);
      armIdle();
      ws.on('message', (data: RawData, binary: boolean) => {
        armIdle();
        const bytes = toBytes(data);
        if (bytes.length > limits.maxFrameBytes) return connection.close(CLOSE_TOO_BIG, 'FRAME_TOO_BIG');
        handlers.message(bytes, binary);
      });
      ws.on('close', (code: number) => {
        clearTimeout(idle);
        if (closed) return;
        closed = true;
        handlers.closed(cutWith ?? code);
      });
      ws.on('error', () => ws.terminate());
    };

    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    const address = server.address();
    return {
      port: typeof address === 'object' && address ? address.port : port,
      close: async () => {
        for (const client of wss.clients) client.close(CLOSE_GOING_AWAY, 'SERVER_CLOSING');
        const terminate = setTimeout(() => wss.clients.forEach((c) => c.terminate()), 2000);
        await new Promise<void>((resolve) => server.close(() => resolve()));
        clearTimeout(terminate);
        wss.close();
      },
    };
  },
};

function toBytes(data: RawData): Uint8Array {
  if (Array.isArray(data)) return Buffer.concat(data);
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  return data;
}
