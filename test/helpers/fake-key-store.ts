// An in-memory KeyStore for tests of the HTTP frame (the SQLite store has its own tests).
import { randomBytes } from 'node:crypto';
import {
  DEFAULT_ENTITLEMENTS,
  type ApiKeyRecord,
  type CreateKeyOptions,
  type KeyPatch,
  type KeyStore,
} from '../../src/store/key-store.js';

export class FakeKeyStore implements KeyStore {
  private readonly entries = new Map<string, { secret: string; record: ApiKeyRecord }>();
  private readonly dictionaries = new Map<string, string[]>();
  private nextId = 1;

  create(options: CreateKeyOptions = {}): { key: string; record: ApiKeyRecord } {
    const id = `key${this.nextId++}`;
    const key = `svc_${id}_${randomBytes(16).toString('hex')}`;
    const record: ApiKeyRecord = {
      id,
      tenant: options.tenant ?? `tenant-${id}`,
      plan: options.plan ?? 'payg',
      entitlements: [...(options.entitlements ?? DEFAULT_ENTITLEMENTS)],
      defaultLanguage: options.defaultLanguage ?? null,
      billingState: 'active',
      retentionHours: options.retentionHours ?? 24,
      rateLimitPerMinute: options.rateLimitPerMinute ?? null,
      createdAt: new Date(0).toISOString(),
      revokedAt: null,
    };
    this.entries.set(id, { secret: key, record });
    return { key, record: { ...record } };
  }

  authenticate(presented: string): ApiKeyRecord | null {
    for (const { secret, record } of this.entries.values()) {
      if (secret === presented && record.revokedAt === null) return { ...record };
    }
    return null;
  }

  get(id: string): ApiKeyRecord | null {
    const entry = this.entries.get(id);
    return entry ? { ...entry.record } : null;
  }

  list(): ApiKeyRecord[] {
    return [...this.entries.values()].map((e) => ({ ...e.record }));
  }

  update(id: string, patch: KeyPatch): ApiKeyRecord {
    const entry = this.entries.get(id);
    if (!entry) throw new Error('no such key');
    Object.assign(entry.record, patch);
    return { ...entry.record };
  }

  revoke(id: string): boolean {
    const entry = this.entries.get(id);
    if (!entry || entry.record.revokedAt !== null) return false;
    entry.record.revokedAt = new Date(0).toISOString();
    return true;
  }

  count(): number {
    return this.entries.size;
  }

  setDictionary(keyId: string, language: string, terms: string[]): void {
    this.dictionaries.set(`${keyId}:${language}`, [...terms]);
  }

  getDictionary(keyId: string, language: string): string[] {
    return [...(this.dictionaries.get(`${keyId}:${language}`) ?? [])];
  }
}
