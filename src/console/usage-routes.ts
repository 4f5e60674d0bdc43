// The usage page and its CSV: the signed-in user's tenant only (every key of it), this billing
// period, read through the usage report the API's GET /v1/usage and the CLI use.
import type { FastifyInstance } from 'fastify';
import { usageReport } from '../billing/usage-report.js';
import { html, type ConsoleContext } from './console-context.js';
import { dailyUsageCsv } from './usage-csv.js';
import { usagePage, type UsageView } from './usage-page.js';

export function registerUsageRoutes(app: FastifyInstance, ctx: ConsoleContext): void {
  const view = async (tenant: string): Promise<UsageView> => {
    const { billing, stores, keys } = ctx.deps;
    const nowMs = ctx.deps.clock();
    const period = await billing.period(nowMs);
    const report = await usageReport({ ledger: stores.usage, billing, keys: await keys.list(tenant) }, period, tenant);
    return { period, nowMs, usage: report.tenants[0] ?? null, daily: await stores.usage.daily({ period: period.label, tenant }) };
  };
  app.get('/usage', async (request, reply) => {
    const session = await ctx.signedIn(request, reply);
    if (!session) return reply;
    return html(reply, usagePage(ctx.pageUser(session), await view(session.user.tenant)));
  });
  app.get('/usage.csv', async (request, reply) => {
    const session = await ctx.signedIn(request, reply);
    if (!session) return reply;
    // The daily figures alone: no billing standing is read for a download.
    const period = await ctx.deps.billing.period(ctx.deps.clock());
    const daily = await ctx.deps.stores.usage.daily({ period: period.label, tenant: session.user.tenant });
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="svc-stt-usage-${period.label}.csv"`)
      .send(dailyUsageCsv(period.label, daily));
  });
}
