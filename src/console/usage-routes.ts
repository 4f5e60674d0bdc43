// The usage page and its CSV: the signed-in user's tenant only (every key of it), the current billing
// period or an earlier one (?period=YYYY-MM), read through the usage report the API's GET /v1/usage
// and the CLI use.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

import type { BillingPeriod } from '../billing/billing-period.js';
import { usageReport } from '../billing/usage-report.js';
import { type ConsoleContext, html } from './console-context.js';
import { messagePage, type PageUser } from './console-layout.js';
import { dailyUsageCsv } from './usage-csv.js';
import { usagePage, type UsageView } from './usage-page.js';

export function registerUsageRoutes(app: FastifyInstance, ctx: ConsoleContext): void {
  const { billing, stores, keys } = ctx.deps;
  /** The period asked for: the current one, or an earlier one by its label; null for anything else (answered 404). */
  const periodAsked = async (request: FastifyRequest, current: BillingPeriod): Promise<BillingPeriod | null> => {
    const asked = (request.query as { period?: unknown }).period;
    if (asked === undefined || asked === current.label) return current;
    const named = typeof asked === 'string' ? await billing.periodNamed(asked) : null;
    return named !== null && named.startMs < current.startMs ? named : null;
  };
  const noSuchPeriod = (reply: FastifyReply, user: PageUser) =>
    html(reply.code(404), messagePage('No such period', 'Usage periods are months named like 2026-10, up to the current one.', user));

  app.get('/usage', async (request, reply) => {
    const session = await ctx.signedIn(request, reply);
    if (!session) return reply;
    const tenant = session.user.tenant;
    const nowMs = ctx.deps.clock();
    const current = await billing.period(nowMs);
    const period = await periodAsked(request, current);
    if (period === null) return noSuchPeriod(reply, ctx.pageUser(session));
    const report = await usageReport({ ledger: stores.usage, billing, keys: await keys.list(tenant) }, period, tenant);
    const view: UsageView = {
      period,
      current: period.label === current.label,
      previous: (await billing.period(period.startMs - 1)).label,
      next: period.label === current.label ? null : (await billing.period(period.endMs)).label,
      nowMs,
      usage: report.tenants[0] ?? null,
      daily: await stores.usage.daily({ period: period.label, tenant }),
    };
    return html(reply, usagePage(ctx.pageUser(session), view));
  });
  app.get('/usage.csv', async (request, reply) => {
    const session = await ctx.signedIn(request, reply);
    if (!session) return reply;
    // The daily figures alone: no billing standing is read for a download.
    const period = await periodAsked(request, await billing.period(ctx.deps.clock()));
    if (period === null) return noSuchPeriod(reply, ctx.pageUser(session));
    const daily = await stores.usage.daily({ period: period.label, tenant: session.user.tenant });
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="svc-stt-usage-${period.label}.csv"`)
      .send(dailyUsageCsv(period.label, daily));
  });
}
