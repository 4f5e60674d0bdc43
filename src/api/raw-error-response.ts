// The error envelope written straight onto a socket, for the few answers that are given where no
// request object exists: the HTTP parser failed (client-error.ts), or Node has handed the socket
// over (CONNECT, node-http-server.ts). Same body, content type and x-request-id as every other
// error; the connection closes after it, since what follows on it cannot be trusted.
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';

import type { ApiError } from './api-error.js';
import { ERROR_CONTENT_TYPE } from './error-envelope.js';
import { REQUEST_ID_HEADER } from './request-id.js';

export function writeRawError(socket: Duplex, answer: ApiError, requestId: string): void {
  const body = JSON.stringify(answer.toBody());
  socket.write(
    `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? 'Error'}\r\n` +
      `Content-Type: ${ERROR_CONTENT_TYPE}\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      `${REQUEST_ID_HEADER}: ${requestId}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
}
