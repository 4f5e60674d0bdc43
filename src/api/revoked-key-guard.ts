// The last check before an answer leaves: a request authenticated with a key that has been revoked
// since (a long inline transcription, a long poll, a result download starting) gets 401, not what
// it asked for. Routes check at their own key points too (long polls while they wait, job creation
// before committing); this hook is the backstop every route gets, including routes added later.
import './fastify-augment.js';

import type { FastifyReply, FastifyRequest } from 'fastify';

import { isKeyActive } from '../application/require-active-key.js';
import type { KeyStore } from '../store/key-store.js';
import { unauthorized } from './authenticate.js';
import { ERROR_CONTENT_TYPE } from './error-envelope.js';
import { REQUEST_ID_HEADER } from './request-id.js';

export function revokedKeyGuard(keys: Pick<KeyStore, 'get'>) {
  // Callback style: an answer without a key (public routes) is passed on synchronously (see authenticate.ts).
  return function refuseRevokedKey(
    request: FastifyRequest,
    reply: FastifyReply,
    payload: unknown,
    done: (error: Error | null, payload?: unknown) => void,
  ): void {
    const key = request.apiKey;
    if (key === null || reply.statusCode === 401) return done(null, payload);
    isKeyActive(keys, key.id).then(
      (active) => done(null, active ? payload : refusal(reply, payload)),
      (error: Error) => done(error),
    );
  };
}

/** Replaces an answer to a revoked key with 401, dropping everything the route had set. */
function refusal(reply: FastifyReply, payload: unknown): string {
  // A result stream opened for the answer is closed unread.
  if (payload && typeof (payload as { destroy?: unknown }).destroy === 'function') (payload as { destroy(): void }).destroy();
  // Nothing the route set may leak (Location of a new job, content type, deprecation notes).
  for (const name of Object.keys(reply.getHeaders())) if (name !== REQUEST_ID_HEADER) reply.removeHeader(name);
  const error = unauthorized();
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  reply.code(error.status).type(ERROR_CONTENT_TYPE);
  return JSON.stringify(error.toBody());
}
