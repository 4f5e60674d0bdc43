// The direct upload's sequencing, without HTTP: what happens before the upload is read, that the
// uploaded file is gone whatever the outcome, and what the request's usage says billing did (its
// audit line's fields). The answers themselves are tested over HTTP in test/api.
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import t, { type Test } from 'tap';

import { meteringNoted, RequestUsage } from '../../src/application/request-usage.js';
import { transcribeUpload, type UploadTranscription } from '../../src/application/transcribe-upload.js';
import type { TranscribeUploadDeps } from '../../src/application/transcribe-upload-deps.js';
import type { TranscriptionConnection } from '../../src/application/transcription-connection.js';
import { UnsupportedContainerError } from '../../src/audio/audio-errors.js';
import { BillingBlockedError } from '../../src/billing/billing-errors.js';
import { parseTranscriptionFields } from '../../src/contract/transcription-request.js';
import { InvalidRequestField } from '../../src/pipeline/pipeline-errors.js';
import { testConfig } from '../helpers/api-test-app.js';
import { FakeKeyStore } from '../helpers/fake-key-store.js';

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
  const usage = new RequestUsage();
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
    usage,
  });
  const request = (parseFields: UploadTranscription['parseFields'] = parseTranscriptionFields): UploadTranscription => ({
    key,
    requestId: 'req-1',
    idempotencyKey: null,
    parseFields,
    log: { info: () => {} },
  });
  return { deps, connection, request, calls, uploadPath, usage };
}

t.test('a blocked account is refused before a byte of the upload is read', async (t) => {
  const { deps, connection, request, calls, usage } = await setup(t, { blocked: true });
  await t.rejects(transcribeUpload(request(), connection(Buffer.alloc(16)), deps), BillingBlockedError);
  t.same(calls, ['allowance:inline']);
  t.ok(usage.hasEnded, 'the usage ended with the use case');
  t.same(usage.fields(), { billing: 'refused', blockReason: 'paused' }, 'refused, with the reason; never measured');
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
  const { deps, connection, request, calls, uploadPath, usage } = await setup(t);
  await t.rejects(transcribeUpload(request(), connection(Buffer.from('not audio at all, just text')), deps), UnsupportedContainerError);
  t.same(calls, ['allowance:inline', 'upload', 'admitted:default'], 'a deprecated profile is announced on the refusal too');
  t.notOk(existsSync(uploadPath));
  t.ok(usage.hasEnded);
  t.same(usage.fields(), { billing: 'not_metered' }, 'failed before anything was metered');
});

t.test('the usage notes what metering recorded, once the ledger has it', async (t) => {
  const usage = new RequestUsage();
  const recorded: number[] = [];
  const billing = meteringNoted(
    {
      requireAllowance: unused,
      reserve: unused,
      release: unused,
      meter: async (_key, work) => {
        recorded.push(work.audioMs);
        return true;
      },
    },
    usage,
  );
  usage.measured(53.685);
  t.same(usage.fields(), { audioSeconds: 53.685, billing: 'not_metered' });
  await billing.meter({ id: 'key_1', tenant: 't' } as never, { audioMs: 12_500 } as never);
  t.same(recorded, [12_500]);
  t.same(usage.fields(), { audioSeconds: 53.685, billing: 'metered', meteredSeconds: 12.5 });
  const unmetered = new RequestUsage();
  const failing = meteringNoted(
    { requireAllowance: unused, reserve: unused, release: unused, meter: async () => Promise.reject(new Error('ledger down')) },
    unmetered,
  );
  await t.rejects(failing.meter({} as never, { audioMs: 1 } as never), /ledger down/);
  t.same(unmetered.fields(), { billing: 'not_metered' }, 'a ledger that fails: nothing noted');
});
