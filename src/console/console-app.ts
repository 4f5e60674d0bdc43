// The developer console (SVC_CONSOLE_PORT): a tenant's people sign in with the account an operator
// invited them to, and manage the tenant's API keys. Server-rendered pages with plain forms (they work
// with a keyboard and without script); one small script module for copy buttons.
//
// Safety: sessions live in an HttpOnly, SameSite=Strict cookie (Secure unless served on loopback over
// plain HTTP) holding a random token the database keeps hashed; a sign-in always opens a new session
// (no fixation) and idle or old sessions end. Every change comes from the console's own origin (Fetch
// Metadata / Origin) and carries the session's CSRF token. Sign-ins are limited per account (locked
// after repeated failures) and per address. A user acts only on their own tenant's things: any other
// id answers as an unknown one. Every change writes one `console audit` log line (who, what, which
// id; never a secret, key or password). Each page's routes are a module of their own (session-routes,
// key-routes, ...), given one ConsoleContext (console-context.ts).
import Fastify, { type FastifyInstance, LogController } from 'fastify';

import { CONSOLE_CSS, CONSOLE_JS } from './console-assets.js';
import { consoleContext, type ConsoleDeps, html } from './console-context.js';
import { consoleErrorHandler } from './console-errors.js';
import { sameOrigin, SECURITY_HEADERS } from './console-http.js';
import { messagePage } from './console-layout.js';
import { registerKeyRoutes } from './key-routes.js';
import { registerPlaygroundRoutes } from './playground-routes.js';
import { registerSecondFactorRoutes } from './second-factor-routes.js';
import { registerSessionRoutes } from './session-routes.js';
import { registerUsageRoutes } from './usage-routes.js';
import { registerWebhookDeliveryRoutes } from './webhook-delivery-routes.js';
import { registerWebhookSecretRoutes } from './webhook-secret-routes.js';

const FORM_BODY_LIMIT = 16 * 1024;

export function buildConsoleApp(deps: ConsoleDeps): FastifyInstance {
  const ctx = consoleContext(deps);
  // Per-request lines are not logged: the console's audit lines say what changed, and who.
  const logController = new LogController({ disableRequestLogging: true });
  const app = Fastify({ loggerInstance: deps.logger, logController, trustProxy: false, bodyLimit: FORM_BODY_LIMIT });
  // Forms only (and the playground's multipart, in its own scope): a JSON or text body would reach
  // handlers that read every field as a string; it is refused (415) instead.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
  app.addHook('onSend', async (_request, reply, payload) => {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) reply.header(name, value);
    return payload;
  });
  // A change from anywhere but the console's own pages is refused before anything else is read.
  app.addHook('preHandler', async (request, reply) => {
    if (request.method === 'POST' && !sameOrigin(request.headers))
      return html(reply.code(403), messagePage('Refused', 'This change did not come from a console page.'));
  });
  app.setErrorHandler(consoleErrorHandler);

  app.get('/assets/console.css', async (_request, reply) => reply.type('text/css; charset=utf-8').send(CONSOLE_CSS));
  app.get('/assets/console.js', async (_request, reply) => reply.type('text/javascript; charset=utf-8').send(CONSOLE_JS));
  app.get('/', async (_request, reply) => reply.code(303).header('location', '/keys').send());
  // Browsers ask for it on every page: no icon, and no 404 in their console.
  app.get('/favicon.ico', async (_request, reply) => reply.code(204).send());

  registerSessionRoutes(app, ctx);
  registerKeyRoutes(app, ctx);
  registerSecondFactorRoutes(app, ctx);
  registerPlaygroundRoutes(app, ctx);
  registerWebhookSecretRoutes(app, ctx);
  registerWebhookDeliveryRoutes(app, ctx);
  registerUsageRoutes(app, ctx);
  // Signed in, the page keeps the navigation (a mistyped address is not a dead end).
  app.setNotFoundHandler(async (request, reply) => {
    const session = await ctx.currentSession(request);
    return html(reply.code(404), messagePage('Not found', 'There is no such page.', session ? ctx.pageUser(session) : null));
  });
  return app;
}
