// The BlobStore contract against both implementations: LocalBlobStore on a temp folder, and
// S3BlobStore on a real S3-compatible server (s3rver on loopback) under a key prefix.
import { existsSync, mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';

import { HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import t from 'tap';

import { LocalBlobStore } from '../../src/store/local-blob-store.js';
import { S3BlobStore } from '../../src/store/s3/s3-blob-store.js';
import { s3StoreSettings, startS3Server } from '../helpers/s3-server.js';
import { blobStoreContract } from './contract/blob-store-contract.js';

const PREFIX = 'svc-stt/';

const ageFile = (path: string, ms: number) => {
  const when = new Date(Date.now() - ms);
  utimesSync(path, when, when);
};

blobStoreContract(t, 'LocalBlobStore', async (t) => {
  const dataDir = t.testdir();
  const store = new LocalBlobStore(join(dataDir, 'blobs'));
  const nested = join(store.root, 'uploads', 'sub');
  mkdirSync(nested);
  return {
    store,
    age: async (path, ms) => ageFile(path, ms),
    foreignRefs: [
      join(dataDir, 'precious.txt'),
      join(store.root, 'uploads', '..', '..', 'precious.txt'),
      join(store.root, 'svc-stt.db'),
      join(nested, 'direct-00000000-0000-0000-0000-000000000000.part'),
      join(store.root, 'uploads', 'notes.txt'),
      join(store.root, 'jobs', 'job_1.audio.bak'),
      join(store.root, 'results', 'job_1.final'),
    ],
    plantForeign: async () => {
      const path = join(store.root, 'jobs', 'README');
      writeFileSync(path, 'an operator note');
      ageFile(path, 2 * 3_600_000);
      return async () => existsSync(path);
    },
    breakStorage: async () => rmSync(join(store.root, 'jobs'), { recursive: true, force: true }),
    close: async () => {},
  };
});

blobStoreContract(t, 'S3BlobStore', async (t) => {
  const server = await startS3Server();
  const settings = s3StoreSettings(server, t.testdir(), PREFIX);
  const store = new S3BlobStore(settings);
  const raw = new S3Client({ region: server.region, endpoint: server.endpoint, forcePathStyle: true, credentials: server.credentials });
  return {
    store,
    age: async (ref, ms) => (isAbsolute(ref) ? ageFile(ref, ms) : server.ageObject(ref, ms)),
    foreignRefs: [
      'jobs/job_1.audio',
      'other/jobs/job_1.audio',
      `${PREFIX}jobs/job_1.audio.bak`,
      `${PREFIX}jobs/sub/job_1.audio`,
      `${PREFIX}results/job_1.final`,
      `${PREFIX}uploads/../jobs/job_1.audio`,
      `${PREFIX}uploads/job_1/x`,
      `/${PREFIX}jobs/job_1.audio`,
      `${PREFIX}job_1.audio`,
    ],
    plantForeign: async () => {
      // An operator's note among the job audio, and the same layout under another application's prefix.
      const keys = [`${PREFIX}jobs/README`, 'jobs/job_x.audio', 'other/results/job_x.result'];
      for (const key of keys) {
        await raw.send(new PutObjectCommand({ Bucket: server.bucket, Key: key, Body: 'not ours' }));
        server.ageObject(key, 2 * 3_600_000);
      }
      return async () => {
        for (const key of keys) if (!(await objectThere(raw, server.bucket, key))) return false;
        return true;
      };
    },
    breakStorage: () => server.stop(),
    close: async () => {
      store.close();
      raw.destroy();
      await server.close();
    },
  };
});

function objectThere(client: S3Client, bucket: string, key: string): Promise<boolean> {
  return client.send(new HeadObjectCommand({ Bucket: bucket, Key: key })).then(
    () => true,
    () => false,
  );
}
