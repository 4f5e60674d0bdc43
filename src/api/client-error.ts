// Connection-level failures Node's HTTP parser reports before Fastify sees a request (malformed
// request line or headers, header overflow, request timeout). Fastify's default writes its own body
// shape; this writes the contract's envelope, with a request id for support like every response.
import type { Socket } from 'node:net';

import type { ApiError } from './api-error.js';
import { API_REFUSALS } from './api-refusals.js';
import { writeRawError } from './raw-error-response.js';
import { generateRequestId } from './request-id.js';

export function clientErrorAnswer(code: string | undefined): ApiError {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return API_REFUSALS.requestTimeout();
  if (code === 'HPE_HEADER_OVERFLOW') return API_REFUSALS.headersTooLarge();
  return API_REFUSALS.notHttp();
}

export function handleClientError(error: Error & { code?: string }, socket: Socket): void {
  // A reset or already-destroyed socket has nobody left to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) writeRawError(socket, clientErrorAnswer(error.code), generateRequestId());
  socket.destroy(error);
}
