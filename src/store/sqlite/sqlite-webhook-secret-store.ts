// Webhook signing secrets in SQLite, each version sealed under the master key (secret-cipher.ts).
// A row is active while superseded_at_ms is null; a rotation stamps the active row with its own
// deadline (usable_until_ms), which later rotations never move.
import type { Database, Statement } from 'better-sqlite3';
import { isPublicKeyId } from '../api-key-secret.js';
import { SECRET_ROTATION_OVERLAP_MS, WebhookSecretError, type WebhookSecretStore, type WebhookSecretSummary } from '../webhook-secret-store.js';
import { openSecret, sealSecret } from '../secret-cipher.js';
import { generateSigningSecret } from '../webhook-signing-secret.js';

interface SecretRow {
  version: number;
  ciphertext: Buffer;
  iv: Buffer;
  auth_tag: Buffer;
  created_at_ms: number;
  superseded_at_ms: number | null;
  usable_until_ms: number | null;
}

type SummaryRow = Omit<SecretRow, 'ciphertext' | 'iv' | 'auth_tag'>;

export class SqliteWebhookSecretStore implements WebhookSecretStore {
  private readonly selectKey: Statement<[string], { revoked_at: string | null }>;
  private readonly selectActive: Statement<[string], { version: number }>;
  private readonly selectNextVersion: Statement<[string], { next: number }>;
  private readonly selectVersion: Statement<[string, number], SecretRow>;
  private readonly selectSummaries: Statement<[string], SummaryRow>;
  private readonly insertSecret: Statement;
  private readonly supersede: Statement<[number, number, string, number]>;

  constructor(
    private readonly db: Database,
    private readonly masterKey: Buffer,
  ) {
    this.selectKey = db.prepare('SELECT revoked_at FROM api_keys WHERE id = ?');
    this.selectActive = db.prepare('SELECT version FROM webhook_secrets WHERE key_id = ? AND superseded_at_ms IS NULL');
    this.selectNextVersion = db.prepare('SELECT coalesce(max(version), 0) + 1 AS next FROM webhook_secrets WHERE key_id = ?');
    this.selectVersion = db.prepare('SELECT * FROM webhook_secrets WHERE key_id = ? AND version = ?');
    this.selectSummaries = db.prepare(`SELECT version, created_at_ms, superseded_at_ms, usable_until_ms
      FROM webhook_secrets WHERE key_id = ? ORDER BY version`);
    this.insertSecret = db.prepare(`INSERT INTO webhook_secrets (key_id, version, ciphertext, iv, auth_tag, created_at_ms)
      VALUES (@keyId, @version, @ciphertext, @iv, @authTag, @createdAtMs)`);
    this.supersede = db.prepare(`UPDATE webhook_secrets SET superseded_at_ms = ?, usable_until_ms = ?
      WHERE key_id = ? AND version = ? AND superseded_at_ms IS NULL`);
  }

  create(keyId: string, nowMs: number): { secret: string; version: number } {
    return this.immediately(() => {
      this.requireUsableKey(keyId);
      const active = this.selectActive.get(keyId);
      if (active) {
        throw new WebhookSecretError(
          `${keyId} already has an active webhook signing secret (version ${active.version}); use rotate to replace it`,
        );
      }
      return this.insertNext(keyId, nowMs);
    });
  }

  rotate(keyId: string, nowMs: number): { secret: string; version: number } {
    return this.immediately(() => {
      this.requireUsableKey(keyId);
      const active = this.selectActive.get(keyId);
      if (!active) throw new WebhookSecretError(`${keyId} has no webhook signing secret to rotate; use create`);
      this.supersede.run(nowMs, nowMs + SECRET_ROTATION_OVERLAP_MS, keyId, active.version);
      return this.insertNext(keyId, nowMs);
    });
  }

  list(keyId: string, nowMs: number): WebhookSecretSummary[] {
    this.requireKnownKey(keyId);
    return this.selectSummaries.all(keyId).map((row) => ({
      version: row.version,
      createdAt: new Date(row.created_at_ms).toISOString(),
      state: row.usable_until_ms === null ? 'active' : mayStillSign(row.usable_until_ms, nowMs) ? 'previous' : 'expired',
      usableUntil: row.usable_until_ms === null ? null : new Date(row.usable_until_ms).toISOString(),
    }));
  }

  activeVersion(keyId: string, _nowMs: number): number | null {
    return this.selectActive.get(keyId)?.version ?? null;
  }

  signingKey(keyId: string, version: number, nowMs: number): Buffer | null {
    const row = this.selectVersion.get(keyId, version);
    if (!row) return null;
    if (row.usable_until_ms !== null && !mayStillSign(row.usable_until_ms, nowMs)) return null;
    return openSecret(this.masterKey, rowLabel(keyId, version), { ciphertext: row.ciphertext, iv: row.iv, authTag: row.auth_tag });
  }

  private insertNext(keyId: string, nowMs: number): { secret: string; version: number } {
    const version = this.selectNextVersion.get(keyId)!.next;
    const { secret, key } = generateSigningSecret();
    const sealed = sealSecret(this.masterKey, rowLabel(keyId, version), key);
    key.fill(0);
    this.insertSecret.run({ keyId, version, ...sealed, createdAtMs: nowMs });
    return { secret, version };
  }

  /** IMMEDIATE takes the write lock up front, so two admin commands cannot both pick the same version. */
  private immediately<T>(run: () => T): T {
    return this.db.transaction(run).immediate();
  }

  private requireUsableKey(keyId: string): void {
    if (this.requireKnownKey(keyId).revoked_at !== null) {
      throw new WebhookSecretError(`API key '${keyId}' is revoked; it cannot get webhook signing secrets`);
    }
  }

  private requireKnownKey(keyId: string): { revoked_at: string | null } {
    const row = isPublicKeyId(keyId) ? this.selectKey.get(keyId) : undefined;
    if (!row) {
      // Echo only well-formed ids: an operator who pastes a secret here must not see it printed.
      const named = isPublicKeyId(keyId) ? `'${keyId}'` : 'like that (ids look like key_...)';
      throw new WebhookSecretError(`no API key with id ${named}`);
    }
    return row;
  }
}

/** The deadline is inclusive: a version signs up to and including exactly 24 h after its rotation. */
function mayStillSign(usableUntilMs: number, nowMs: number): boolean {
  return nowMs <= usableUntilMs;
}

/** Bound into each ciphertext as additional data, so it opens only in its own row. */
function rowLabel(keyId: string, version: number): string {
  return `${keyId}:${version}`;
}
