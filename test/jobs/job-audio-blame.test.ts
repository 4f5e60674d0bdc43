// Whom a failed decode of a job's stored recording is blamed on (src/jobs/job-audio-blame.ts), with a
// real bucket (s3rver): the recording only while storage serves it; the job's audio missing once the
// object is gone; storage itself (the chunk is retried) while the server is down.
import { writeFileSync } from 'node:fs';

import t from 'tap';

import { DecodeTimeoutError, UndecodableAudioError } from '../../src/audio/index.js';
import { blameDecodeFailure } from '../../src/jobs/job-audio-blame.js';
import { JOB_FAILURE_MESSAGES, JobFailure } from '../../src/jobs/job-failure.js';
import { S3BlobStore } from '../../src/store/s3/s3-blob-store.js';
import { isStoreUnavailable } from '../../src/store/store-unavailable-error.js';
import { s3StoreSettings, startS3Server } from '../helpers/s3-server.js';

t.test('a failed decode is blamed on the recording only while storage serves it', async (t) => {
  const server = await startS3Server();
  const store = new S3BlobStore(s3StoreSettings(server, t.testdir()));
  t.teardown(async () => {
    store.close();
    await server.close();
  });
  const upload = store.createUploadPath('direct');
  writeFileSync(upload, 'not audio');
  const audio = await store.moveToJobAudio(upload, 'job_1');
  const blame = (error: unknown) => blameDecodeFailure(store, audio, error).catch((e: unknown) => e);
  const undecodable = new UndecodableAudioError('ffmpeg exited with 1: End of file');

  t.equal(await blame(undecodable), undecodable, 'storage serves the object: the recording is undecodable');
  const timeout = new DecodeTimeoutError(1000, '');
  t.equal(await blame(timeout), timeout, 'other failures pass through untouched');

  await server.stop();
  t.ok(isStoreUnavailable(await blame(undecodable)), 'storage does not answer: its failure, and the chunk runs again');
  await server.start();

  await store.delete(audio);
  const gone = await blame(undecodable);
  t.ok(gone instanceof JobFailure, 'the object is gone: a job failure');
  t.match(gone, { code: 'internal_error', message: JOB_FAILURE_MESSAGES.audioMissing }, "the job's audio is missing");
});
