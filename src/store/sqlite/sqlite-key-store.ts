// API keys and their dictionaries in SQLite. See api-key-secret.ts for the key format.
import { timingSafeEqual } from 'node:crypto';
import type { Database, Statement } from 'better-sqlite3';
import { generateKeySecret, isPublicKeyId, parsePresentedKey } from '../api-key-secret.js';
import { KeyStoreError } from '../key-store-error.js';
import {
  DEFAULT_ENTITLEMENTS,
  type ApiKeyRecord,
  type CreateKeyOptions,
  type Entitlement,
  type KeyPatch,
  type KeyStore,
  type Plan,
  type BillingState,
} from '../key-store.js';
import {
  validateBillingState,
  validateDefaultLanguage,
  validateDictionaryTerms,
  validateEntitlements,
  validateLanguageFamily,
  validatePlan,
  validateRateLimit,
  validateRetentionHours,
  validateTenant,
} from '../key-validation.js';
import { randomBase62 } from '../random-id.js';

const DEFAULT_PLAN: Plan = 'payg';
const DEFAULT_RETENTION_HOURS = 24;

interface KeyRow {
  id: string;
  tenant: string;
  secret_sha256: Buffer;
  plan: string;
  entitlements: string;
  default_language: string | null;
  billing_state: string;
  retention_hours: number;
  rate_limit_per_minute: number | null;
  created_at: string;
  revoked_at: string | null;
}

// Compared against when the presented id has no row, so an unknown id costs what a known one does.
const DUMMY_HASH = Buffer.alloc(32, 0xa5);

export class SqliteKeyStore implements KeyStore {
  private readonly insertKey: Statement;
  private readonly selectKey: Statement<[string], KeyRow>;
  private readonly selectAll: Statement<[], KeyRow>;
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
    this.countKeys = db.prepare('SELECT count(*) AS n FROM api_keys');
    this.revokeKey = db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');
    this.upsertDictionary = db.prepare(`INSERT INTO key_dictionaries (key_id, language, terms, updated_at) VALUES (?, ?, ?, ?)
      ON CONFLICT (key_id, language) DO UPDATE SET terms = excluded.terms, updated_at = excluded.updated_at`);
    this.selectDictionary = db.prepare('SELECT terms FROM key_dictionaries WHERE key_id = ? AND language = ?');
  }

  create(options: CreateKeyOptions = {}, now = new Date()): { key: string; record: ApiKeyRecord } {
    const tenant = options.tenant === undefined ? `ten_${randomBase62(16)}` : validateTenant(options.tenant);
    const plan = validatePlan(options.plan ?? DEFAULT_PLAN);
    const entitlements = validateEntitlements(options.entitlements ?? DEFAULT_ENTITLEMENTS);
    const defaultLanguage = validateDefaultLanguage(options.defaultLanguage ?? null);
    const retentionHours = validateRetentionHours(options.retentionHours ?? DEFAULT_RETENTION_HOURS);
    const rateLimitPerMinute = validateRateLimit(options.rateLimitPerMinute ?? null);
    const secret = generateKeySecret();
    this.insertKey.run({
      id: secret.id,
      tenant,
      secret_sha256: secret.secretSha256,
      plan,
      entitlements: JSON.stringify(entitlements),
      default_language: defaultLanguage,
      billing_state: 'active',
      retention_hours: retentionHours,
      rate_limit_per_minute: rateLimitPerMinute,
      created_at: now.toISOString(),
    });
    return { key: secret.key, record: this.require(secret.id) };
  }

  authenticate(presented: string): ApiKeyRecord | null {
    // The format is public, so rejecting a malformed string early reveals nothing.
    const parsed = typeof presented === 'string' ? parsePresentedKey(presented) : null;
    if (!parsed) return null;
    const row = this.selectKey.get(parsed.id);
    const matches = timingSafeEqual(row ? row.secret_sha256 : DUMMY_HASH, parsed.secretSha256);
    if (!row || !matches || row.revoked_at !== null) return null;
    return toRecord(row);
  }

  get(id: string): ApiKeyRecord | null {
    if (!isPublicKeyId(id)) return null;
    const row = this.selectKey.get(id);
    return row ? toRecord(row) : null;
  }

  list(): ApiKeyRecord[] {
    return this.selectAll.all().map(toRecord);
  }

  update(id: string, patch: KeyPatch): ApiKeyRecord {
    const changes: Record<string, string | number | null> = {};
    if (patch.plan !== undefined) changes.plan = validatePlan(patch.plan);
    if (patch.entitlements !== undefined) changes.entitlements = JSON.stringify(validateEntitlements(patch.entitlements));
    if (patch.defaultLanguage !== undefined) changes.default_language = validateDefaultLanguage(patch.defaultLanguage);
    if (patch.billingState !== undefined) changes.billing_state = validateBillingState(patch.billingState);
    if (patch.retentionHours !== undefined) changes.retention_hours = validateRetentionHours(patch.retentionHours);
    if (patch.rateLimitPerMinute !== undefined) changes.rate_limit_per_minute = validateRateLimit(patch.rateLimitPerMinute);
    this.require(id);
    const columns = Object.keys(changes);
    if (columns.length > 0) {
      // Column names come from the fixed list above, never from the caller.
      const assignments = columns.map((column) => `${column} = @${column}`).join(', ');
      this.db.prepare(`UPDATE api_keys SET ${assignments} WHERE id = @id`).run({ ...changes, id });
    }
    return this.require(id);
  }

  revoke(id: string, now = new Date()): boolean {
    this.require(id);
    return this.revokeKey.run(now.toISOString(), id).changes === 1;
  }

  count(): number {
    return this.countKeys.get()!.n;
  }

  setDictionary(keyId: string, language: string, terms: string[], now = new Date()): void {
    const family = validateLanguageFamily(language);
    const cleaned = validateDictionaryTerms(terms);
    this.require(keyId);
    this.upsertDictionary.run(keyId, family, JSON.stringify(cleaned), now.toISOString());
  }

  getDictionary(keyId: string, language: string): string[] {
    const row = this.selectDictionary.get(keyId, language);
    return row ? (JSON.parse(row.terms) as string[]) : [];
  }

  private require(id: string): ApiKeyRecord {
    const record = this.get(id);
    if (!record) {
      // Echo only well-formed ids: an operator who pastes the secret key here must not see it printed.
      const named = isPublicKeyId(id) ? `'${id}'` : 'like that (ids look like key_...)';
      throw new KeyStoreError('not_found', `no API key with id ${named}`);
    }
    return record;
  }
}

function toRecord(row: KeyRow): ApiKeyRecord {
  return {
    id: row.id,
    tenant: row.tenant,
    plan: row.plan as Plan,
    entitlements: JSON.parse(row.entitlements) as Entitlement[],
    defaultLanguage: row.default_language,
    billingState: row.billing_state as BillingState,
    retentionHours: row.retention_hours,
    rateLimitPerMinute: row.rate_limit_per_minute,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  };
}
