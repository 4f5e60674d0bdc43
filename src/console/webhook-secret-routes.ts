// The webhook secrets page's routes: list, create (shown once), rotate (shown once; the previous
// version keeps signing 24 h), revoke (every version stops signing at once). The store's own
// operations, as `svc-stt webhooks secret` runs them. Only the tenant's active keys: any other id
// answers as an unknown one. One audit line per change, naming the key and versions, never a secret.
// A change done answers 303 to /webhooks, its outcome (and a new secret, shown that once) in a
// one-time flash (console-flash.ts); a refusal answers with the page and its status.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

import type { ConsoleSession } from '../store/console-account-store.js';
import { WebhookSecretError } from '../store/webhook-secret-store.js';
import { type ConsoleContext, html } from './console-context.js';
import type { Notice } from './console-layout.js';
import { type KeySecrets, type ShownSecret, webhookSecretsPage } from './webhook-secrets-page.js';

const WEBHOOKS = '/webhooks';

export function registerWebhookSecretRoutes(app: FastifyInstance, ctx: ConsoleContext): void {
  const { keys, stores, clock } = ctx.deps;
  const secrets = stores.webhookSecrets;

  const activeKeys = async (tenant: string): Promise<KeySecrets[]> => {
    const nowMs = clock();
    const active = (await keys.list(tenant)).filter((k) => k.revokedAt === null);
    return Promise.all(active.map(async (key) => ({ key, versions: await secrets.list(key.id, nowMs) })));
  };
  const page = async (reply: FastifyReply, session: ConsoleSession, shown: ShownSecret | null, notice: Notice | null) =>
    html(reply, webhookSecretsPage(ctx.pageUser(session), await activeKeys(session.user.tenant), shown, notice));

  /** A change to the secrets of one of the tenant's active keys: the session and key id, or null once answered. */
  const keyChange = async (request: FastifyRequest, reply: FastifyReply): Promise<{ session: ConsoleSession; keyId: string } | null> => {
    const session = await ctx.change(request, reply);
    if (!session) return null;
    const { keyId } = request.params as { keyId: string };
    const key = await keys.get(keyId);
    // Another tenant's key, and a revoked one, are answered as unknown.
    if (!key || key.tenant !== session.user.tenant || key.revokedAt !== null) {
      await page(reply.code(404), session, null, { kind: 'error', text: 'No such key.' });
      return null;
    }
    return { session, keyId };
  };
  /** The store's refusal (a second tab already created or revoked it) as a conflict, worded as the CLI prints it. */
  const refused = async (reply: FastifyReply, session: ConsoleSession, error: unknown) => {
    if (!(error instanceof WebhookSecretError)) throw error;
    return page(reply.code(409), session, null, { kind: 'error', text: `Not done: ${error.message}.` });
  };

  app.get('/webhooks', async (request, reply) => {
    const session = await ctx.signedIn(request, reply);
    if (!session) return reply;
    const flash = ctx.flash<ShownSecret>(request, reply, WEBHOOKS);
    return page(reply, session, flash?.shown ?? null, flash?.notice ?? null);
  });
  // A change's address opened as a page (typed, or a reload after a refusal): the secrets page, not a 404.
  for (const action of ['create', 'rotate', 'revoke']) {
    app.get(`/webhooks/:keyId/${action}`, async (_request, reply) => reply.code(303).header('location', WEBHOOKS).send());
  }
  app.post('/webhooks/:keyId/create', async (request, reply) => {
    const change = await keyChange(request, reply);
    if (!change) return reply;
    const { session, keyId } = change;
    let created;
    try {
      created = await secrets.create(keyId, clock());
    } catch (error) {
      return refused(reply, session, error);
    }
    ctx.audit(request, session, 'webhook_secret_created', { keyId, version: String(created.version) });
    const notice: Notice = { kind: 'ok', text: `Signing secret version ${created.version} of ${keyId} created: it signs every event from now on.` };
    return ctx.done(request, reply, WEBHOOKS, { notice, shown: { keyId, ...created } satisfies ShownSecret });
  });
  app.post('/webhooks/:keyId/rotate', async (request, reply) => {
    const change = await keyChange(request, reply);
    if (!change) return reply;
    const { session, keyId } = change;
    const nowMs = clock();
    let rotated;
    try {
      rotated = await secrets.rotate(keyId, nowMs);
    } catch (error) {
      return refused(reply, session, error);
    }
    const previous = (await secrets.list(keyId, nowMs)).find((v) => v.version === rotated.version - 1);
    ctx.audit(request, session, 'webhook_secret_rotated', { keyId, version: String(rotated.version) });
    const overlap = previous?.usableUntil ? `; version ${previous.version} keeps signing until ${previous.usableUntil}` : '';
    const notice: Notice = { kind: 'ok', text: `Rotated: version ${rotated.version} of ${keyId} is active${overlap}.` };
    return ctx.done(request, reply, WEBHOOKS, { notice, shown: { keyId, ...rotated } satisfies ShownSecret });
  });
  app.post('/webhooks/:keyId/revoke', async (request, reply) => {
    const change = await keyChange(request, reply);
    if (!change) return reply;
    const { session, keyId } = change;
    let versions;
    try {
      versions = await secrets.revoke(keyId, clock());
    } catch (error) {
      return refused(reply, session, error);
    }
    ctx.audit(request, session, 'webhook_secret_revoked', { keyId, versions: versions.join(',') });
    const notice: Notice = {
      kind: 'ok',
      text: `Revoked: version ${versions.join(', ')} of ${keyId} no longer signs. Create a new secret before the key's next request with a webhook_url.`,
    };
    return ctx.done(request, reply, WEBHOOKS, { notice });
  });
}
