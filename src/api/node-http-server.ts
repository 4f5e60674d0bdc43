// What Node's HTTP server would otherwise answer, or drop, on its own, below Fastify: without a word
// of the envelope, without an x-request-id, and in two cases without any answer at all. Each rule
// is handed to the app (or answered here in the envelope):
// - an HTTP/1.1 request without Host: Node answers a bare 400 itself unless `requireHostHeader` is
//   off; http-requirements.ts refuses it in the envelope instead;
// - an Expect other than 100-continue: Node answers a bare 417 unless a 'checkExpectation' listener
//   exists; the listener passes the request on to the app, and http-requirements.ts refuses it;
// - CONNECT: with no 'connect' listener Node destroys the socket unanswered; this service is not a
//   proxy, so it answers 400 invalid_request (a malformed request for this server; there is no
//   resource to list in a 405's Allow header) and closes;
// - a client that sends a whole request and then half-closes its side (shutdown(SHUT_WR), what
//   `nc -N` or a one-shot script does) still reads: with `httpAllowHalfOpen` off Node ends the
//   connection at the client's FIN, so an answer that takes time (a transcription) is written to a
//   closed socket and the client gets nothing, while the work (or a created job) goes on. With it on,
//   Node answers every request already received and then ends the connection. The cost: a FIN no
//   longer ends a long poll early (it holds its socket until its wait, at most 30 s, is over), and a
//   client that really went away is noticed when the answer is written (its kernel refuses it and the
//   socket closes). The transcription route never stopped on a FIN anyway: it listens for the
//   request's 'close', which Node emits as soon as the body has been read;
// - a connection closed after its answer (`connection: close`, CONNECT) is destroyed at once, and a
//   client still sending then loses the answer to a reset: it closes lingering instead
//   (lingering-close.ts); Node serves no request the client sends on it meanwhile (protocol-edges.test.ts).
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

import type { FastifyBaseLogger } from 'fastify';

import { API_REFUSALS } from './api-refusals.js';
import { lingeringClose } from './lingering-close.js';
import { writeRawError } from './raw-error-response.js';
import { generateRequestId } from './request-id.js';

/** Options for `http.createServer` (Fastify's `http` option). */
export const NODE_HTTP_OPTIONS = { requireHostHeader: false } as const;

export function configureNodeHttpServer(server: Server, log: FastifyBaseLogger): void {
  // Neither in Node's typings nor its docs, but read on every FIN by its server (lib/_http_server.js,
  // socketOnEnd) for a decade; protocol-edges.test.ts fails if it ever stops working.
  (server as Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
  // Node closes a connection after its last answer with destroySoon (lib/_http_server.js, resOnFinish).
  server.on('connection', (socket: Socket & { destroySoon(): void }) => {
    socket.destroySoon = () => lingeringClose(socket);
  });
  // Node emits 'request' itself for 100-continue; any other expectation is passed on the same way.
  server.on('checkExpectation', (request, response) => server.emit('request', request, response));
  server.on('connect', (_request, socket) => {
    // Node has taken its own listeners off the socket: a reset must not become an uncaught error.
    socket.on('error', () => {});
    const requestId = generateRequestId();
    log.debug({ reqId: requestId, errorCode: 'connect_not_supported' }, 'request refused');
    writeRawError(socket, API_REFUSALS.notAProxy(), requestId);
    // Ends the connection once the answer is written (anything the client sent after it is unread).
    (socket as typeof socket & { destroySoon(): void }).destroySoon();
  });
}
