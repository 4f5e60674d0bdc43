// Connection-level failures Node's HTTP parser reports before Fastify sees a request (malformed
// request line or headers, header overflow, request timeout). Fastify's default writes its own body
// shape; this writes the contract's envelope, with a request id for support like every response.
import type { Socket } from 'node:net';
import { ApiError } from './api-error.js';
import { generateRequestId, REQUEST_ID_HEADER } from './request-id.js';
import { ERROR_CONTENT_TYPE } from './error-envelope.js';

const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' };

export function clientErrorAnswer(code: string | undefined): ApiError {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return new ApiError(408, 'upload_timeout', 'the request was not received in time; retry as a new request');
  }
  if (code === 'HPE_HEADER_OVERFLOW') return new ApiError(431, 'invalid_request', 'the request headers are too large');
  return new ApiError(400, 'invalid_request', 'the request is not valid HTTP');
}

export function handleClientError(error: Error & { code?: string }, socket: Socket): void {
  // A reset or already-destroyed socket has nobody left to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) {
    const answer = clientErrorAnswer(error.code);
    const body = JSON.stringify(answer.toBody());
    socket.write(
      `HTTP/1.1 ${answer.status} ${STATUS_TEXT[answer.status]}\r\n` +
        `Content-Type: ${ERROR_CONTENT_TYPE}\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `${REQUEST_ID_HEADER}: ${generateRequestId()}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  }
  socket.destroy(error);
}
