// Webhook signing secrets in SQLite, each version sealed under the master key (secret-cipher.ts).
// A row is active while superseded_at_ms is null; a rotation stamps the active row with its own
// deadline (usable_until_ms), which later rotations never move. Sealing, opening, summaries and
// refusals are shared with the PostgreSQL store (webhook-secret-record.ts).
import type { Database, Statement } from 'better-sqlite3';
import { isPublicKeyId } from '../api-key-secret.js';
import {
  openSigningKey,
  sealNewVersion,
  secretRefusal,
  secretSummaryOf,
  supersededAt,
  type SecretRow,
  type SecretSummaryRow,
} from '../webhook-secret-record.js';
import type { WebhookSecretStore, WebhookSecretSummary } from '../webhook-secret-store.js';

export class SqliteWebhookSecretStore implements WebhookSecretStore {
  private readonly selectKey: Statement<[string], { revoked_at: string | null }>;
  private readonly selectActive: Statement<[string], { version: number }>;
  private readonly selectNextVersion: Statement<[string], { next: number }>;
  private readonly selectVersion: Statement<[string, number], SecretRow>;
  private readonly selectSummaries: Statement<[string], SecretSummaryRow>;
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

  async create(keyId: string, nowMs: number): Promise<{ secret: string; version: number }> {
    return this.immediately(() => {
      this.requireUsableKey(keyId);
      const active = this.selectActive.get(keyId);
      if (active) throw secretRefusal.alreadyActive(keyId, active.version);
      return this.insertNext(keyId, nowMs);
    });
  }

  async rotate(keyId: string, nowMs: number): Promise<{ secret: string; version: number }> {
    return this.immediately(() => {
      this.requireUsableKey(keyId);
      const active = this.selectActive.get(keyId);
      if (!active) throw secretRefusal.nothingToRotate(keyId);
      const { supersededAtMs, usableUntilMs } = supersededAt(nowMs);
      this.supersede.run(supersededAtMs, usableUntilMs, keyId, active.version);
      return this.insertNext(keyId, nowMs);
    });
  }

  async list(keyId: string, nowMs: number): Promise<WebhookSecretSummary[]> {
    this.requireKnownKey(keyId);
    return this.selectSummaries.all(keyId).map((row) => secretSummaryOf(row, nowMs));
  }

  async activeVersion(keyId: string, _nowMs: number): Promise<number | null> {
    return this.selectActive.get(keyId)?.version ?? null;
  }

  async signingKey(keyId: string, version: number, nowMs: number): Promise<Buffer | null> {
    const row = this.selectVersion.get(keyId, version);
    return row ? openSigningKey(this.masterKey, keyId, row, nowMs) : null;
  }

  private insertNext(keyId: string, nowMs: number): { secret: string; version: number } {
    const version = this.selectNextVersion.get(keyId)!.next;
    const { secret, sealed } = sealNewVersion(this.masterKey, keyId, version);
    this.insertSecret.run({ keyId, version, ...sealed, createdAtMs: nowMs });
    return { secret, version };
  }

  /** IMMEDIATE takes the write lock up front, so two admin commands cannot both pick the same version. */
  private immediately<T>(run: () => T): T {
    return this.db.transaction(run).immediate();
  }

  private requireUsableKey(keyId: string): void {
    if (this.requireKnownKey(keyId).revoked_at !== null) throw secretRefusal.revokedKey(keyId);
  }

  private requireKnownKey(keyId: string): { revoked_at: string | null } {
    const row = isPublicKeyId(keyId) ? this.selectKey.get(keyId) : undefined;
    if (!row) throw secretRefusal.unknownKey(keyId);
    return row;
  }
}
