// Idempotency-Key handling shared by routes that create work: header validation and replay.
import type { FastifyReply, FastifyRequest } from 'fastify';

import type { StoredResponse } from '../../store/idempotency-store.js';
import { API_REFUSALS } from '../api-refusals.js';
import { headerCount } from '../raw-headers.js';

export function idempotencyKeyOf(request: FastifyRequest): string | null {
  const raw = request.headers['idempotency-key'];
  if (raw === undefined) return null;
  // Node joins repeated headers with ", ": two keys must not silently become a third.
  if (headerCount(request.raw.rawHeaders, 'idempotency-key') > 1) throw API_REFUSALS.repeatedIdempotencyKey();
  // Its length is the route schema's rule (IDEMPOTENCY_HEADERS), which Fastify checked before the handler.
  return String(raw);
}

export function replay(reply: FastifyReply, response: StoredResponse) {
  for (const [name, value] of Object.entries(response.headers)) reply.header(name, value);
  return reply.code(response.status).send(response.body);
}
