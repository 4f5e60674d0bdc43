// Deprecated request values that still work, announced on the response (docs/DESIGN.md decision 6):
// `profile` standard and turbo behave exactly as default.
import type { FastifyReply } from 'fastify';

import { DEPRECATED_PROFILES } from '../contract/request-fields.js';

export function applyProfileDeprecation(reply: FastifyReply, profile: string | null | undefined): void {
  // Only the two known values are ever written into the header, so no request content is echoed.
  if (profile === null || profile === undefined || !(DEPRECATED_PROFILES as readonly string[]).includes(profile)) return;
  reply.header('deprecation', 'true');
  reply.header('warning', `299 - "profile '${profile}' is deprecated; use 'default'"`);
}
