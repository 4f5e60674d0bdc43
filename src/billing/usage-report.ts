// A period's usage per tenant and key, as the CLI (`svc-stt usage`) and GET /v1/usage show it: the
// ledger's lines with each key's terms, charges, cap, credit and whether (and why, and until when)
// new work is refused. Amounts stay in the ledger's integers (ms, millionths); the edges format them.
import type { ApiKeyRecord } from '../domain/api-keys.js';
import type { UsagePool } from '../domain/usage-routes.js';
import type { BillingTerms } from '../store/billing-settings-store.js';
import { DEFAULT_PLAN } from '../store/key-record.js';
import type { UsageLedger } from '../store/usage-ledger.js';
import type { UsageLine } from '../store/usage-record.js';
import type { BlockReason } from './billing-decision.js';
import type { BillingPeriod } from './billing-period.js';
import type { BillingStatus, UsageBilling } from './usage-billing.js';

export interface KeyUsage {
  key: Pick<ApiKeyRecord, 'id' | 'tenant' | 'plan' | 'billingState' | 'revokedAt'>;
  terms: BillingTerms;
  lines: UsageLine[];
  audioMs: Record<UsagePool, number>;
  overageMs: number;
  costMicros: number;
  creditLeftMicros: number | null;
  blocked: Record<UsagePool, BlockReason | null>;
  resetsAtMs: Record<UsagePool, number | null>;
  nextRefusal: BillingStatus['nextRefusal'];
}

export interface TenantUsage {
  tenant: string;
  /** The tenant's use of each pool this period, shared by its keys' allowances. */
  usedMs: Record<UsagePool, number>;
  keys: KeyUsage[];
}

export interface UsageReport {
  period: BillingPeriod;
  tenants: TenantUsage[];
}

const POOL_OF_ROUTE = { inline: 'batch', translation: 'batch', job: 'batch', realtime: 'realtime' } as const;

/**
 * The report of `period` for every key of the tenants asked (one tenant, or all), including keys
 * that did no work (their standing still shows), and keys no longer listed that did.
 */
export async function usageReport(
  deps: { ledger: UsageLedger; billing: UsageBilling; keys: ReadonlyArray<KeyUsage['key']> },
  period: BillingPeriod,
  tenant?: string,
): Promise<UsageReport> {
  const lines = await deps.ledger.report({ period: period.label, ...(tenant === undefined ? {} : { tenant }) });
  const known = deps.keys.filter((key) => tenant === undefined || key.tenant === tenant);
  const keyIds = new Set(known.map((key) => key.id));
  const orphans = [...new Map(lines.filter((line) => !keyIds.has(line.keyId)).map((line) => [line.keyId, line])).values()];
  const keys = [
    ...known,
    ...orphans.map((line) => ({ id: line.keyId, tenant: line.tenant, plan: DEFAULT_PLAN, billingState: 'active' as const, revokedAt: null })),
  ].filter((key) => key.revokedAt === null || lines.some((line) => line.keyId === key.id));
  const byTenant = new Map<string, TenantUsage>();
  for (const key of keys) {
    const own = lines.filter((line) => line.keyId === key.id);
    const status = await deps.billing.status(key, period);
    const audioMs = { batch: 0, realtime: 0 };
    for (const line of own) audioMs[POOL_OF_ROUTE[line.route]] += line.audioMs;
    const usage: KeyUsage = {
      key,
      terms: status.terms,
      lines: own,
      audioMs,
      overageMs: own.reduce((sum, line) => sum + line.overageMs, 0),
      costMicros: own.reduce((sum, line) => sum + line.costMicros, 0),
      creditLeftMicros: status.creditLeftMicros,
      blocked: status.blocked,
      resetsAtMs: status.resetsAtMs,
      nextRefusal: status.nextRefusal,
    };
    const entry = byTenant.get(key.tenant) ?? { tenant: key.tenant, usedMs: status.standing.tenantUsedMs, keys: [] };
    entry.keys.push(usage);
    byTenant.set(key.tenant, entry);
  }
  return { period, tenants: [...byTenant.values()].sort((a, b) => a.tenant.localeCompare(b.tenant)) };
}
