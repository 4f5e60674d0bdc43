// How a key appears in `keys list/update --json`: the record's public fields in snake_case.
// Never the secret or its hash (the record carries neither).
import type { ApiKeyRecord } from '../domain/api-keys.js';

export interface KeyListing {
  id: string;
  tenant: string;
  plan: string;
  entitlements: string[];
  billing_state: string;
  retention_hours: number;
  default_language: string | null;
  /** smart_format for requests that do not say. */
  smart_format_default: boolean;
  /** Redaction policies every transcript of the key gets; null: none. */
  redact_always: string[] | null;
  rate_limit_per_minute: number | null;
  created_at: string;
  revoked_at: string | null;
  /** When a rotation revokes the key (the end of its overlap); null: not rotated. */
  revoke_at: string | null;
  /** When the key was last used (to within a minute); null: never. */
  last_used_at: string | null;
}

export function keyListing(record: ApiKeyRecord): KeyListing {
  return {
    id: record.id,
    tenant: record.tenant,
    plan: record.plan,
    entitlements: [...record.entitlements],
    billing_state: record.billingState,
    retention_hours: record.retentionHours,
    default_language: record.defaultLanguage,
    smart_format_default: record.smartFormatDefault,
    redact_always: record.redactAlways === null ? null : [...record.redactAlways],
    rate_limit_per_minute: record.rateLimitPerMinute,
    created_at: record.createdAt,
    revoked_at: record.revokedAt,
    revoke_at: record.revokeAt,
    last_used_at: record.lastUsedAt,
  };
}

/**
 * One line per key for people: id, tenant, plan, state, when a rotation revokes it, its last use,
 * retention, language, entitlements, and its standing smart_format and redaction.
 */
export function keyTable(records: readonly ApiKeyRecord[]): string {
  if (records.length === 0) return 'no API keys (create one with `npx svc-stt keys create`)\n';
  const rows = records.map((r) => [
    r.id,
    r.tenant,
    r.plan,
    r.revokedAt ? 'revoked' : r.billingState,
    r.revokeAt ?? '-',
    r.lastUsedAt ?? 'never',
    `${r.retentionHours}h`,
    r.defaultLanguage ?? '-',
    r.entitlements.join(',') || '-',
    [r.smartFormatDefault ? 'smart_format' : '', r.redactAlways ? `redact=${r.redactAlways.join(',')}` : ''].filter(Boolean).join(' ') || '-',
  ]);
  const header = ['ID', 'TENANT', 'PLAN', 'STATE', 'REVOKE AT', 'LAST USED', 'RETENTION', 'LANGUAGE', 'ENTITLEMENTS', 'TEXT'];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column].length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]))
      .join('  ')
      .trimEnd();
  return `${[header, ...rows].map(line).join('\n')}\n`;
}
