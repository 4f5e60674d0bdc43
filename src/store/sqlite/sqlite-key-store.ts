// API keys and their dictionaries in SQLite. See api-key-secret.ts for the key format; validation,
// defaults and row mapping are shared with the PostgreSQL store (key-record.ts).
import type { Database, Statement } from 'better-sqlite3';
import { isPublicKeyId, parsePresentedKey } from '../api-key-secret.js';
import { keyNotFound, keyPatchColumns, keyRecordOf, newKeyRow, presentedKeyMatches, type KeyRow } from '../key-record.js';
import type { ApiKeyRecord, CreateKeyOptions, KeyPatch, KeyStore } from '../key-store.js';
import { validateDictionaryTerms, validateLanguageFamily } from '../key-validation.js';

export class SqliteKeyStore implements KeyStore {
  private readonly insertKey: Statement;
  private readonly selectKey: Statement<[string], KeyRow>;
  private readonly selectAll: Statement<[], KeyRow>;
  private readonly selectTenant: Statement<[string], KeyRow>;
  private readonly countKeys: Statement<[], { n: number }>;
  private readonly revokeKey: Statement<[string, string]>;
  private readonly upsertDictionary: Statement<[string, string, string, string]>;
  private readonly selectDictionary: Statement<[string, string], { terms: string }>;

  constructor(private readonly db: Database) {
    this.insertKey = db.prepare(`INSERT INTO api_keys
      (id, tenant, secret_sha256, plan, entitlements, default_language, billing_state, retention_hours, rate_limit_per_minute, created_at)
      VALUES (@id, @tenant, @secret_sha256, @plan, @entitlements, @default_language, @billing_state, @retention_hours, @rate_limit_per_minute, @created_at)`);
    this.selectKey = db.prepare('SELECT * FROM api_keys WHERE id = ?');
    this.selectAll = db.prepare('SELECT * FROM api_keys ORDER BY created_at, id');
    this.selectTenant = db.prepare('SELECT * FROM api_keys WHERE tenant = ? ORDER BY created_at, id');
    this.countKeys = db.prepare('SELECT count(*) AS n FROM api_keys');
    this.revokeKey = db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');
    this.upsertDictionary = db.prepare(`INSERT INTO key_dictionaries (key_id, language, terms, updated_at) VALUES (?, ?, ?, ?)
      ON CONFLICT (key_id, language) DO UPDATE SET terms = excluded.terms, updated_at = excluded.updated_at`);
    this.selectDictionary = db.prepare('SELECT terms FROM key_dictionaries WHERE key_id = ? AND language = ?');
  }

  async create(options: CreateKeyOptions = {}, now = new Date()): Promise<{ key: string; record: ApiKeyRecord }> {
    return this.insertNew(options, now);
  }

  async createFirstKey(persist: (key: string) => void, options: CreateKeyOptions = {}): Promise<string | null> {
    // Synchronous inside one IMMEDIATE transaction: nothing else can run on this connection meanwhile.
    return this.db
      .transaction(() => {
        if (this.countKeys.get()!.n > 0) return null;
        const { key } = this.insertNew(options, new Date());
        persist(key);
        return key;
      })
      .immediate();
  }

  async authenticate(presented: string): Promise<ApiKeyRecord | null> {
    // The format is public, so rejecting a malformed string early reveals nothing.
    const parsed = typeof presented === 'string' ? parsePresentedKey(presented) : null;
    if (!parsed) return null;
    const row = this.selectKey.get(parsed.id);
    return presentedKeyMatches(row, parsed.secretSha256) ? keyRecordOf(row!) : null;
  }

  async get(id: string): Promise<ApiKeyRecord | null> {
    return this.find(id);
  }

  async list(tenant?: string): Promise<ApiKeyRecord[]> {
    return (tenant === undefined ? this.selectAll.all() : this.selectTenant.all(tenant)).map(keyRecordOf);
  }

  async update(id: string, patch: KeyPatch): Promise<ApiKeyRecord> {
    const changes = keyPatchColumns(patch);
    this.require(id);
    const columns = Object.keys(changes);
    if (columns.length > 0) {
      const assignments = columns.map((column) => `${column} = @${column}`).join(', ');
      this.db.prepare(`UPDATE api_keys SET ${assignments} WHERE id = @id`).run({ ...changes, id });
    }
    return this.require(id);
  }

  async revoke(id: string, now = new Date()): Promise<boolean> {
    this.require(id);
    return this.revokeKey.run(now.toISOString(), id).changes === 1;
  }

  async count(): Promise<number> {
    return this.countKeys.get()!.n;
  }

  async setDictionary(keyId: string, language: string, terms: string[], now = new Date()): Promise<void> {
    const family = validateLanguageFamily(language);
    const cleaned = validateDictionaryTerms(terms);
    this.require(keyId);
    this.upsertDictionary.run(keyId, family, JSON.stringify(cleaned), now.toISOString());
  }

  async getDictionary(keyId: string, language: string): Promise<string[]> {
    const row = this.selectDictionary.get(keyId, language);
    return row ? (JSON.parse(row.terms) as string[]) : [];
  }

  private insertNew(options: CreateKeyOptions, now: Date): { key: string; record: ApiKeyRecord } {
    const { key, row } = newKeyRow(options, now);
    this.insertKey.run(row);
    return { key, record: this.require(row.id) };
  }

  private find(id: string): ApiKeyRecord | null {
    if (!isPublicKeyId(id)) return null;
    const row = this.selectKey.get(id);
    return row ? keyRecordOf(row) : null;
  }

  private require(id: string): ApiKeyRecord {
    const record = this.find(id);
    if (!record) throw keyNotFound(id);
    return record;
  }
}
