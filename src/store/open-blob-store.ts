// Opens the blob store a process works with: local disk in the data folder (the embedded default),
// or an S3-compatible bucket (SVC_S3_BUCKET), whose request bodies still spool to the data folder.
// The one place that picks the implementation, for the server and the admin CLI alike.
import { join } from 'node:path';

import type { BlobStore } from './blob-store.js';
import { localBlobRoot, LocalBlobStore } from './local-blob-store.js';
import { S3BlobStore } from './s3/s3-blob-store.js';
import type { S3BucketSettings } from './s3/s3-settings.js';

export interface OpenedBlobStore {
  kind: 'local' | 's3';
  blobs: BlobStore;
  /** The local store itself (tests wrap it to inject faults); null with S3. */
  local: LocalBlobStore | null;
  close(): void;
}

export function openBlobStore(dataDir: string, s3: S3BucketSettings | null): OpenedBlobStore {
  if (s3 === null) {
    const local = new LocalBlobStore(localBlobRoot(dataDir));
    return { kind: 'local', blobs: local, local, close: () => {} };
  }
  // The AWS SDK warns about runtimes it will drop; such a warning would land in the service's JSON logs
  // as plain text.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const store = new S3BlobStore({ ...s3, spoolDir: join(localBlobRoot(dataDir), 'uploads') });
  return { kind: 's3', blobs: store, local: null, close: () => store.close() };
}
