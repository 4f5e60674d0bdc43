// Real responses of every JSON format and route, checked against OpenAI's own published schemas (ajv
// over ../shared/spec/openai-audio-openapi.json), with the one documented difference (string segment
// ids). The OpenAI segment fields are checked for what they mean, not only for being there.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { deflateSync } from 'node:zlib';

import OpenAI, { toFile } from 'openai';
import t, { type Test } from 'tap';

import { speechWav } from '../helpers/audio-fixtures.js';
import { completeJob, createJob, jobBody, poll, uploadFile, waitForEnd } from '../helpers/jobs-client.js';
import { OPENAI_SPEC, openAiErrors } from '../helpers/openai-schema-validator.js';
import { startTestService, type TestService } from '../helpers/test-service.js';

let svc: TestService;
let client: OpenAI;
let speech: Buffer;

t.before(async () => {
  svc = await startTestService({ SVC_JOB_CHUNK_SECONDS: '5' });
  client = new OpenAI({ apiKey: svc.key, baseURL: `${svc.url}/v1`, maxRetries: 0 });
  speech = await readFile(await speechWav(8));
});
t.teardown(() => svc.close());

const file = () => toFile(speech, 'visit.wav');
const base = { model: 'svc-medical-1', language: 'en' } as const;

function conforms(t: Test, schema: string, value: unknown, what: string) {
  t.same(openAiErrors(schema, value), [], `${what} conforms to OpenAI's ${schema}`);
}

/** What OpenAI's segment fields mean, checked on a segment of a real answer. */
function segmentFieldsMeanWhatTheySay(t: Test, segment: any, temperature: number) {
  t.equal(segment.seek, Math.floor(segment.start * 100 + 1e-6), 'seek: the start in 10 ms frames');
  t.ok(segment.tokens.length > 0 && segment.tokens.every((id: number) => Number.isInteger(id) && id >= 0), 'token ids');
  t.equal(segment.temperature, temperature, "the request's temperature");
  t.ok(segment.avg_logprob <= 0, 'a mean log-probability');
  t.ok(segment.no_speech_prob >= 0 && segment.no_speech_prob <= 1, 'a probability');
  const bytes = Buffer.from(segment.text, 'utf8');
  t.ok(Math.abs(segment.compression_ratio - bytes.length / deflateSync(bytes).length) < 1e-5, 'UTF-8 length over zlib length');
}

/** Where the committed schema was copied from: the project's shared folder, absent in a user's clone (the check skips). */
const SHARED_OPENAI_SPEC = join(dirname(OPENAI_SPEC), '..', '..', '..', '..', 'shared', 'spec', 'openai-audio-openapi.json');

t.test(
  "the committed schema is ../shared's, byte for byte",
  { skip: existsSync(SHARED_OPENAI_SPEC) ? false : `${SHARED_OPENAI_SPEC} is not here (a user's clone): nothing to compare with` },
  async (t) => {
    t.ok((await readFile(OPENAI_SPEC)).equals(await readFile(SHARED_OPENAI_SPEC)), 'test/fixtures/openai/openai-audio-openapi.json');
  },
);

t.test('inline json, json with logprobs, verbose_json (with words) and diarized_json', async (t) => {
  conforms(t, 'CreateTranscriptionResponseJson', await client.audio.transcriptions.create({ ...base, file: await file(), response_format: 'json' }), 'json');
  conforms(
    t,
    'CreateTranscriptionResponseJson',
    await client.audio.transcriptions.create({ ...base, file: await file(), response_format: 'json', include: ['logprobs'] }),
    'json with logprobs',
  );
  const verbose = (await client.audio.transcriptions.create({
    ...base,
    file: await file(),
    response_format: 'verbose_json',
    temperature: 0.3,
    timestamp_granularities: ['word', 'segment'],
  })) as any;
  conforms(t, 'CreateTranscriptionResponseVerboseJson', verbose, 'verbose_json');
  t.match(verbose, { task: 'transcribe', usage: { type: 'duration', seconds: 8 } });
  t.ok(verbose.segments.length > 0 && verbose.words.length > 0, 'segments and words to check');
  for (const segment of verbose.segments) {
    conforms(t, 'TranscriptionSegment', segment, segment.id);
    segmentFieldsMeanWhatTheySay(t, segment, 0.3);
  }
  const diarized = (await client.audio.transcriptions.create({ ...base, file: await file(), response_format: 'diarized_json' } as any)) as any;
  conforms(t, 'CreateTranscriptionResponseDiarizedJson', diarized, 'diarized_json');
  t.same(
    diarized.segments.map((s: any) => s.id),
    diarized.segments.map((_: unknown, i: number) => `seg_${i}`),
    'ids seg_N',
  );
});

t.test('streamed events', async (t) => {
  const stream = await client.audio.transcriptions.create({ ...base, file: await file(), response_format: 'json', stream: true });
  const types = new Set<string>();
  for await (const event of stream) {
    types.add(event.type);
    conforms(t, 'CreateTranscriptionResponseStreamEvent', event, event.type);
  }
  t.ok(types.has('transcript.text.done'), 'the done event was checked');
});

t.test("a job's verbose_json result is OpenAI's verbose shape too, with seek on the recording's timeline", async (t) => {
  const long = await readFile(await speechWav(12));
  const job = await createJob(svc.url, svc.key, jobBody(long, { response_format: 'verbose_json', language: 'en' }));
  t.equal((await uploadFile(job, long)).status, 204);
  t.equal((await completeJob(job, svc.key)).status, 202);
  t.equal((await waitForEnd(job.poll_url, svc.key)).status, 'succeeded');
  const result = (await poll(job.poll_url, svc.key, '?include_result=true')).body.result.content;
  conforms(t, 'CreateTranscriptionResponseVerboseJson', result, 'the job result');
  t.match(result, { task: 'transcribe', usage: { type: 'duration', seconds: 12 } });
  t.ok(
    result.segments.some((s: any) => s.start >= 5),
    'segments of later chunks',
  );
  for (const segment of result.segments) segmentFieldsMeanWhatTheySay(t, segment, 0);
});

t.test('models', async (t) => {
  const list = await fetch(`${svc.url}/v1/models`, { headers: { authorization: `Bearer ${svc.key}` } });
  conforms(t, 'ListModelsResponse', await list.json(), 'the list');
  conforms(t, 'Model', await client.models.retrieve('svc-medical-1'), 'one model');
});
