// The row of `service_instances` and its record (kysely/kysely-instance-registry.ts; the Kysely schema's table).
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
