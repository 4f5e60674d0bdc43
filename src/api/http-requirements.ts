// Two rules of HTTP itself that Node's server would enforce with a bare answer of its own and that it
// leaves to the app instead (node-http-server.ts), refused here in the envelope before anything else
// looks at the request:
// - RFC 9112 §3.2: a server MUST answer 400 to an HTTP/1.1 request without a Host header;
// - RFC 9110 §10.1.1: an expectation other than 100-continue cannot be met. The RFC allows 417
//   ("MAY"); the contract has no 417 and files a malformed request under 400 invalid_request, so
//   that is the answer: a client branching on the contract's statuses needs no extra case.
// Neither request is worth reading further: the connection closes after the answer.
import type { FastifyReply, FastifyRequest } from 'fastify';

import type { ApiError } from './api-error.js';
import { API_REFUSALS } from './api-refusals.js';

/** Node's own test for the one expectation it meets itself (lib/_http_server.js, continueExpression). */
const CONTINUE_EXPECTATION = /(?:^|\W)100-continue(?:$|\W)/i;

export function httpRequirementsHook(request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void): void {
  const refusal = refusalOf(request);
  if (refusal === null) return done();
  reply.header('connection', 'close');
  done(refusal);
}

function refusalOf(request: FastifyRequest): ApiError | null {
  const { raw } = request;
  // Both rules are HTTP/1.1's (HTTP/1.0 has no Expect and an optional Host), as Node applies them.
  if (raw.httpVersionMajor !== 1 || raw.httpVersionMinor !== 1) return null;
  if (raw.headers.host === undefined) return API_REFUSALS.missingHost();
  const expect = raw.headers.expect;
  if (expect !== undefined && !CONTINUE_EXPECTATION.test(expect)) {
    return API_REFUSALS.unmetExpectation();
  }
  return null;
}
