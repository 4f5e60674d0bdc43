// The PostgreSQL schema, as an ordered list of steps, like sqlite/migrations.ts: a step is never
// edited once released; change the schema by appending one. Version 1 is the final state of the
// SQLite steps 1 to 3, with the same table and column names so the two implementations read alike.
// Types: BIGINT for *_ms times and byte counts, BYTEA for BLOB, DOUBLE PRECISION for REAL, TEXT
// for JSON text and ISO times.
//
// Identifiers and ISO times are `COLLATE "C"`: they compare byte by byte, as SQLite's TEXT does,
// whatever locale the operator's database was created with (`ORDER BY created_at, id` must list
// in the same order on both stores), and "C" comparisons are the cheap ones.
//
// Many processes may start at once on one database: each applies the missing steps in one
// transaction that first takes a transaction-scoped advisory lock (released by COMMIT or ROLLBACK,
// so a pooled connection can never keep it), so a step runs exactly once and a process never sees
// a half-built schema.
import type { Queryable } from './queryable.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/**
 * The advisory lock that serializes migrations: a fixed 64-bit key (the bytes of "svc-stt1"), as a
 * string because it does not fit a JS number exactly. Advisory locks are per database.
 */
export const MIGRATION_LOCK_KEY = '8319946408475259953';

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'keys, dictionaries, idempotency records, jobs, webhook secrets and deliveries',
    sql: `
      CREATE TABLE api_keys (
        id                    TEXT COLLATE "C" PRIMARY KEY,
        tenant                TEXT COLLATE "C" NOT NULL,
        secret_sha256         BYTEA NOT NULL,
        plan                  TEXT NOT NULL,
        entitlements          TEXT NOT NULL,
        default_language      TEXT,
        billing_state         TEXT NOT NULL CHECK (billing_state IN ('active', 'paused')),
        retention_hours       INTEGER NOT NULL CHECK (retention_hours BETWEEN 1 AND 72),
        rate_limit_per_minute INTEGER,
        created_at            TEXT COLLATE "C" NOT NULL,
        revoked_at            TEXT COLLATE "C"
      );
      CREATE INDEX api_keys_by_tenant ON api_keys (tenant);

      CREATE TABLE key_dictionaries (
        key_id     TEXT COLLATE "C" NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
        language   TEXT COLLATE "C" NOT NULL,
        terms      TEXT NOT NULL,
        updated_at TEXT COLLATE "C" NOT NULL,
        PRIMARY KEY (key_id, language)
      );

      CREATE TABLE idempotency_records (
        tenant           TEXT COLLATE "C" NOT NULL,
        key              TEXT COLLATE "C" NOT NULL,
        fingerprint      TEXT COLLATE "C" NOT NULL,
        state            TEXT NOT NULL CHECK (state IN ('in_progress', 'completed')),
        response_status  INTEGER,
        response_headers TEXT,
        response_body    TEXT,
        created_at_ms    BIGINT NOT NULL,
        PRIMARY KEY (tenant, key)
      );
      CREATE INDEX idempotency_records_by_age ON idempotency_records (created_at_ms);

      CREATE TABLE jobs (
        id                      TEXT COLLATE "C" PRIMARY KEY,
        tenant                  TEXT COLLATE "C" NOT NULL,
        key_id                  TEXT COLLATE "C" NOT NULL,
        status                  TEXT COLLATE "C" NOT NULL,
        model                   TEXT NOT NULL,
        request                 TEXT NOT NULL,
        audio_path              TEXT COLLATE "C",
        audio_seconds           DOUBLE PRECISION,
        webhook_url             TEXT,
        error_code              TEXT,
        error_message           TEXT,
        created_at              TEXT COLLATE "C" NOT NULL,
        updated_at              TEXT COLLATE "C" NOT NULL,
        lease_owner             TEXT COLLATE "C",
        lease_expires_at_ms     BIGINT,
        stalled_claims          INTEGER NOT NULL DEFAULT 0,
        ready_at_ms             BIGINT,
        progress                TEXT,
        completed_audio_seconds DOUBLE PRECISION NOT NULL DEFAULT 0,
        result_revision         INTEGER NOT NULL DEFAULT 0,
        partial_path            TEXT COLLATE "C",
        result_path             TEXT COLLATE "C",
        result_bytes            BIGINT,
        result_content_type     TEXT,
        result_expires_at_ms    BIGINT,
        tombstone_until_ms      BIGINT,
        finished_at_ms          BIGINT,
        upload_state            TEXT NOT NULL DEFAULT 'none',
        upload_bytes            BIGINT,
        upload_expires_at_ms    BIGINT,
        complete_by_ms          BIGINT,
        retention_hours         INTEGER,
        webhook_secret_version  INTEGER
      );
      CREATE INDEX jobs_by_tenant ON jobs (tenant, created_at);
      CREATE INDEX jobs_by_status ON jobs (status, created_at);
      CREATE INDEX jobs_by_audio_path ON jobs (audio_path) WHERE audio_path IS NOT NULL;
      CREATE INDEX jobs_runnable ON jobs (ready_at_ms) WHERE status IN ('accepted', 'running');
      CREATE INDEX jobs_awaiting_upload ON jobs (complete_by_ms) WHERE status = 'awaiting_upload';
      CREATE INDEX jobs_result_expiry ON jobs (result_expires_at_ms) WHERE result_expires_at_ms IS NOT NULL;
      CREATE INDEX jobs_tombstone ON jobs (tombstone_until_ms) WHERE tombstone_until_ms IS NOT NULL;
      CREATE INDEX jobs_by_partial_path ON jobs (partial_path) WHERE partial_path IS NOT NULL;
      CREATE INDEX jobs_by_result_path ON jobs (result_path) WHERE result_path IS NOT NULL;

      CREATE TABLE webhook_secrets (
        key_id           TEXT COLLATE "C" NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
        version          INTEGER NOT NULL,
        ciphertext       BYTEA NOT NULL,
        iv               BYTEA NOT NULL,
        auth_tag         BYTEA NOT NULL,
        created_at_ms    BIGINT NOT NULL,
        superseded_at_ms BIGINT,
        usable_until_ms  BIGINT,
        PRIMARY KEY (key_id, version)
      );

      CREATE TABLE webhook_deliveries (
        event_id            TEXT COLLATE "C" PRIMARY KEY,
        job_id              TEXT COLLATE "C" NOT NULL UNIQUE,
        key_id              TEXT COLLATE "C" NOT NULL,
        secret_version      INTEGER NOT NULL,
        url                 TEXT NOT NULL,
        body                TEXT NOT NULL,
        state               TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'failed')),
        attempts            INTEGER NOT NULL DEFAULT 0,
        next_attempt_at_ms  BIGINT,
        last_attempt_at_ms  BIGINT,
        last_status         TEXT,
        lease_owner         TEXT COLLATE "C",
        lease_expires_at_ms BIGINT,
        created_at_ms       BIGINT NOT NULL
      );
      CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at_ms) WHERE state = 'pending';
    `,
  },
  {
    version: 2,
    name: 'service instances: which process holds an upload or an idempotency claim, for per-process recovery',
    // Job and webhook leases name their holder already (lease_owner = '<instance id>/<slot>').
    sql: `
      CREATE TABLE service_instances (
        id              TEXT COLLATE "C" PRIMARY KEY,
        role            TEXT NOT NULL,
        started_at_ms   BIGINT NOT NULL,
        heartbeat_at_ms BIGINT NOT NULL,
        expires_at_ms   BIGINT NOT NULL
      );
      ALTER TABLE jobs ADD COLUMN upload_owner TEXT COLLATE "C";
      ALTER TABLE idempotency_records ADD COLUMN owner TEXT COLLATE "C";
    `,
  },
  {
    version: 3,
    name: 'job decoration: speaker labels attached to a succeeded result under a lease',
    // As SQLite's step 5. The claim reads the partial index in its own order (NULLs first).
    sql: `
      ALTER TABLE jobs ADD COLUMN decoration TEXT COLLATE "C" NULL CHECK (decoration IN ('processing', 'unavailable'));
      ALTER TABLE jobs ADD COLUMN decoration_attempts INTEGER NOT NULL DEFAULT 0;
      CREATE INDEX jobs_decorating ON jobs (lease_expires_at_ms NULLS FIRST, id) WHERE decoration = 'processing';
    `,
  },
  {
    version: 4,
    name: 'realtime seats: the sessions each project holds open, counted across processes',
    sql: `
      CREATE TABLE realtime_seats (
        id          TEXT COLLATE "C" PRIMARY KEY,
        tenant      TEXT COLLATE "C" NOT NULL,
        instance_id TEXT COLLATE "C" NOT NULL,
        speakers    BOOLEAN NOT NULL,
        taken_at_ms BIGINT NOT NULL
      );
      CREATE INDEX realtime_seats_tenant ON realtime_seats (tenant);
    `,
  },
  {
    version: 5,
    name: 'usage metering: the ledger of work done, plan and key billing terms, the period start day',
    sql: `
      CREATE TABLE usage_events (
        event_key            TEXT COLLATE "C" PRIMARY KEY,
        tenant               TEXT COLLATE "C" NOT NULL,
        key_id               TEXT COLLATE "C" NOT NULL,
        period               TEXT COLLATE "C" NOT NULL,
        at_ms                BIGINT NOT NULL,
        route                TEXT NOT NULL CHECK (route IN ('inline', 'translation', 'job', 'realtime')),
        pool                 TEXT NOT NULL CHECK (pool IN ('batch', 'realtime')),
        model                TEXT NOT NULL,
        language_family      TEXT NOT NULL,
        diarization          SMALLINT NOT NULL CHECK (diarization IN (0, 1)),
        vocabulary           SMALLINT NOT NULL CHECK (vocabulary IN (0, 1)),
        patterns             SMALLINT NOT NULL CHECK (patterns IN (0, 1)),
        audio_ms             BIGINT NOT NULL CHECK (audio_ms >= 0),
        overage_ms           BIGINT NOT NULL CHECK (overage_ms >= 0),
        cost_micros          BIGINT NOT NULL CHECK (cost_micros >= 0),
        vocabulary_fallbacks INTEGER NOT NULL,
        suspect_insertions   INTEGER NOT NULL,
        review_required      INTEGER NOT NULL,
        unsupported_language INTEGER NOT NULL
      );
      CREATE INDEX usage_events_tenant_period ON usage_events (tenant, period, pool);
      CREATE INDEX usage_events_key ON usage_events (key_id, period);
      CREATE TABLE billing_plans (
        plan      TEXT COLLATE "C" PRIMARY KEY,
        overrides TEXT NOT NULL
      );
      CREATE TABLE key_billing (
        key_id                TEXT COLLATE "C" PRIMARY KEY,
        overrides             TEXT NOT NULL,
        credit_granted_micros BIGINT
      );
      CREATE TABLE billing_settings (
        name  TEXT COLLATE "C" PRIMARY KEY,
        value TEXT NOT NULL
      );
    `,
  },
  {
    version: 6,
    name: "usage totals: a tenant's audio, overage and charges per period and pool, a key's charges per period",
    // As SQLite's version 8: one row per sum, kept by a trigger on every event inserted, whatever
    // process inserts it. The trigger is created before the events are summed: from then on inserts
    // wait for this transaction, and those committed before it are in the sum.
    sql: `
      CREATE TABLE usage_pool_totals (
        tenant      TEXT COLLATE "C" NOT NULL,
        period      TEXT COLLATE "C" NOT NULL,
        pool        TEXT COLLATE "C" NOT NULL CHECK (pool IN ('batch', 'realtime')),
        audio_ms    BIGINT NOT NULL CHECK (audio_ms >= 0),
        overage_ms  BIGINT NOT NULL CHECK (overage_ms >= 0),
        cost_micros BIGINT NOT NULL CHECK (cost_micros >= 0),
        PRIMARY KEY (tenant, period, pool)
      );
      CREATE TABLE usage_key_costs (
        key_id      TEXT COLLATE "C" NOT NULL,
        period      TEXT COLLATE "C" NOT NULL,
        cost_micros BIGINT NOT NULL CHECK (cost_micros >= 0),
        PRIMARY KEY (key_id, period)
      );
      CREATE FUNCTION usage_events_add_totals() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO usage_pool_totals (tenant, period, pool, audio_ms, overage_ms, cost_micros)
          VALUES (NEW.tenant, NEW.period, NEW.pool, NEW.audio_ms, NEW.overage_ms, NEW.cost_micros)
          ON CONFLICT (tenant, period, pool) DO UPDATE SET audio_ms = usage_pool_totals.audio_ms + excluded.audio_ms,
            overage_ms = usage_pool_totals.overage_ms + excluded.overage_ms, cost_micros = usage_pool_totals.cost_micros + excluded.cost_micros;
        INSERT INTO usage_key_costs (key_id, period, cost_micros) VALUES (NEW.key_id, NEW.period, NEW.cost_micros)
          ON CONFLICT (key_id, period) DO UPDATE SET cost_micros = usage_key_costs.cost_micros + excluded.cost_micros;
        RETURN NULL;
      END
      $$;
      CREATE TRIGGER usage_events_totals AFTER INSERT ON usage_events FOR EACH ROW EXECUTE FUNCTION usage_events_add_totals();
      INSERT INTO usage_pool_totals (tenant, period, pool, audio_ms, overage_ms, cost_micros)
        SELECT tenant, period, pool, sum(audio_ms), sum(overage_ms), sum(cost_micros) FROM usage_events GROUP BY tenant, period, pool;
      INSERT INTO usage_key_costs (key_id, period, cost_micros)
        SELECT key_id, period, sum(cost_micros) FROM usage_events GROUP BY key_id, period;
    `,
  },
  {
    version: 7,
    name: 'usage reservations: work admitted and not yet recorded (src/store/usage-reservation.ts)',
    sql: `
      CREATE TABLE usage_reservations (
        reservation_key TEXT COLLATE "C" PRIMARY KEY,
        tenant          TEXT COLLATE "C" NOT NULL,
        key_id          TEXT COLLATE "C" NOT NULL,
        period          TEXT COLLATE "C" NOT NULL,
        pool            TEXT COLLATE "C" NOT NULL CHECK (pool IN ('batch', 'realtime')),
        audio_ms        BIGINT NOT NULL CHECK (audio_ms >= 0),
        cost_micros     BIGINT NOT NULL CHECK (cost_micros >= 0),
        holder_instance TEXT COLLATE "C",
        holder_job      TEXT COLLATE "C",
        at_ms           BIGINT NOT NULL,
        CHECK ((holder_instance IS NULL) <> (holder_job IS NULL))
      );
      CREATE INDEX usage_reservations_tenant ON usage_reservations (tenant, period, pool);
      CREATE INDEX usage_reservations_key ON usage_reservations (key_id);
    `,
  },
  {
    version: 8,
    name: 'usage reservations held by an instance and a job at once (a job reserved before its row exists)',
    sql: `
      ALTER TABLE usage_reservations DROP CONSTRAINT usage_reservations_check;
      ALTER TABLE usage_reservations ADD CONSTRAINT usage_reservations_holder CHECK (holder_instance IS NOT NULL OR holder_job IS NOT NULL);
    `,
  },
  {
    version: 9,
    name: 'developer console accounts: users, invites, sessions (src/store/console-account-store.ts)',
    // SQLite's step 11: tokens as their SHA-256 only, emails lower-cased, one unused invite per email.
    sql: `
      CREATE TABLE console_users (
        id              TEXT COLLATE "C" PRIMARY KEY,
        tenant          TEXT COLLATE "C" NOT NULL,
        email           TEXT COLLATE "C" NOT NULL UNIQUE,
        password_hash   TEXT NOT NULL,
        failed_sign_ins INTEGER NOT NULL DEFAULT 0 CHECK (failed_sign_ins >= 0),
        locked_until_ms BIGINT,
        created_at_ms   BIGINT NOT NULL
      );
      CREATE INDEX console_users_by_tenant ON console_users (tenant, created_at_ms);

      CREATE TABLE console_invites (
        token_sha256  BYTEA PRIMARY KEY CHECK (length(token_sha256) = 32),
        tenant        TEXT COLLATE "C" NOT NULL,
        email         TEXT COLLATE "C" NOT NULL,
        expires_at_ms BIGINT NOT NULL,
        used_at_ms    BIGINT,
        created_at_ms BIGINT NOT NULL
      );
      CREATE UNIQUE INDEX console_invites_one_unused ON console_invites (email) WHERE used_at_ms IS NULL;

      CREATE TABLE console_sessions (
        token_sha256  BYTEA PRIMARY KEY CHECK (length(token_sha256) = 32),
        user_id       TEXT COLLATE "C" NOT NULL REFERENCES console_users (id) ON DELETE CASCADE,
        csrf_token    TEXT COLLATE "C" NOT NULL,
        created_at_ms BIGINT NOT NULL,
        last_seen_ms  BIGINT NOT NULL
      );
      CREATE INDEX console_sessions_by_user ON console_sessions (user_id);
    `,
  },
  {
    version: 10,
    name: 'realtime client secrets (src/store/realtime-client-secret-store.ts)',
    // SQLite's step 12: kept as their SHA-256 only; a used secret keeps its row until it expires and is swept.
    sql: `
      CREATE TABLE realtime_client_secrets (
        secret_sha256 BYTEA PRIMARY KEY CHECK (length(secret_sha256) = 32),
        key_id        TEXT COLLATE "C" NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
        expires_at_ms BIGINT NOT NULL,
        used_at_ms    BIGINT,
        created_at_ms BIGINT NOT NULL
      );
      CREATE INDEX realtime_client_secrets_by_expiry ON realtime_client_secrets (expires_at_ms);
    `,
  },
  {
    version: 11,
    name: 'webhook secrets revoked from the console; redeliveries; deliveries listed by key',
    // SQLite's step 13.
    sql: `
      ALTER TABLE webhook_secrets ADD COLUMN revoked_at_ms BIGINT;
      ALTER TABLE webhook_deliveries ADD COLUMN redelivery_requested_at_ms BIGINT;
      CREATE INDEX webhook_deliveries_by_key ON webhook_deliveries (key_id, created_at_ms);
    `,
  },
  {
    version: 12,
    name: 'console second factor: TOTP secrets, recovery codes, pending sign-ins, tenant settings (src/store/console-second-factor-store.ts)',
    // SQLite's step 14: TOTP secrets sealed, recovery codes and pending sign-in tokens as their SHA-256 only.
    sql: `
      CREATE TABLE console_totp (
        user_id         TEXT COLLATE "C" PRIMARY KEY REFERENCES console_users (id) ON DELETE CASCADE,
        ciphertext      BYTEA NOT NULL,
        iv              BYTEA NOT NULL,
        auth_tag        BYTEA NOT NULL,
        confirmed_at_ms BIGINT,
        last_step       BIGINT,
        created_at_ms   BIGINT NOT NULL
      );

      CREATE TABLE console_recovery_codes (
        user_id       TEXT COLLATE "C" NOT NULL REFERENCES console_users (id) ON DELETE CASCADE,
        code_sha256   BYTEA NOT NULL CHECK (length(code_sha256) = 32),
        used_at_ms    BIGINT,
        created_at_ms BIGINT NOT NULL,
        PRIMARY KEY (user_id, code_sha256)
      );

      CREATE TABLE console_pending_sign_ins (
        token_sha256  BYTEA PRIMARY KEY CHECK (length(token_sha256) = 32),
        user_id       TEXT COLLATE "C" NOT NULL REFERENCES console_users (id) ON DELETE CASCADE,
        expires_at_ms BIGINT NOT NULL,
        created_at_ms BIGINT NOT NULL
      );
      CREATE INDEX console_pending_sign_ins_by_expiry ON console_pending_sign_ins (expires_at_ms);

      CREATE TABLE console_tenant_settings (
        tenant        TEXT COLLATE "C" PRIMARY KEY,
        totp_required INTEGER NOT NULL CHECK (totp_required IN (0, 1)),
        updated_at_ms BIGINT NOT NULL
      );
    `,
  },
  {
    version: 13,
    name: 'scheduled key revocation: a rotated key stops at revoke_at (src/store/key-record.ts revokedAtOf)',
    // SQLite's step 15.
    sql: `
      ALTER TABLE api_keys ADD COLUMN revoke_at TEXT COLLATE "C";
      CREATE INDEX api_keys_revocations_due ON api_keys (revoke_at) WHERE revoked_at IS NULL AND revoke_at IS NOT NULL;
    `,
  },
  {
    version: 14,
    name: 'enrolled voices',
    // SQLite's step 16. Biometric data: a voice's statistics (never audio), per tenant, deleted at once (no tombstone).
    sql: `
      CREATE TABLE voice_profiles (
        id            TEXT COLLATE "C" PRIMARY KEY,
        tenant        TEXT COLLATE "C" NOT NULL,
        name          TEXT NOT NULL,
        profile       TEXT NOT NULL,
        created_at_ms BIGINT NOT NULL
      );
      CREATE INDEX voice_profiles_by_tenant ON voice_profiles (tenant, created_at_ms);
    `,
  },
  {
    version: 15,
    name: 'console sign-in attempts per address, shared by every process (src/store/console-account-store.ts countSignInAttempt)',
    // SQLite's step 17.
    sql: `
      CREATE TABLE console_sign_in_attempts (
        address         TEXT COLLATE "C" PRIMARY KEY,
        window_start_ms BIGINT NOT NULL,
        attempts        INTEGER NOT NULL
      );
      CREATE INDEX console_sign_in_attempts_by_window ON console_sign_in_attempts (window_start_ms);
    `,
  },
  {
    version: 16,
    name: "a key's last use (src/store/key-store.ts recordUse)",
    // SQLite's step 18.
    sql: `
      ALTER TABLE api_keys ADD COLUMN last_used_at TEXT COLLATE "C";
    `,
  },
  {
    version: 17,
    name: 'console wrong passwords per email and address (src/store/console-account-store.ts recordFailedPassword)',
    // SQLite's step 19.
    sql: `
      CREATE TABLE console_password_failures (
        subject         TEXT COLLATE "C" NOT NULL,
        address         TEXT COLLATE "C" NOT NULL,
        failures        INTEGER NOT NULL,
        locked_until_ms BIGINT,
        ends_at_ms      BIGINT NOT NULL,
        PRIMARY KEY (subject, address)
      );
      CREATE INDEX console_password_failures_by_end ON console_password_failures (ends_at_ms);
    `,
  },
  {
    version: 18,
    name: "a job's redacted copy of its audio (src/jobs/job-redacted-audio.ts)",
    // SQLite's step 20.
    sql: `
      ALTER TABLE jobs ADD COLUMN redacted_audio_path TEXT COLLATE "C";
      CREATE INDEX jobs_by_redacted_audio_path ON jobs (redacted_audio_path) WHERE redacted_audio_path IS NOT NULL;
    `,
  },
  {
    version: 19,
    name: "a key's standing smart_format and redaction (src/contract/key-text-defaults.ts)",
    // SQLite's step 21.
    sql: `
      ALTER TABLE api_keys ADD COLUMN smart_format_default INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE api_keys ADD COLUMN redact_always TEXT COLLATE "C";
    `,
  },
  {
    version: 20,
    name: "the trace a job's creation belongs to (src/jobs/job-trace.ts)",
    // SQLite's step 22.
    sql: `ALTER TABLE jobs ADD COLUMN trace_parent TEXT COLLATE "C";`,
  },
  {
    version: 21,
    name: "tenants' data keys, wrapped under a master key (src/store/tenant-keys.ts)",
    // SQLite's step 23.
    sql: `
      CREATE TABLE tenant_data_keys (
        tenant        TEXT COLLATE "C" NOT NULL,
        version       INTEGER NOT NULL,
        master_key_id TEXT COLLATE "C" NOT NULL,
        wrapped       BYTEA NOT NULL,
        created_at_ms BIGINT NOT NULL,
        PRIMARY KEY (tenant, version)
      );
      CREATE INDEX tenant_data_keys_by_master_key ON tenant_data_keys (master_key_id);
    `,
  },
  {
    version: 22,
    name: 'the unredacted transcript kept beside a redacted result (redact_output=redacted_and_unredacted)',
    // SQLite's step 24.
    sql: `
      ALTER TABLE jobs ADD COLUMN unredacted_path TEXT COLLATE "C";
      CREATE INDEX jobs_by_unredacted_path ON jobs (unredacted_path) WHERE unredacted_path IS NOT NULL;
    `,
  },
  {
    version: 23,
    name: 'erased tenants, by a digest of their id (src/store/erased-tenants.ts)',
    // SQLite's step 25.
    sql: `
      CREATE TABLE erased_tenants (
        tenant_digest TEXT COLLATE "C" PRIMARY KEY
      );
    `,
  },
];

export class MigrationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MigrationError';
  }
}

/**
 * Applies the steps this file has and the database lacks. Run it inside one transaction (see
 * database.ts): it first takes the migration lock, so of many processes starting at once one applies
 * the steps and the others wait, then find them applied. Safe on every open. Returns the versions
 * applied now.
 */
export async function runMigrations(client: Queryable, migrations: readonly Migration[] = MIGRATIONS): Promise<number[]> {
  checkOrder(migrations);
  await client.query('SELECT pg_advisory_xact_lock($1::bigint)', [MIGRATION_LOCK_KEY]);
  await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version    INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    applied_at TEXT NOT NULL
  )`);
  const { rows } = await client.query<{ version: number }>('SELECT version FROM schema_migrations');
  const applied = new Set(rows.map((row) => row.version));
  const newest = Math.max(0, ...applied);
  const latestKnown = migrations.at(-1)?.version ?? 0;
  if (newest > latestKnown) {
    throw new MigrationError(`the database has schema version ${newest} but this svc-stt knows only up to ${latestKnown}: upgrade svc-stt`);
  }
  const appliedNow: number[] = [];
  for (const migration of migrations) {
    if (applied.has(migration.version)) continue;
    await client.query(migration.sql);
    await client.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
      migration.version,
      migration.name,
      new Date().toISOString(),
    ]);
    appliedNow.push(migration.version);
  }
  return appliedNow;
}

function checkOrder(migrations: readonly Migration[]): void {
  migrations.forEach((migration, index) => {
    if (migration.version !== index + 1) {
      throw new MigrationError(`migration '${migration.name}' has version ${migration.version}, expected ${index + 1}`);
    }
  });
}
