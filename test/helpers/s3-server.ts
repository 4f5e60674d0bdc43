// A throwaway S3-compatible server for tests (docs/DESIGN.md "Dependencies"): s3rver on a free loopback
// port, its data in a temp dir removed afterwards, one bucket created at start. s3rver accepts the
// access key id and secret 'S3RVER'; it stores POST uploads without enforcing their policy and
// ignores conditional PUT headers, so tests check what our code signs and does, not its enforcement.
import { mkdtempSync, rmSync, utimesSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { S3BlobStoreSettings } from '../../src/store/s3/s3-settings.js';

interface S3rverInstance {
  run(): Promise<{ address: string; port: number }>;
  close(): Promise<void>;
}
type S3rverClass = new (options: {
  address: string;
  port: number;
  silent: boolean;
  directory: string;
  configureBuckets: Array<{ name: string; configs: string[] }>;
}) => S3rverInstance;

// The AWS SDK warns once per process that its releases after January 2027 need Node 22; the
// variable it reads (@aws-sdk/core's emitWarningIfUnsupportedVersion) keeps test output clean.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

// s3rver is CommonJS without type declarations.
const S3rver = createRequire(import.meta.url)('s3rver') as S3rverClass;

export const S3RVER_CREDENTIALS = Object.freeze({ accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' });
export const S3RVER_REGION = 'us-east-1';

export interface S3TestServer {
  /** http://127.0.0.1:PORT */
  readonly endpoint: string;
  readonly port: number;
  readonly bucket: string;
  readonly region: string;
  readonly credentials: { accessKeyId: string; secretAccessKey: string };
  /** Makes an object's LastModified `ms` earlier than now (s3rver reports its file's mtime). */
  ageObject(key: string, ms: number): void;
  /** Stops the server; its data stays until close(), so start() brings the bucket back. */
  stop(): Promise<void>;
  /** Starts a stopped server again on the same port and data. */
  start(): Promise<void>;
  /** Stops the server and removes its data. */
  close(): Promise<void>;
}

export async function startS3Server(options: { bucket?: string } = {}): Promise<S3TestServer> {
  const bucket = options.bucket ?? 'svc-stt-test';
  const directory = mkdtempSync(join(tmpdir(), 'svc-stt-s3-'));
  const make = (port: number) => new S3rver({ address: '127.0.0.1', port, silent: true, directory, configureBuckets: [{ name: bucket, configs: [] }] });
  let server: S3rverInstance | null = make(0);
  const { port } = await server.run();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    bucket,
    region: S3RVER_REGION,
    credentials: { ...S3RVER_CREDENTIALS },
    ageObject(key, ms) {
      // s3rver's file store keeps key `a/b/c` as `<dir>/<bucket>/a/b/c._S3rver_object`.
      const parts = key.split('/');
      const file = join(directory, bucket, ...parts.slice(0, -1), `${parts.at(-1)}._S3rver_object`);
      const when = new Date(Date.now() - ms);
      utimesSync(file, when, when);
    },
    async stop() {
      await server?.close();
      server = null;
    },
    async start() {
      if (server) return;
      server = make(port);
      await server.run();
    },
    async close() {
      await server?.close();
      server = null;
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** S3BlobStore settings for a bucket of this server. */
export function s3StoreSettings(server: S3TestServer, spoolDir: string, prefix = ''): S3BlobStoreSettings {
  return {
    bucket: server.bucket,
    region: server.region,
    endpoint: server.endpoint,
    forcePathStyle: true,
    credentials: server.credentials,
    prefix,
    spoolDir,
  };
}
