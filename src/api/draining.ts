// Load shedding while the server shuts down: requests that still arrive (pipelined, or on a busy
// keep-alive connection) get 503 service_unavailable with Retry-After, so a load balancer or client
// retries elsewhere. This stands in for Fastify's return503OnClosing, whose body is not the envelope.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

import { serviceUnavailable } from './capacity.js';

export const DRAINING_RETRY_AFTER_SECONDS = 5;

export function registerDraining(app: FastifyInstance): void {
  let draining = false;
  app.addHook('preClose', (done) => {
    draining = true;
    done();
  });
  app.addHook('onRequest', (_request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => {
    if (!draining) return done();
    reply.header('connection', 'close');
    done(serviceUnavailable(DRAINING_RETRY_AFTER_SECONDS, 'the server is shutting down; retry after the Retry-After interval'));
  });
}
