// The playground's realtime tab: the page streams the microphone to the realtime listener as one of
// the tenant's active keys without ever holding the key. The console mints a single-use client
// secret for the chosen key in-process (the API's use case, src/application/mint-realtime-client-
// secret.ts: refused where the key's realtime usage is blocked) and hands the page only the secret
// and the listener's address; the page presents the secret in its session's `start`, and the session
// is the key's (billed and audited as such). Minting is a use of the key (its "last used"), as the
// API's POST /v1/realtime/client_secrets is. One `console audit` line per secret, ids only.
import type { FastifyInstance } from 'fastify';

import { mapError } from '../api/error-mapping.js';
import { mintRealtimeClientSecret } from '../application/mint-realtime-client-secret.js';
import { type ConsoleContext, type Form, html } from './console-context.js';
import { messagePage } from './console-layout.js';
import { realtimeUrlFor } from './playground-realtime-address.js';
import { realtimePage } from './playground-realtime-page.js';

/** Long enough for the page to open its socket and send `start` (a second or so), and little more. */
const SECRET_SECONDS = 30;
/** The realtime protocol's path on the listener (REALTIME.md). */
const REALTIME_PATH = '/v1/realtime';

export function registerPlaygroundRealtimeRoutes(app: FastifyInstance, ctx: ConsoleContext): void {
  app.get('/playground/realtime', async (request, reply) => {
    const session = await ctx.signedIn(request, reply);
    if (!session) return reply;
    return html(reply, realtimePage(ctx.pageUser(session), await ctx.deps.keys.list(session.user.tenant), ctx.deps.realtimeUrl !== null));
  });

  // Asked by the page's script (a form post with the session's CSRF token); answered with JSON.
  app.post('/playground/realtime/secret', async (request, reply) => {
    const session = await ctx.change(request, reply);
    if (!session) return reply;
    const realtimeUrl = ctx.deps.realtimeUrl;
    if (realtimeUrl === null) return html(reply.code(404), messagePage('Not found', 'This process serves no realtime listener.', ctx.pageUser(session)));
    const keyId = (request.body as Form).key_id ?? '';
    // Another tenant's key, a revoked one or none: answered as an unknown key.
    const key = keyId ? await ctx.deps.keys.get(keyId) : null;
    if (!key || key.tenant !== session.user.tenant || key.revokedAt !== null)
      return reply.code(404).send({ error: { code: 'not_found', message: 'No such key.' } });
    // A use of the key, as POST /v1/realtime/client_secrets is (its "last used"), whatever comes of it next.
    ctx.deps.keyUse.record(key);
    try {
      // A request of the key's, as POST /v1/realtime/client_secrets is: it takes from the key's request rate.
      ctx.deps.keyRate.take(key);
      const minted = await mintRealtimeClientSecret(
        { key, request: { expiresAfterSeconds: SECRET_SECONDS }, log: request.log },
        { secrets: ctx.deps.stores.clientSecrets, billing: ctx.deps.billing, clock: () => new Date(ctx.deps.clock()) },
      );
      ctx.audit(request, session, 'playground_realtime_secret', { keyId: key.id, expiresAt: minted.expiresAt });
      return reply.send({ client_secret: minted.value, expires_at: minted.expiresAt, url: `${realtimeUrlFor(realtimeUrl, request.hostname)}${REALTIME_PATH}` });
    } catch (error) {
      const { apiError, unexpected } = mapError(error);
      if (unexpected) throw error;
      return reply
        .code(apiError.status)
        .headers(apiError.headers)
        .send({ error: { code: apiError.code, message: apiError.message } });
    }
  });
}
