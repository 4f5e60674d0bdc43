// An API key's record as the parsers and use cases read it, for tests of pure logic that need a key
// but no store: today's defaults, with what a test changes.
import type { ApiKeyRecord } from '../../src/domain/api-keys.js';

export function keyRecord(overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  return {
    id: 'key_1',
    tenant: 't',
    plan: 'payg',
    entitlements: ['language_detection'],
    defaultLanguage: null,
    smartFormatDefault: false,
    redactAlways: null,
    billingState: 'active',
    retentionHours: 24,
    rateLimitPerMinute: null,
    createdAt: '2026-11-29T00:00:00Z',
    revokedAt: null,
    revokeAt: null,
    lastUsedAt: null,
    ...overrides,
  };
}
