// What the console answers when a request fails outside a page's own refusals: Fastify's own
// refusals (a form over the body limit, a body the console does not take) keep their status, as a
// page; anything unexpected is a 500 page, logged, its message never shown (a database's error can
// name hosts, tables and columns, and the console is open to people who are not signed in).
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';

import { html } from './console-context.js';
import { messagePage } from './console-layout.js';

export async function consoleErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const status = error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
  if (status === 500) {
    request.log.error({ err: error }, 'console request failed');
    return html(reply.code(500), messagePage('Something went wrong', 'The console could not answer this request. Try again in a moment.'));
  }
  return html(reply.code(status), messagePage('Not taken', `The console does not take this request (${status}).`));
}
