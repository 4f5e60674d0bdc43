// What a refused credential check says, and its Retry-After: the same words wherever the check is
// (sign-in, its code step, the account page). The lock of an email from an address reads the same for
// every email, an account's or not; the account's own lock is told only to someone who gave its
// password or holds its session.
import type { FastifyReply } from 'fastify';

import type { Notice } from './console-layout.js';

function wait(waitMs: number): string {
  const minutes = Math.max(1, Math.ceil(waitMs / 60_000));
  return `try again in ${minutes} minute${minutes === 1 ? '' : 's'}`;
}

export const tooMany = {
  fromAddress: (waitMs: number): Notice => ({ kind: 'error', text: `Too many sign-in attempts from this address: ${wait(waitMs)}.` }),
  forEmail: (waitMs: number): Notice => ({ kind: 'error', text: `Too many failed sign-ins for this email from this address: ${wait(waitMs)}.` }),
  onAccount: (waitMs: number): Notice => ({ kind: 'error', text: `Too many failed attempts on this account: ${wait(waitMs)}.` }),
};

/** 429 with Retry-After in whole seconds. */
export function refusedFor(reply: FastifyReply, waitMs: number): FastifyReply {
  return reply.code(429).header('retry-after', String(Math.max(1, Math.ceil(waitMs / 1000))));
}
