// The deliveries page's routes: the tenant's recent webhook events (every key of the tenant's,
// revoked ones included), and redeliver (src/webhooks/redeliver-event.ts decides; another tenant's
// event answers as an unknown one). One audit line per redelivery, naming the event, job and key.
// A redelivery asked for answers 303 to the page, its notice in a one-time flash (console-flash.ts).
import type { FastifyInstance, FastifyReply } from 'fastify';

import type { ConsoleSession } from '../store/console-account-store.js';
import { redeliverEvent, type RedeliveryRefusalKind, RedeliveryRefused } from '../webhooks/redeliver-event.js';
import { type ConsoleContext, html } from './console-context.js';
import type { Notice } from './console-layout.js';
import { DELIVERIES_SHOWN, type DeliveryRow, webhookDeliveriesPage } from './webhook-deliveries-page.js';

const DELIVERIES = '/webhooks/deliveries';
const REFUSAL_STATUS: Record<RedeliveryRefusalKind, number> = { unknown_event: 404, key_revoked: 409, not_settled: 409, no_signing_secret: 409 };

export function registerWebhookDeliveryRoutes(app: FastifyInstance, ctx: ConsoleContext): void {
  const { keys, stores, clock } = ctx.deps;

  const rows = async (tenant: string): Promise<DeliveryRow[]> => {
    const tenantKeys = await keys.list(tenant);
    const revoked = new Set(tenantKeys.filter((k) => k.revokedAt !== null).map((k) => k.id));
    const deliveries = await stores.outbox.recentForKeys(
      tenantKeys.map((k) => k.id),
      DELIVERIES_SHOWN,
    );
    return deliveries.map((delivery) => ({ delivery, keyRevoked: revoked.has(delivery.keyId) }));
  };
  const page = async (reply: FastifyReply, session: ConsoleSession, notice: Notice | null) =>
    html(reply, webhookDeliveriesPage(ctx.pageUser(session), await rows(session.user.tenant), notice));

  app.get('/webhooks/deliveries', async (request, reply) => {
    const session = await ctx.signedIn(request, reply);
    if (!session) return reply;
    return page(reply, session, ctx.flash(request, reply, DELIVERIES)?.notice ?? null);
  });
  // The redelivery's address opened as a page (typed, or a reload after a refusal): the deliveries page, not a 404.
  app.get('/webhooks/deliveries/:eventId/redeliver', async (_request, reply) => reply.code(303).header('location', DELIVERIES).send());
  app.post('/webhooks/deliveries/:eventId/redeliver', async (request, reply) => {
    const session = await ctx.change(request, reply);
    if (!session) return reply;
    const { eventId } = request.params as { eventId: string };
    let event;
    try {
      event = await redeliverEvent({ outbox: stores.outbox, keys, secrets: stores.webhookSecrets }, session.user.tenant, eventId, clock());
    } catch (error) {
      if (!(error instanceof RedeliveryRefused)) throw error;
      const text = error.kind === 'unknown_event' ? 'No such event.' : `Not redelivered: ${error.message}.`;
      return page(reply.code(REFUSAL_STATUS[error.kind]), session, { kind: 'error', text });
    }
    ctx.audit(request, session, 'webhook_redelivery_requested', { eventId, jobId: event.jobId, keyId: event.keyId });
    return ctx.done(request, reply, DELIVERIES, { notice: { kind: 'ok', text: `Event ${eventId} will be sent again within seconds.` } });
  });
}
