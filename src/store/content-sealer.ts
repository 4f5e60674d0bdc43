// What the stores call to keep content sealed at rest (issue 48): text columns (a job's request and
// carry-over, a stored answer, a voice profile) and blob streams, each under its tenant's current
// data key, with the object's identity (`aad`) bound in. Opening reads the data key version from the
// sealed bytes. A value without the sealed form is returned as it is: content written before sealing
// existed stays readable until the background sealing seals it (plain-content-sealing.ts).
import type { Transform } from 'node:stream';

import type { StoreDb } from './kysely/store-schema.js';
import { openBuffer, sealBuffer, SEALED_TEXT_PREFIX, sealedKeyVersion } from './sealed-buffer.js';
import { openStream, sealStream } from './sealed-stream.js';
import { SealingError } from './sealing-error.js';
import type { TenantKeys } from './tenant-keys.js';

export class ContentSealer {
  constructor(readonly keys: TenantKeys) {}

  /** The same sealer, reading keys through a transaction the caller holds (see TenantKeys.within). */
  within(db: StoreDb): ContentSealer {
    return new ContentSealer(this.keys.within(db));
  }

  /** `stored` opened when it is not null. */
  async openNullable(tenant: string, aad: string, stored: string | null): Promise<string | null> {
    return stored === null ? null : this.openText(tenant, aad, stored);
  }

  async sealText(tenant: string, aad: string, plain: string): Promise<string> {
    const { version, key } = await this.keys.current(tenant);
    return SEALED_TEXT_PREFIX + sealBuffer(key, version, aad, Buffer.from(plain, 'utf8')).toString('base64');
  }

  async openText(tenant: string, aad: string, stored: string): Promise<string> {
    if (!isSealedText(stored)) return stored;
    const sealed = Buffer.from(stored.slice(SEALED_TEXT_PREFIX.length), 'base64');
    const version = sealedKeyVersion(sealed);
    if (version === null) throw new SealingError(`${aad}: the sealed value is damaged`);
    return openBuffer(await this.keys.version(tenant, version), aad, sealed).toString('utf8');
  }

  /** Plaintext in, sealed bytes out, under the tenant's current key (fetched before the stream is made). */
  async sealStream(tenant: string, aad: string): Promise<Transform> {
    const { version, key } = await this.keys.current(tenant);
    return sealStream(key, version, aad);
  }

  /** Sealed bytes in, plaintext out. */
  openStream(tenant: string, aad: string): Transform {
    return openStream((version) => this.keys.version(tenant, version), aad);
  }
}

export function isSealedText(stored: string): boolean {
  return stored.startsWith(SEALED_TEXT_PREFIX);
}
