// The row of `service_instances` and its record, shared by the registry's implementations.
import type { InstanceRecord, InstanceRole } from './instance-registry.js';

export interface InstanceRow {
  id: string;
  role: string;
  started_at_ms: number;
  heartbeat_at_ms: number;
  expires_at_ms: number;
}

export function instanceRecordOf(row: InstanceRow): InstanceRecord {
  return {
    id: row.id,
    role: row.role as InstanceRole,
    startedAtMs: row.started_at_ms,
    heartbeatAtMs: row.heartbeat_at_ms,
    expiresAtMs: row.expires_at_ms,
  };
}

/**
 * SQL (the same in SQLite and PostgreSQL): the lease of `table`'s row is held by no registered
 * instance. Leases are named '<instance id>/<slot>' (instance-registry.ts leaseOwnerOf).
 */
export function leaseOfDeadInstance(table: 'jobs' | 'webhook_deliveries'): string {
  return `NOT EXISTS (SELECT 1 FROM service_instances i WHERE substr(${table}.lease_owner, 1, length(i.id) + 1) = i.id || '/')`;
}
