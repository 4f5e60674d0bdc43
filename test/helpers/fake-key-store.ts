// An in-memory KeyStore for tests of the HTTP frame (the SQLite store has its own tests).
import { randomBytes } from 'node:crypto';

import { type ApiKeyRecord, DEFAULT_ENTITLEMENTS } from '../../src/domain/api-keys.js';
import { type CreateKeyOptions, type KeyPatch, type KeyStore } from '../../src/store/key-store.js';

export class FakeKeyStore implements KeyStore {
  private readonly entries = new Map<string, { secret: string; record: ApiKeyRecord }>();
  private readonly dictionaries = new Map<string, string[]>();
  private nextId = 1;

  async create(options: CreateKeyOptions = {}): Promise<{ key: string; record: ApiKeyRecord }> {
    return this.add(options);
  }

  /** Synchronous creation, for frame tests that make keys inline (the double needs no I/O). */
  add(options: CreateKeyOptions = {}): { key: string; record: ApiKeyRecord } {
    const id = `key${this.nextId++}`;
    const key = `svc_${id}_${randomBytes(16).toString('hex')}`;
    const record: ApiKeyRecord = {
      id,
      tenant: options.tenant ?? `tenant-${id}`,
      plan: options.plan ?? 'payg',
      entitlements: [...(options.entitlements ?? DEFAULT_ENTITLEMENTS)],
      defaultLanguage: options.defaultLanguage ?? null,
      smartFormatDefault: options.smartFormatDefault ?? false,
      redactAlways: options.redactAlways ?? null,
      billingState: 'active',
      retentionHours: options.retentionHours ?? 24,
      rateLimitPerMinute: options.rateLimitPerMinute ?? null,
      createdAt: new Date(0).toISOString(),
      revokedAt: null,
      revokeAt: null,
      lastUsedAt: null,
    };
    this.entries.set(id, { secret: key, record });
    return { key, record: { ...record } };
  }

  async authenticate(presented: string): Promise<ApiKeyRecord | null> {
    for (const { secret, record } of this.entries.values()) {
      if (secret === presented && record.revokedAt === null) return { ...record };
    }
    return null;
  }

  async get(id: string): Promise<ApiKeyRecord | null> {
    const entry = this.entries.get(id);
    return entry ? { ...entry.record } : null;
  }

  async list(): Promise<ApiKeyRecord[]> {
    return [...this.entries.values()].map((e) => ({ ...e.record }));
  }

  async update(id: string, patch: KeyPatch): Promise<ApiKeyRecord> {
    const entry = this.entries.get(id);
    if (!entry) throw new Error('no such key');
    Object.assign(entry.record, patch);
    return { ...entry.record };
  }

  async revoke(id: string): Promise<boolean> {
    const entry = this.entries.get(id);
    if (!entry || entry.record.revokedAt !== null) return false;
    entry.record.revokedAt = new Date(0).toISOString();
    return true;
  }

  async createForTenant(): Promise<never> {
    throw new Error('FakeKeyStore does not make console keys (the Kysely store has the contract tests)');
  }

  async rotate(): Promise<never> {
    throw new Error('FakeKeyStore does not rotate keys (the Kysely store has the contract tests)');
  }

  /** Every use of a usable key (the coarse rule is the Kysely store's, contract-tested there). */
  async recordUse(id: string): Promise<boolean> {
    const entry = this.entries.get(id);
    if (!entry || entry.record.revokedAt !== null) return false;
    entry.record.lastUsedAt = new Date().toISOString();
    return true;
  }

  async dueRevocations(): Promise<string[]> {
    return [];
  }

  async count(): Promise<number> {
    return this.entries.size;
  }

  async createFirstKey(persist: (key: string) => void, options: CreateKeyOptions = {}): Promise<string | null> {
    if (this.entries.size > 0) return null;
    const { key, record } = await this.create(options);
    try {
      persist(key);
    } catch (error) {
      this.entries.delete(record.id);
      throw error;
    }
    return key;
  }

  async setDictionary(keyId: string, language: string, terms: string[]): Promise<void> {
    this.dictionaries.set(`${keyId}:${language}`, [...terms]);
  }

  async getDictionary(keyId: string, language: string): Promise<string[]> {
    return [...(this.dictionaries.get(`${keyId}:${language}`) ?? [])];
  }
}
