// GET /v1/usage: what a key's tenant used this billing period and what it is billed under, the
// report `svc-stt usage --tenant` shows, as JSON. Never another tenant's figures: naming one is a
// 404, as an unknown job is (its existence is not confirmed either).
import type { FastifyInstance } from 'fastify';

import type { UsageBilling } from '../../billing/usage-billing.js';
import { usageReport } from '../../billing/usage-report.js';
import { usageReportJson } from '../../billing/usage-report-json.js';
import type { KeyStore } from '../../store/key-store.js';
import type { UsageLedger } from '../../store/usage-ledger.js';
import { API_REFUSALS } from '../api-refusals.js';
import { GET_USAGE_SCHEMA } from './usage-schemas.js';

export interface UsageRouteDeps {
  ledger: UsageLedger;
  billing: UsageBilling;
  keys: Pick<KeyStore, 'list'>;
}

export function usageRoutes(deps: UsageRouteDeps) {
  return async function register(app: FastifyInstance): Promise<void> {
    app.get<{ Querystring: { tenant?: string } }>('/v1/usage', { schema: GET_USAGE_SCHEMA }, async (request) => {
      const key = request.apiKey!;
      if (request.query.tenant !== undefined && request.query.tenant !== key.tenant) throw API_REFUSALS.usageNotAvailable();
      const keys = await deps.keys.list(key.tenant);
      const report = await usageReport({ ledger: deps.ledger, billing: deps.billing, keys }, await deps.billing.period(), key.tenant);
      const { tenants, ...period } = usageReportJson(report);
      return { ...period, ...(tenants[0] ?? { tenant: key.tenant, batch_seconds: 0, realtime_seconds: 0, keys: [] }) };
    });
  };
}
