// The direct upload's sequencing, without HTTP: what happens before the upload is read, and that the
// uploaded file is gone whatever the outcome. The answers themselves are tested over HTTP in test/api.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { transcribeUpload, type UploadTranscription } from '../../src/application/transcribe-upload.js';
import type { TranscribeUploadDeps } from '../../src/application/transcribe-upload-deps.js';
import type { TranscriptionConnection } from '../../src/application/transcription-connection.js';
import { UnsupportedContainerError } from '../../src/audio/audio-errors.js';
import { BillingBlockedError } from '../../src/billing/billing-errors.js';
import { parseTranscriptionFields } from '../../src/contract/transcription-request.js';
import { InvalidRequestField } from '../../src/pipeline/pipeline-errors.js';
import { FakeKeyStore } from '../helpers/fake-key-store.js';
import { testConfig } from '../helpers/api-test-app.js';

const unused = () => {
  throw new Error('not expected in this test');
};

async function setup(t: Test, options: { blocked?: boolean } = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'transcribe-upload-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const keys = new FakeKeyStore();
  const key = keys.add().record;
  const calls: string[] = [];
  const uploadPath = join(dir, 'upload');
  const deps = {
    config: testConfig(),
    keys,
    idempotency: { hasResponse: async () => false },
    blobs: { createUploadPath: () => uploadPath },
    billing: {
      requireAllowance: async (_key: unknown, route: string) => {
        calls.push(`allowance:${route}`);
        if (options.blocked) throw new BillingBlockedError('paused', 'batch', null);
      },
      meter: unused,
    },
    webhooks: { admit: unused },
  } as unknown as TranscribeUploadDeps;
  const connection = (content: Buffer): TranscriptionConnection => ({
    receiveUpload: async (path) => {
      calls.push('upload');
      await writeFile(path, content);
      return { path, sha256: '', fields: { model: 'svc-medical-1' } };
    },
    admitted: (profile) => calls.push(`admitted:${profile}`),
    watchHangUp: () => () => {},
    openStream: unused,
    jobAccepted: unused,
  });
  const request = (parseFields: UploadTranscription['parseFields'] = parseTranscriptionFields): UploadTranscription => ({
    key,
    requestId: 'req-1',
    idempotencyKey: null,
    parseFields,
    log: { info: () => {} },
  });
  return { deps, connection, request, calls, uploadPath };
}

t.test('a blocked account is refused before a byte of the upload is read', async (t) => {
  const { deps, connection, request, calls } = await setup(t, { blocked: true });
  await t.rejects(transcribeUpload(request(), connection(Buffer.alloc(16)), deps), BillingBlockedError);
  t.same(calls, ['allowance:inline']);
});

t.test('fields that do not parse: refused, and the uploaded file is gone', async (t) => {
  const { deps, connection, request, calls, uploadPath } = await setup(t);
  const refuse = () => {
    throw new InvalidRequestField('model is required');
  };
  await t.rejects(transcribeUpload(request(refuse), connection(Buffer.alloc(16)), deps), InvalidRequestField);
  t.same(calls, ['allowance:inline', 'upload']);
  t.notOk(existsSync(uploadPath));
});

t.test('bytes of no known container: refused after the request was admitted, the file gone', async (t) => {
  const { deps, connection, request, calls, uploadPath } = await setup(t);
  await t.rejects(transcribeUpload(request(), connection(Buffer.from('not audio at all, just text')), deps), UnsupportedContainerError);
  t.same(calls, ['allowance:inline', 'upload', 'admitted:default'], 'a deprecated profile is announced on the refusal too');
  t.notOk(existsSync(uploadPath));
});
