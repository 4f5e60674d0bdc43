// The tables the Kysely stores read and write, as Kysely sees them: one row type per table for both
// dialects (the migrations in sqlite/ and postgres/ create them; BIGINT comes back as a number, see
// postgres/database.ts). Where a record module already declares the row (job-record.ts,
// key-record.ts, ...), the table is that row, with the columns that have defaults marked Generated.
import type { Generated, Kysely } from 'kysely';

import type { ConsoleInviteRow, ConsolePasswordFailureRow, ConsoleSessionRow, ConsoleSignInAttemptRow, ConsoleUserRow } from '../console-account-record.js';
import type { ConsolePendingSignInRow, ConsoleRecoveryCodeRow, ConsoleTenantSettingsRow, ConsoleTotpRow } from '../console-second-factor-record.js';
import type { IdempotencyRow } from '../idempotency-record.js';
import type { InstanceRow } from '../instance-record.js';
import type { JobRow } from '../job-record.js';
import type { KeyRow } from '../key-record.js';
import type { RealtimeClientSecretRow } from '../realtime-client-secret-record.js';
import type { UsageEventRow } from '../usage-record.js';
import type { VoiceProfileRow } from '../voice-profile-record.js';
import type { DeliveryRow } from '../webhook-delivery-record.js';
import type { DeliveryState } from '../webhook-outbox.js';
import type { SecretRow } from '../webhook-secret-record.js';

export type IdempotencyRecordsTable = IdempotencyRow & {
  tenant: string;
  key: string;
  /** The instance whose request holds the claim (IdempotencyStoreOptions.owner), or null. */
  owner: string | null;
};

export type WebhookDeliveriesTable = Omit<DeliveryRow, 'state' | 'attempts'> & { state: DeliveryState; attempts: Generated<number> };

type JobDefaults = 'stalled_claims' | 'completed_audio_seconds' | 'result_revision' | 'upload_state' | 'decoration_attempts';

export type JobsTable = Omit<JobRow, JobDefaults> & { [column in JobDefaults]: Generated<JobRow[column]> } & {
  /** The instance a file is streaming in through (upload_state 'receiving'). */
  upload_owner: string | null;
};

export interface KeyDictionariesTable {
  key_id: string;
  language: string;
  terms: string;
  updated_at: string;
}

export type WebhookSecretsTable = SecretRow & { key_id: string };

export interface RealtimeSeatsTable {
  id: string;
  tenant: string;
  instance_id: string;
  /** BOOLEAN on PostgreSQL, 0/1 on SQLite: written as 1 or 0, which both take (PostgreSQL reads '1' as true). */
  speakers: number;
  taken_at_ms: number;
}

export interface UsagePoolTotalsTable {
  tenant: string;
  period: string;
  pool: string;
  audio_ms: number;
  overage_ms: number;
  cost_micros: number;
}

export interface UsageReservationsTable {
  reservation_key: string;
  tenant: string;
  key_id: string;
  period: string;
  pool: string;
  audio_ms: number;
  cost_micros: number;
  holder_instance: string | null;
  holder_job: string | null;
  at_ms: number;
}

export interface UsageKeyCostsTable {
  key_id: string;
  period: string;
  cost_micros: number;
}

export interface BillingPlansTable {
  plan: string;
  overrides: string;
}

export interface KeyBillingTable {
  key_id: string;
  overrides: string;
  credit_granted_micros: number | null;
}

export interface BillingSettingsTable {
  name: string;
  value: string;
}

export interface TenantDataKeysTable {
  tenant: string;
  version: number;
  master_key_id: string;
  wrapped: Buffer;
  created_at_ms: number;
}

/** A tenant erased (`tenants erase`), by erasedTenantDigest of its id (erased-tenants.ts). */
export interface ErasedTenantsTable {
  tenant_digest: string;
}

export type ConsoleUsersTable = Omit<ConsoleUserRow, 'failed_sign_ins'> & { failed_sign_ins: Generated<number> };

export interface StoreSchema {
  idempotency_records: IdempotencyRecordsTable;
  service_instances: InstanceRow;
  webhook_deliveries: WebhookDeliveriesTable;
  jobs: JobsTable;
  api_keys: KeyRow;
  key_dictionaries: KeyDictionariesTable;
  webhook_secrets: WebhookSecretsTable;
  realtime_seats: RealtimeSeatsTable;
  realtime_client_secrets: RealtimeClientSecretRow;
  usage_events: UsageEventRow;
  usage_pool_totals: UsagePoolTotalsTable;
  usage_key_costs: UsageKeyCostsTable;
  usage_reservations: UsageReservationsTable;
  billing_plans: BillingPlansTable;
  key_billing: KeyBillingTable;
  billing_settings: BillingSettingsTable;
  console_users: ConsoleUsersTable;
  console_invites: ConsoleInviteRow;
  console_sessions: ConsoleSessionRow;
  console_sign_in_attempts: ConsoleSignInAttemptRow;
  console_password_failures: ConsolePasswordFailureRow;
  console_totp: ConsoleTotpRow;
  console_recovery_codes: ConsoleRecoveryCodeRow;
  console_pending_sign_ins: ConsolePendingSignInRow;
  console_tenant_settings: ConsoleTenantSettingsRow;
  voice_profiles: VoiceProfileRow;
  tenant_data_keys: TenantDataKeysTable;
  erased_tenants: ErasedTenantsTable;
}

/** What a Kysely store runs its statements on, whichever database is behind it (store-db.ts). */
export type StoreDb = Kysely<StoreSchema>;
