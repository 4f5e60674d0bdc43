// The pure half of a KeyStore, shared by its implementations so that every store validates the same
// inputs, writes the same columns and returns the same records: creation defaults and checks, patch
// checks, row -> record mapping, the constant-time secret check, the not_found error. No database here.
import { timingSafeEqual } from 'node:crypto';

import { type ApiKeyRecord, type BillingState, DEFAULT_ENTITLEMENTS, type Entitlement, type Plan } from '../domain/api-keys.js';
import { generateKeySecret, isPublicKeyId } from './api-key-secret.js';
import { type CreateKeyOptions, type KeyPatch } from './key-store.js';
import { KeyStoreError } from './key-store-error.js';
import {
  validateBillingState,
  validateDefaultLanguage,
  validateEntitlements,
  validatePlan,
  validateRateLimit,
  validateRedactAlways,
  validateRetentionHours,
  validateTenant,
} from './key-validation.js';
import { randomBase62 } from './random-id.js';

export const DEFAULT_PLAN: Plan = 'payg';
export const DEFAULT_RETENTION_HOURS = 24;

/** A row of `api_keys`; entitlements are JSON text. */
export interface KeyRow {
  id: string;
  tenant: string;
  secret_sha256: Buffer;
  plan: string;
  entitlements: string;
  default_language: string | null;
  /** 1: smart_format unless a request says otherwise. */
  smart_format_default: number;
  /** Comma-separated redaction policies every transcript gets; null: none. */
  redact_always: string | null;
  billing_state: string;
  retention_hours: number;
  rate_limit_per_minute: number | null;
  created_at: string;
  revoked_at: string | null;
  /** A scheduled revocation (ISO time); null: none. */
  revoke_at: string | null;
  /** The key's last use (ISO time, KEY_USE_RESOLUTION_MS coarse); null: never used. */
  last_used_at: string | null;
}

export type NewKeyRow = Omit<KeyRow, 'revoked_at' | 'revoke_at' | 'last_used_at'>;

/**
 * When the row's key stopped being usable as of `nowMs`: its revocation, or its scheduled revocation
 * once due; null while it is usable. The one rule: every read of a key (authentication, the key
 * watch, re-checks of long work) goes through the store, which applies it with its clock.
 */
export function revokedAtOf(row: Pick<KeyRow, 'revoked_at' | 'revoke_at'>, nowMs: number): string | null {
  if (row.revoked_at !== null) return row.revoked_at;
  return row.revoke_at !== null && Date.parse(row.revoke_at) <= nowMs ? row.revoke_at : null;
}

/** The validated row of a new key and the secret key to show once. Throws KeyStoreError('invalid_argument'). */
export function newKeyRow(options: CreateKeyOptions, now: Date): { key: string; row: NewKeyRow } {
  const tenant = options.tenant === undefined ? `ten_${randomBase62(16)}` : validateTenant(options.tenant);
  const plan = validatePlan(options.plan ?? DEFAULT_PLAN);
  const entitlements = validateEntitlements(options.entitlements ?? DEFAULT_ENTITLEMENTS);
  const defaultLanguage = validateDefaultLanguage(options.defaultLanguage ?? null);
  const retentionHours = validateRetentionHours(options.retentionHours ?? DEFAULT_RETENTION_HOURS);
  const rateLimitPerMinute = validateRateLimit(options.rateLimitPerMinute ?? null);
  const redactAlways = validateRedactAlways(options.redactAlways ?? null);
  const secret = generateKeySecret();
  return {
    key: secret.key,
    row: {
      id: secret.id,
      tenant,
      secret_sha256: secret.secretSha256,
      plan,
      entitlements: JSON.stringify(entitlements),
      default_language: defaultLanguage,
      smart_format_default: options.smartFormatDefault ? 1 : 0,
      redact_always: redactAlways === null ? null : redactAlways.join(','),
      billing_state: 'active',
      retention_hours: retentionHours,
      rate_limit_per_minute: rateLimitPerMinute,
      created_at: now.toISOString(),
    },
  };
}

/** The validated columns a patch changes (possibly none). Column names come from this fixed list, never from the caller. */
export function keyPatchColumns(patch: KeyPatch): Record<string, string | number | null> {
  const changes: Record<string, string | number | null> = {};
  if (patch.plan !== undefined) changes.plan = validatePlan(patch.plan);
  if (patch.entitlements !== undefined) changes.entitlements = JSON.stringify(validateEntitlements(patch.entitlements));
  if (patch.defaultLanguage !== undefined) changes.default_language = validateDefaultLanguage(patch.defaultLanguage);
  if (patch.smartFormatDefault !== undefined) changes.smart_format_default = patch.smartFormatDefault ? 1 : 0;
  if (patch.redactAlways !== undefined) {
    const policies = validateRedactAlways(patch.redactAlways);
    changes.redact_always = policies === null ? null : policies.join(',');
  }
  if (patch.billingState !== undefined) changes.billing_state = validateBillingState(patch.billingState);
  if (patch.retentionHours !== undefined) changes.retention_hours = validateRetentionHours(patch.retentionHours);
  if (patch.rateLimitPerMinute !== undefined) changes.rate_limit_per_minute = validateRateLimit(patch.rateLimitPerMinute);
  return changes;
}

/** The terms a new key takes from `record` (rotation's successor, a console key's model): all but the billing state and billing rows. */
export function keyTermsOf(record: ApiKeyRecord): CreateKeyOptions {
  const { tenant, plan, entitlements, defaultLanguage, smartFormatDefault, redactAlways, retentionHours, rateLimitPerMinute } = record;
  return { tenant, plan, entitlements, defaultLanguage, smartFormatDefault, redactAlways, retentionHours, rateLimitPerMinute };
}

/** The record of a row as of `nowMs` (a key past its scheduled revocation reads as revoked). */
export function keyRecordOf(row: KeyRow, nowMs: number): ApiKeyRecord {
  return {
    id: row.id,
    tenant: row.tenant,
    plan: row.plan as Plan,
    entitlements: JSON.parse(row.entitlements) as Entitlement[],
    defaultLanguage: row.default_language,
    smartFormatDefault: row.smart_format_default === 1,
    redactAlways: row.redact_always === null ? null : row.redact_always.split(','),
    billingState: row.billing_state as BillingState,
    retentionHours: row.retention_hours,
    rateLimitPerMinute: row.rate_limit_per_minute,
    createdAt: row.created_at,
    revokedAt: revokedAtOf(row, nowMs),
    revokeAt: row.revoke_at,
    lastUsedAt: row.last_used_at,
  };
}

// Compared against when the presented id has no row, so an unknown id costs what a known one does.
const DUMMY_HASH = Buffer.alloc(32, 0xa5);

/** Whether the row (null: no row for the presented id) is a key usable at `nowMs` whose secret hashes to `presentedSha256`. */
export function presentedKeyMatches(
  row: Pick<KeyRow, 'secret_sha256' | 'revoked_at' | 'revoke_at'> | null | undefined,
  presentedSha256: Buffer,
  nowMs: number,
): boolean {
  const matches = timingSafeEqual(row ? row.secret_sha256 : DUMMY_HASH, presentedSha256);
  return !!row && matches && revokedAtOf(row, nowMs) === null;
}

/** How an id is named in an error: well-formed ids only, so a pasted secret key is never printed back. */
export function namedKeyId(id: string): string {
  return isPublicKeyId(id) ? `'${id}'` : 'like that (ids look like key_...)';
}

export function keyNotFound(id: string): KeyStoreError {
  return new KeyStoreError('not_found', `no API key with id ${namedKeyId(id)}`);
}
