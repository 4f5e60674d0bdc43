// The tables the Kysely stores read and write, as Kysely sees them: one row type per table for both
// dialects (the migrations in sqlite/ and postgres/ create them; BIGINT comes back as a number, see
// postgres/database.ts). A table is added here when the first store on Kysely touches it.
import type { Generated, Kysely } from 'kysely';

export interface IdempotencyRecordsTable {
  tenant: string;
  key: string;
  fingerprint: string;
  state: 'in_progress' | 'completed';
  response_status: number | null;
  response_headers: string | null;
  response_body: string | null;
  created_at_ms: number;
  owner: string | null;
}

export interface ServiceInstancesTable {
  id: string;
  role: string;
  started_at_ms: number;
  heartbeat_at_ms: number;
  expires_at_ms: number;
}

export interface WebhookDeliveriesTable {
  event_id: string;
  job_id: string;
  key_id: string;
  secret_version: number;
  url: string;
  body: string;
  state: 'pending' | 'delivered' | 'failed';
  attempts: Generated<number>;
  next_attempt_at_ms: number | null;
  last_attempt_at_ms: number | null;
  last_status: string | null;
  lease_owner: string | null;
  lease_expires_at_ms: number | null;
  created_at_ms: number;
}

export interface StoreSchema {
  idempotency_records: IdempotencyRecordsTable;
  service_instances: ServiceInstancesTable;
  webhook_deliveries: WebhookDeliveriesTable;
}

/** What a Kysely store runs its statements on, whichever database is behind it (store-db.ts). */
export type StoreDb = Kysely<StoreSchema>;
