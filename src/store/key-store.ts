// API keys behind an asynchronous interface (the console's records); their words (plans,
// entitlements, the record) are the domain's (domain/api-keys.ts). Secrets are stored hashed.
import type { ApiKeyRecord, Entitlement, Plan } from '../domain/api-keys.js';

/**
 * How coarsely a key's last use is kept: a use is written only when the time stored is older than
 * this, so a busy key costs one small write a minute, whatever its request rate or process count.
 */
export const KEY_USE_RESOLUTION_MS = 60_000;

export interface CreateKeyOptions {
  tenant?: string;
  plan?: Plan;
  entitlements?: Entitlement[];
  defaultLanguage?: string | null;
  smartFormatDefault?: boolean;
  redactAlways?: string[] | null;
  retentionHours?: number;
  rateLimitPerMinute?: number | null;
}

export interface RotatedKey {
  /** The new key's secret, to show once. */
  key: string;
  record: ApiKeyRecord;
  /** The key rotated, its revocation scheduled. */
  rotated: ApiKeyRecord;
}

export type KeyPatch = Partial<
  Pick<
    ApiKeyRecord,
    'plan' | 'entitlements' | 'defaultLanguage' | 'smartFormatDefault' | 'redactAlways' | 'billingState' | 'retentionHours' | 'rateLimitPerMinute'
  >
>;

export interface KeyStore {
  /**
   * Returns the secret key once; only its hash is stored. An erased tenant's id is refused
   * (KeyStoreError 'invalid_argument'; so by createForTenant and createFirstKey too).
   */
  create(options?: CreateKeyOptions): Promise<{ key: string; record: ApiKeyRecord }>;
  /**
   * A key a tenant makes for itself (the console), in one transaction: it takes every term the
   * operator set on the tenant's model key (its oldest usable key, else its latest revoked one; the
   * defaults only for a tenant that never had a key): plan, entitlements, default language, billing
   * state, retention, rate limit and billing overrides. Prepaid credit is granted per key, so a
   * model with credit gives the new key none (the operator tops it up), never a copy.
   */
  createForTenant(tenant: string): Promise<{ key: string; record: ApiKeyRecord }>;
  /** The active (not revoked) key matching a presented secret, compared in constant time; else null. */
  authenticate(presented: string): Promise<ApiKeyRecord | null>;
  get(id: string): Promise<ApiKeyRecord | null>;
  /** Every key, or one tenant's, oldest first (then by id in byte order). */
  list(tenant?: string): Promise<ApiKeyRecord[]>;
  update(id: string, patch: KeyPatch): Promise<ApiKeyRecord>;
  revoke(id: string): Promise<boolean>;
  /**
   * Rotation, in one transaction: a new key of the tenant with the key's terms (plan, entitlements,
   * default language, billing state, retention, rate limit, dictionaries, billing overrides; the
   * prepaid credit it has left moves to the new key), shown once, and the key's revocation scheduled
   * at `revokeAt`. not_found when the key is unknown or no longer usable; invalid_argument when its
   * revocation is scheduled already.
   */
  rotate(id: string, revokeAt: Date): Promise<RotatedKey>;
  /**
   * Records that the key was used now (the store's clock): written only while the key is usable and
   * its last use is unset or more than KEY_USE_RESOLUTION_MS older, in one conditional statement, so
   * processes sharing the database write it once a minute between them and it never moves backwards.
   * Whether it was written; an unknown id writes nothing.
   */
  recordUse(id: string): Promise<boolean>;
  /** Keys whose scheduled revocation has come and is not carried out yet (the sweeper revokes them), soonest first. */
  dueRevocations(): Promise<string[]>;
  count(): Promise<number>;
  /**
   * A fresh install's first key: created only when the store holds no key at all, and committed only
   * after `persist` (which hands the secret over, e.g. writes it to a 0600 file) returned without
   * throwing, so no key exists that nobody has. Atomic across processes starting at once: at most
   * one of them creates it. Returns the secret, or null when a key existed already.
   */
  createFirstKey(persist: (key: string) => void, options?: CreateKeyOptions): Promise<string | null>;
  /** The key's stored dictionary for a language family (e.g. 'en'); replaces the previous list. */
  setDictionary(keyId: string, language: string, terms: string[]): Promise<void>;
  getDictionary(keyId: string, language: string): Promise<string[]>;
}
