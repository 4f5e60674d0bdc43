// A ContentSealer for stores built directly in tests: tenants' data keys in the test's own database,
// wrapped under one fixed test master key, so the racer processes the store tests start on one
// database agree with their parent.
import { createHash } from 'node:crypto';

import { ContentSealer } from '../../src/store/content-sealer.js';
import type { IdempotencyStoreOptions } from '../../src/store/idempotency-store.js';
import type { JobStoreOptions } from '../../src/store/job-store.js';
import { KyselyIdempotencyStore } from '../../src/store/kysely/kysely-idempotency-store.js';
import { KyselyJobStore } from '../../src/store/kysely/kysely-job-store.js';
import { KyselyKeyStore } from '../../src/store/kysely/kysely-key-store.js';
import { KyselyTenantKeys } from '../../src/store/kysely/kysely-tenant-keys.js';
import { KyselyVoiceProfileStore } from '../../src/store/kysely/kysely-voice-profile-store.js';
import type { StoreDb } from '../../src/store/kysely/store-schema.js';
import { LocalKeyProvider } from '../../src/store/master-keys.js';

export const TEST_MASTER_KEY = createHash('sha256').update('svc-stt test master key').digest();
const provider = new LocalKeyProvider([TEST_MASTER_KEY]);

export function testSealer(db: StoreDb): ContentSealer {
  return new ContentSealer(new KyselyTenantKeys(db, () => provider));
}

export function testJobStore(db: StoreDb, options?: JobStoreOptions): KyselyJobStore {
  return new KyselyJobStore(db, testSealer(db), options);
}

export function testIdempotencyStore(db: StoreDb, options?: IdempotencyStoreOptions): KyselyIdempotencyStore {
  return new KyselyIdempotencyStore(db, testSealer(db), options);
}

export function testVoiceProfileStore(db: StoreDb): KyselyVoiceProfileStore {
  return new KyselyVoiceProfileStore(db, testSealer(db));
}

export function testKeyStore(db: StoreDb, clock?: () => number): KyselyKeyStore {
  return new KyselyKeyStore(db, testSealer(db), clock);
}
