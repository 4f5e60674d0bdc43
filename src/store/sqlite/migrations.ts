// The schema, as an ordered list of steps. A step is never edited once released: change the schema
// by appending a new step (the jobs feature adds its lease, attempt and result columns this way,
// with ALTER TABLE ... ADD COLUMN). Applied steps are recorded in `schema_migrations`, and
// `user_version` mirrors the latest one so `sqlite3 FILE 'PRAGMA user_version'` tells an operator.
import type { Database } from 'better-sqlite3';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** The same step in both schemas (types aside), so the stores' recovery statements read alike. */
const SERVICE_INSTANCES_STEP = `
      CREATE TABLE service_instances (
        id              TEXT PRIMARY KEY,
        role            TEXT NOT NULL,
        started_at_ms   INTEGER NOT NULL,
        heartbeat_at_ms INTEGER NOT NULL,
        expires_at_ms   INTEGER NOT NULL
      ) STRICT;
      ALTER TABLE jobs ADD COLUMN upload_owner TEXT;
      ALTER TABLE idempotency_records ADD COLUMN owner TEXT;
    `;

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'keys, dictionaries, idempotency records, jobs',
    // Enumerations that may grow (plans, job statuses) are checked in TypeScript, not by CHECK
    // constraints, because SQLite can only change a CHECK by rebuilding the table.
    sql: `
      CREATE TABLE api_keys (
        id                    TEXT PRIMARY KEY,
        tenant                TEXT NOT NULL,
        secret_sha256         BLOB NOT NULL,
        plan                  TEXT NOT NULL,
        entitlements          TEXT NOT NULL,
        default_language      TEXT,
        billing_state         TEXT NOT NULL CHECK (billing_state IN ('active', 'paused')),
        retention_hours       INTEGER NOT NULL CHECK (retention_hours BETWEEN 1 AND 72),
        rate_limit_per_minute INTEGER,
        created_at            TEXT NOT NULL,
        revoked_at            TEXT
      ) STRICT;
      CREATE INDEX api_keys_by_tenant ON api_keys (tenant);

      CREATE TABLE key_dictionaries (
        key_id     TEXT NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
        language   TEXT NOT NULL,
        terms      TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (key_id, language)
      ) STRICT;

      CREATE TABLE idempotency_records (
        tenant           TEXT NOT NULL,
        key              TEXT NOT NULL,
        fingerprint      TEXT NOT NULL,
        state            TEXT NOT NULL CHECK (state IN ('in_progress', 'completed')),
        response_status  INTEGER,
        response_headers TEXT,
        response_body    TEXT,
        created_at_ms    INTEGER NOT NULL,
        PRIMARY KEY (tenant, key)
      ) STRICT;
      CREATE INDEX idempotency_records_by_age ON idempotency_records (created_at_ms);

      CREATE TABLE jobs (
        id            TEXT PRIMARY KEY,
        tenant        TEXT NOT NULL,
        key_id        TEXT NOT NULL,
        status        TEXT NOT NULL,
        model         TEXT NOT NULL,
        request       TEXT NOT NULL,
        audio_path    TEXT,
        audio_seconds REAL,
        webhook_url   TEXT,
        error_code    TEXT,
        error_message TEXT,
        created_at    TEXT NOT NULL,
        updated_at    TEXT NOT NULL
      ) STRICT;
      CREATE INDEX jobs_by_tenant ON jobs (tenant, created_at);
      CREATE INDEX jobs_by_status ON jobs (status, created_at);
      CREATE INDEX jobs_by_audio_path ON jobs (audio_path) WHERE audio_path IS NOT NULL;
    `,
  },
  {
    version: 2,
    name: 'job lifecycle: leases, chunk progress, upload slots, results, retention',
    // Times the worker loop compares are integers (ms since the epoch) so comparisons are exact and
    // indexable; the ISO texts of migration 1 stay for what clients see.
    sql: `
      ALTER TABLE jobs ADD COLUMN lease_owner          TEXT;
      ALTER TABLE jobs ADD COLUMN lease_expires_at_ms  INTEGER;
      ALTER TABLE jobs ADD COLUMN stalled_claims       INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE jobs ADD COLUMN ready_at_ms          INTEGER;
      ALTER TABLE jobs ADD COLUMN progress             TEXT;
      ALTER TABLE jobs ADD COLUMN completed_audio_seconds REAL NOT NULL DEFAULT 0;
      ALTER TABLE jobs ADD COLUMN result_revision      INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE jobs ADD COLUMN partial_path         TEXT;
      ALTER TABLE jobs ADD COLUMN result_path          TEXT;
      ALTER TABLE jobs ADD COLUMN result_bytes         INTEGER;
      ALTER TABLE jobs ADD COLUMN result_content_type  TEXT;
      ALTER TABLE jobs ADD COLUMN result_expires_at_ms INTEGER;
      ALTER TABLE jobs ADD COLUMN tombstone_until_ms   INTEGER;
      ALTER TABLE jobs ADD COLUMN finished_at_ms       INTEGER;
      ALTER TABLE jobs ADD COLUMN upload_state         TEXT NOT NULL DEFAULT 'none';
      ALTER TABLE jobs ADD COLUMN upload_bytes         INTEGER;
      ALTER TABLE jobs ADD COLUMN upload_expires_at_ms INTEGER;
      ALTER TABLE jobs ADD COLUMN complete_by_ms       INTEGER;
      ALTER TABLE jobs ADD COLUMN retention_hours      INTEGER;
      -- Jobs created before this step that were waiting for a worker join the queue in creation order.
      UPDATE jobs SET ready_at_ms = CAST(strftime('%s', created_at) AS INTEGER) * 1000 WHERE status IN ('accepted', 'running');
      CREATE INDEX jobs_runnable ON jobs (ready_at_ms) WHERE status IN ('accepted', 'running');
      CREATE INDEX jobs_awaiting_upload ON jobs (complete_by_ms) WHERE status = 'awaiting_upload';
      CREATE INDEX jobs_result_expiry ON jobs (result_expires_at_ms) WHERE result_expires_at_ms IS NOT NULL;
      CREATE INDEX jobs_tombstone ON jobs (tombstone_until_ms) WHERE tombstone_until_ms IS NOT NULL;
      CREATE INDEX jobs_by_partial_path ON jobs (partial_path) WHERE partial_path IS NOT NULL;
      CREATE INDEX jobs_by_result_path ON jobs (result_path) WHERE result_path IS NOT NULL;
    `,
  },
  {
    version: 3,
    name: 'webhooks: signing secrets, the version pinned to each job, the delivery outbox',
    // Secrets are stored encrypted (AES-256-GCM under the server's master key): HMAC needs the raw
    // secret, so a hash would not do. A version stops signing 24 h after the rotation that
    // superseded it (usable_until_ms); the active version has none.
    sql: `
      CREATE TABLE webhook_secrets (
        key_id          TEXT NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
        version         INTEGER NOT NULL,
        ciphertext      BLOB NOT NULL,
        iv              BLOB NOT NULL,
        auth_tag        BLOB NOT NULL,
        created_at_ms   INTEGER NOT NULL,
        superseded_at_ms INTEGER,
        usable_until_ms INTEGER,
        PRIMARY KEY (key_id, version)
      ) STRICT;

      ALTER TABLE jobs ADD COLUMN webhook_secret_version INTEGER;

      -- One row per event: written in the transaction that marks the job succeeded, so an event
      -- exists exactly when its job succeeded, whatever crashes.
      CREATE TABLE webhook_deliveries (
        event_id            TEXT PRIMARY KEY,
        job_id              TEXT NOT NULL UNIQUE,
        key_id              TEXT NOT NULL,
        secret_version      INTEGER NOT NULL,
        url                 TEXT NOT NULL,
        body                TEXT NOT NULL,
        state               TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'failed')),
        attempts            INTEGER NOT NULL DEFAULT 0,
        next_attempt_at_ms  INTEGER,
        last_attempt_at_ms  INTEGER,
        last_status         TEXT,
        lease_owner         TEXT,
        lease_expires_at_ms INTEGER,
        created_at_ms       INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at_ms) WHERE state = 'pending';
    `,
  },
  {
    version: 4,
    name: 'service instances: which process holds an upload or an idempotency claim, for per-process recovery',
    // Job and webhook leases name their holder already (lease_owner = '<instance id>/<slot>').
    sql: SERVICE_INSTANCES_STEP,
  },
  {
    version: 5,
    name: 'job decoration: speaker labels attached to a succeeded result under a lease',
    // A CHECK added by ADD COLUMN holds for existing rows at once (all NULL here). The claim reads
    // the partial index: only rows being decorated are in it, oldest lease expiry first.
    sql: `
      ALTER TABLE jobs ADD COLUMN decoration TEXT NULL CHECK (decoration IN ('processing', 'unavailable'));
      ALTER TABLE jobs ADD COLUMN decoration_attempts INTEGER NOT NULL DEFAULT 0;
      CREATE INDEX jobs_decorating ON jobs (lease_expires_at_ms, id) WHERE decoration = 'processing';
    `,
  },
  {
    version: 6,
    name: 'realtime seats: the sessions each project holds open, counted across processes',
    sql: `
      CREATE TABLE realtime_seats (
        id          TEXT PRIMARY KEY,
        tenant      TEXT NOT NULL,
        instance_id TEXT NOT NULL,
        speakers    INTEGER NOT NULL CHECK (speakers IN (0, 1)),
        taken_at_ms INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX realtime_seats_tenant ON realtime_seats (tenant);
    `,
  },
  {
    version: 7,
    name: 'usage metering: the ledger of work done, plan and key billing terms, the period start day',
    // Counters only (src/store/usage-record.ts): no content, file names or text. An event's only
    // change is a job's decoration adding its review_required passages; reports read a period's
    // events through the indexes (the sums decisions need are kept since migration 8).
    sql: `
      CREATE TABLE usage_events (
        event_key            TEXT PRIMARY KEY,
        tenant               TEXT NOT NULL,
        key_id               TEXT NOT NULL,
        period               TEXT NOT NULL,
        at_ms                INTEGER NOT NULL,
        route                TEXT NOT NULL CHECK (route IN ('inline', 'translation', 'job', 'realtime')),
        pool                 TEXT NOT NULL CHECK (pool IN ('batch', 'realtime')),
        model                TEXT NOT NULL,
        language_family      TEXT NOT NULL,
        diarization          INTEGER NOT NULL CHECK (diarization IN (0, 1)),
        vocabulary           INTEGER NOT NULL CHECK (vocabulary IN (0, 1)),
        patterns             INTEGER NOT NULL CHECK (patterns IN (0, 1)),
        audio_ms             INTEGER NOT NULL CHECK (audio_ms >= 0),
        overage_ms           INTEGER NOT NULL CHECK (overage_ms >= 0),
        cost_micros          INTEGER NOT NULL CHECK (cost_micros >= 0),
        vocabulary_fallbacks INTEGER NOT NULL,
        suspect_insertions   INTEGER NOT NULL,
        review_required      INTEGER NOT NULL,
        unsupported_language INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX usage_events_tenant_period ON usage_events (tenant, period, pool);
      CREATE INDEX usage_events_key ON usage_events (key_id, period);
      CREATE TABLE billing_plans (
        plan      TEXT PRIMARY KEY,
        overrides TEXT NOT NULL
      ) STRICT;
      CREATE TABLE key_billing (
        key_id                TEXT PRIMARY KEY,
        overrides             TEXT NOT NULL,
        credit_granted_micros INTEGER
      ) STRICT;
      CREATE TABLE billing_settings (
        name  TEXT PRIMARY KEY,
        value TEXT NOT NULL
      ) STRICT;
    `,
  },
  {
    version: 8,
    name: "usage totals: a tenant's audio, overage and charges per period and pool, a key's charges per period",
    // Every decision and every recorded event needs these sums; read from the events they cost a
    // scan that grows with the tenant's work in the period (bench/metering.ts: 6 ms at 100,000
    // events) and, for a key's credit, with all its work ever. The database keeps them, one row
    // each, by a trigger on every event inserted (whatever process or version inserts it); the
    // events already recorded are summed once here.
    sql: `
      CREATE TABLE usage_pool_totals (
        tenant      TEXT NOT NULL,
        period      TEXT NOT NULL,
        pool        TEXT NOT NULL CHECK (pool IN ('batch', 'realtime')),
        audio_ms    INTEGER NOT NULL CHECK (audio_ms >= 0),
        overage_ms  INTEGER NOT NULL CHECK (overage_ms >= 0),
        cost_micros INTEGER NOT NULL CHECK (cost_micros >= 0),
        PRIMARY KEY (tenant, period, pool)
      ) STRICT;
      CREATE TABLE usage_key_costs (
        key_id      TEXT NOT NULL,
        period      TEXT NOT NULL,
        cost_micros INTEGER NOT NULL CHECK (cost_micros >= 0),
        PRIMARY KEY (key_id, period)
      ) STRICT;
      CREATE TRIGGER usage_events_totals AFTER INSERT ON usage_events BEGIN
        INSERT INTO usage_pool_totals (tenant, period, pool, audio_ms, overage_ms, cost_micros)
          VALUES (NEW.tenant, NEW.period, NEW.pool, NEW.audio_ms, NEW.overage_ms, NEW.cost_micros)
          ON CONFLICT (tenant, period, pool) DO UPDATE SET audio_ms = audio_ms + excluded.audio_ms,
            overage_ms = overage_ms + excluded.overage_ms, cost_micros = cost_micros + excluded.cost_micros;
        INSERT INTO usage_key_costs (key_id, period, cost_micros) VALUES (NEW.key_id, NEW.period, NEW.cost_micros)
          ON CONFLICT (key_id, period) DO UPDATE SET cost_micros = cost_micros + excluded.cost_micros;
      END;
      INSERT INTO usage_pool_totals (tenant, period, pool, audio_ms, overage_ms, cost_micros)
        SELECT tenant, period, pool, sum(audio_ms), sum(overage_ms), sum(cost_micros) FROM usage_events GROUP BY tenant, period, pool;
      INSERT INTO usage_key_costs (key_id, period, cost_micros)
        SELECT key_id, period, sum(cost_micros) FROM usage_events GROUP BY key_id, period;
    `,
  },
  {
    version: 9,
    name: 'usage reservations: work admitted and not yet recorded (src/store/usage-reservation.ts)',
    sql: `
      CREATE TABLE usage_reservations (
        reservation_key TEXT PRIMARY KEY,
        tenant          TEXT NOT NULL,
        key_id          TEXT NOT NULL,
        period          TEXT NOT NULL,
        pool            TEXT NOT NULL CHECK (pool IN ('batch', 'realtime')),
        audio_ms        INTEGER NOT NULL CHECK (audio_ms >= 0),
        cost_micros     INTEGER NOT NULL CHECK (cost_micros >= 0),
        holder_instance TEXT,
        holder_job      TEXT,
        at_ms           INTEGER NOT NULL,
        CHECK ((holder_instance IS NULL) <> (holder_job IS NULL))
      ) STRICT;
      CREATE INDEX usage_reservations_tenant ON usage_reservations (tenant, period, pool);
      CREATE INDEX usage_reservations_key ON usage_reservations (key_id);
    `,
  },
  {
    version: 10,
    name: 'usage reservations held by an instance and a job at once (a job reserved before its row exists)',
    // SQLite cannot drop a CHECK: the table is rebuilt with the new one (it holds only work in flight).
    sql: `
      CREATE TABLE usage_reservations_new (
        reservation_key TEXT PRIMARY KEY,
        tenant          TEXT NOT NULL,
        key_id          TEXT NOT NULL,
        period          TEXT NOT NULL,
        pool            TEXT NOT NULL CHECK (pool IN ('batch', 'realtime')),
        audio_ms        INTEGER NOT NULL CHECK (audio_ms >= 0),
        cost_micros     INTEGER NOT NULL CHECK (cost_micros >= 0),
        holder_instance TEXT,
        holder_job      TEXT,
        at_ms           INTEGER NOT NULL,
        CHECK (holder_instance IS NOT NULL OR holder_job IS NOT NULL)
      ) STRICT;
      INSERT INTO usage_reservations_new SELECT * FROM usage_reservations;
      DROP TABLE usage_reservations;
      ALTER TABLE usage_reservations_new RENAME TO usage_reservations;
      CREATE INDEX usage_reservations_tenant ON usage_reservations (tenant, period, pool);
      CREATE INDEX usage_reservations_key ON usage_reservations (key_id);
    `,
  },
  {
    version: 11,
    name: 'developer console accounts: users, invites, sessions (src/store/console-account-store.ts)',
    // Invite and session tokens are kept as their SHA-256 only (console-account-record.ts); emails
    // trimmed and lower-cased, so UNIQUE means one account per address. One unused invite per email.
    sql: `
      CREATE TABLE console_users (
        id              TEXT PRIMARY KEY,
        tenant          TEXT NOT NULL,
        email           TEXT NOT NULL UNIQUE,
        password_hash   TEXT NOT NULL,
        failed_sign_ins INTEGER NOT NULL DEFAULT 0 CHECK (failed_sign_ins >= 0),
        locked_until_ms INTEGER,
        created_at_ms   INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX console_users_by_tenant ON console_users (tenant, created_at_ms);

      CREATE TABLE console_invites (
        token_sha256  BLOB PRIMARY KEY CHECK (length(token_sha256) = 32),
        tenant        TEXT NOT NULL,
        email         TEXT NOT NULL,
        expires_at_ms INTEGER NOT NULL,
        used_at_ms    INTEGER,
        created_at_ms INTEGER NOT NULL
      ) STRICT;
      CREATE UNIQUE INDEX console_invites_one_unused ON console_invites (email) WHERE used_at_ms IS NULL;

      CREATE TABLE console_sessions (
        token_sha256  BLOB PRIMARY KEY CHECK (length(token_sha256) = 32),
        user_id       TEXT NOT NULL REFERENCES console_users (id) ON DELETE CASCADE,
        csrf_token    TEXT NOT NULL,
        created_at_ms INTEGER NOT NULL,
        last_seen_ms  INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX console_sessions_by_user ON console_sessions (user_id);
    `,
  },
  {
    version: 12,
    name: 'realtime client secrets (src/store/realtime-client-secret-store.ts)',
    // Kept as their SHA-256 only; a used secret keeps its row (used_at_ms) until it expires and is swept.
    sql: `
      CREATE TABLE realtime_client_secrets (
        secret_sha256 BLOB PRIMARY KEY CHECK (length(secret_sha256) = 32),
        key_id        TEXT NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
        expires_at_ms INTEGER NOT NULL,
        used_at_ms    INTEGER,
        created_at_ms INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX realtime_client_secrets_by_expiry ON realtime_client_secrets (expires_at_ms);
    `,
  },
  {
    version: 13,
    name: 'webhook secrets revoked from the console; redeliveries; deliveries listed by key',
    // A revoked version stops signing at revoked_at_ms whatever its deadline; a redelivery asked for
    // in the console is one attempt (redelivery_requested_at_ms, cleared when it is made).
    sql: `
      ALTER TABLE webhook_secrets ADD COLUMN revoked_at_ms INTEGER;
      ALTER TABLE webhook_deliveries ADD COLUMN redelivery_requested_at_ms INTEGER;
      CREATE INDEX webhook_deliveries_by_key ON webhook_deliveries (key_id, created_at_ms);
    `,
  },
  {
    version: 14,
    name: 'console second factor: TOTP secrets, recovery codes, pending sign-ins, tenant settings (src/store/console-second-factor-store.ts)',
    // TOTP secrets sealed (console-second-factor-record.ts), recovery codes and pending sign-in tokens as their SHA-256 only.
    sql: `
      CREATE TABLE console_totp (
        user_id         TEXT PRIMARY KEY REFERENCES console_users (id) ON DELETE CASCADE,
        ciphertext      BLOB NOT NULL,
        iv              BLOB NOT NULL,
        auth_tag        BLOB NOT NULL,
        confirmed_at_ms INTEGER,
        last_step       INTEGER,
        created_at_ms   INTEGER NOT NULL
      ) STRICT;

      CREATE TABLE console_recovery_codes (
        user_id       TEXT NOT NULL REFERENCES console_users (id) ON DELETE CASCADE,
        code_sha256   BLOB NOT NULL CHECK (length(code_sha256) = 32),
        used_at_ms    INTEGER,
        created_at_ms INTEGER NOT NULL,
        PRIMARY KEY (user_id, code_sha256)
      ) STRICT;

      CREATE TABLE console_pending_sign_ins (
        token_sha256  BLOB PRIMARY KEY CHECK (length(token_sha256) = 32),
        user_id       TEXT NOT NULL REFERENCES console_users (id) ON DELETE CASCADE,
        expires_at_ms INTEGER NOT NULL,
        created_at_ms INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX console_pending_sign_ins_by_expiry ON console_pending_sign_ins (expires_at_ms);

      CREATE TABLE console_tenant_settings (
        tenant        TEXT PRIMARY KEY,
        totp_required INTEGER NOT NULL CHECK (totp_required IN (0, 1)),
        updated_at_ms INTEGER NOT NULL
      ) STRICT;
    `,
  },
  {
    version: 15,
    name: 'scheduled key revocation: a rotated key stops at revoke_at (src/store/key-record.ts revokedAtOf)',
    // A key past its revoke_at is refused as a revoked one; the sweeper then revokes it for good (revoked_at).
    sql: `
      ALTER TABLE api_keys ADD COLUMN revoke_at TEXT;
      CREATE INDEX api_keys_revocations_due ON api_keys (revoke_at) WHERE revoked_at IS NULL AND revoke_at IS NOT NULL;
    `,
  },
  {
    version: 16,
    name: 'enrolled voices',
    // Biometric data: a voice's statistics (never audio), per tenant, deleted at once (no tombstone).
    sql: `
      CREATE TABLE voice_profiles (
        id            TEXT PRIMARY KEY,
        tenant        TEXT NOT NULL,
        name          TEXT NOT NULL,
        profile       TEXT NOT NULL,
        created_at_ms INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX voice_profiles_by_tenant ON voice_profiles (tenant, created_at_ms);
    `,
  },
  {
    version: 17,
    name: 'console sign-in attempts per address, shared by every process (src/store/console-account-store.ts countSignInAttempt)',
    // One row per client address: its current minute and the attempts in it; the sweeper deletes ended minutes.
    sql: `
      CREATE TABLE console_sign_in_attempts (
        address         TEXT PRIMARY KEY,
        window_start_ms INTEGER NOT NULL,
        attempts        INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX console_sign_in_attempts_by_window ON console_sign_in_attempts (window_start_ms);
    `,
  },
  {
    version: 18,
    name: "a key's last use (src/store/key-store.ts recordUse)",
    // Written at most once a minute per key (KEY_USE_RESOLUTION_MS); existing keys read as never used.
    sql: `
      ALTER TABLE api_keys ADD COLUMN last_used_at TEXT;
    `,
  },
  {
    version: 19,
    name: 'console wrong passwords per email and address (src/store/console-account-store.ts recordFailedPassword)',
    // One row per (digest of an email, known or not; client address): its failures, lock and end; the sweeper deletes ended rows.
    sql: `
      CREATE TABLE console_password_failures (
        subject         TEXT NOT NULL,
        address         TEXT NOT NULL,
        failures        INTEGER NOT NULL,
        locked_until_ms INTEGER,
        ends_at_ms      INTEGER NOT NULL,
        PRIMARY KEY (subject, address)
      ) STRICT;
      CREATE INDEX console_password_failures_by_end ON console_password_failures (ends_at_ms);
    `,
  },
  {
    version: 20,
    name: "a job's redacted copy of its audio (src/jobs/job-redacted-audio.ts)",
    // Set with the success when redact_audio asked for it; released with the result. Existing rows have none.
    sql: `
      ALTER TABLE jobs ADD COLUMN redacted_audio_path TEXT;
      CREATE INDEX jobs_by_redacted_audio_path ON jobs (redacted_audio_path) WHERE redacted_audio_path IS NOT NULL;
    `,
  },
  {
    version: 21,
    name: "a key's standing smart_format and redaction (src/contract/key-text-defaults.ts)",
    // Existing keys keep today's behaviour: no formatting unless asked, no standing redaction.
    sql: `
      ALTER TABLE api_keys ADD COLUMN smart_format_default INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE api_keys ADD COLUMN redact_always TEXT;
    `,
  },
  {
    version: 22,
    name: "the trace a job's creation belongs to (src/jobs/job-trace.ts)",
    sql: `ALTER TABLE jobs ADD COLUMN trace_parent TEXT;`,
  },
  {
    version: 23,
    name: "tenants' data keys, wrapped under a master key (src/store/tenant-keys.ts)",
    // Content is sealed under its tenant's data key; only the wrapped form is stored, naming the
    // master key that wrapped it (a rotation re-wraps by that column). The highest version seals new
    // content; older ones still open what they sealed. Sealed content describes itself, so no content
    // column changes: plain values written before this step stay readable.
    sql: `
      CREATE TABLE tenant_data_keys (
        tenant        TEXT NOT NULL,
        version       INTEGER NOT NULL,
        master_key_id TEXT NOT NULL,
        wrapped       BLOB NOT NULL,
        created_at_ms INTEGER NOT NULL,
        PRIMARY KEY (tenant, version)
      ) STRICT;
      CREATE INDEX tenant_data_keys_by_master_key ON tenant_data_keys (master_key_id);
    `,
  },
  {
    version: 24,
    name: 'the unredacted transcript kept beside a redacted result (redact_output=redacted_and_unredacted)',
    // PostgreSQL's step 22. Provisional while the job runs, final once it succeeded; released with the result. Existing rows have none.
    sql: `
      ALTER TABLE jobs ADD COLUMN unredacted_path TEXT;
      CREATE INDEX jobs_by_unredacted_path ON jobs (unredacted_path) WHERE unredacted_path IS NOT NULL;
    `,
  },
  {
    version: 25,
    name: 'erased tenants, by a digest of their id (src/store/erased-tenants.ts)',
    // PostgreSQL's step 23. No data key is made again for a tenant listed here.
    sql: `
      CREATE TABLE erased_tenants (
        tenant_digest TEXT PRIMARY KEY
      ) STRICT;
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
 * Applies the steps this file has and the database lacks, each in its own IMMEDIATE transaction
 * (so two processes opening a fresh file at once cannot both apply a step). Safe to call on every
 * open. Returns the versions applied now.
 */
export function runMigrations(db: Database, migrations: readonly Migration[] = MIGRATIONS): number[] {
  checkOrder(migrations);
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version    INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    applied_at TEXT NOT NULL
  ) STRICT`);
  const latestKnown = migrations.at(-1)?.version ?? 0;
  const applied = appliedVersions(db);
  const newest = Math.max(0, ...applied);
  if (newest > latestKnown) {
    throw new MigrationError(`the database has schema version ${newest} but this svc-stt knows only up to ${latestKnown}: upgrade svc-stt`);
  }
  const isApplied = db.prepare<[number], { one: number }>('SELECT 1 AS one FROM schema_migrations WHERE version = ?');
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  const appliedNow: number[] = [];
  for (const migration of migrations) {
    if (applied.has(migration.version)) continue;
    const apply = db.transaction(() => {
      // Re-checked inside the write lock: another process may have applied it meanwhile.
      if (isApplied.get(migration.version)) return;
      db.exec(migration.sql);
      record.run(migration.version, migration.name, new Date().toISOString());
      db.pragma(`user_version = ${migration.version}`);
      appliedNow.push(migration.version);
    });
    apply.immediate();
  }
  return appliedNow;
}

function appliedVersions(db: Database): Set<number> {
  const rows = db.prepare<[], { version: number }>('SELECT version FROM schema_migrations').all();
  return new Set(rows.map((row) => row.version));
}

function checkOrder(migrations: readonly Migration[]): void {
  migrations.forEach((migration, index) => {
    if (migration.version !== index + 1) {
      throw new MigrationError(`migration '${migration.name}' has version ${migration.version}, expected ${index + 1}`);
    }
  });
}
