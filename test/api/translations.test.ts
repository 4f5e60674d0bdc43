// POST /v1/audio/translations through the official `openai` client: whisper's translate task (English
// text), OpenAI's formats and fields, the transcription route's language and job routing, and refusals
// of what only transcriptions do. Responses are checked against OpenAI's translation schemas.
import { readFile } from 'node:fs/promises';

import OpenAI, { toFile } from 'openai';
import t from 'tap';

import { speechWav } from '../helpers/audio-fixtures.js';
import { poll, waitForEnd } from '../helpers/jobs-client.js';
import { openAiErrors } from '../helpers/openai-schema-validator.js';
import { postTranscription, startTestService, type TestService } from '../helpers/test-service.js';

let svc: TestService;
let client: OpenAI;
let speech: Buffer;

t.before(async () => {
  svc = await startTestService({ SVC_INLINE_BOUNDARY_SECONDS: '10' });
  client = new OpenAI({ apiKey: svc.key, baseURL: `${svc.url}/v1`, maxRetries: 0 });
  speech = await readFile(await speechWav(8));
});
t.teardown(() => svc.close());

const file = (data: Buffer = speech) => toFile(data, 'visit.wav');
const base = { model: 'svc-medical-1', language: 'en' } as const;

t.test('verbose_json: the translate task, English text, OpenAI translation shape', async (t) => {
  const translated = (await client.audio.translations.create({ ...base, file: await file(), response_format: 'verbose_json' } as any)) as any;
  t.same(openAiErrors('CreateTranslationResponseVerboseJson', translated), [], "OpenAI's verbose translation");
  t.match(translated, { task: 'translate', language: 'en', source_language: 'en', usage: { type: 'duration', seconds: 8 } });
  for (const segment of translated.segments) t.same(openAiErrors('TranscriptionSegment', segment), [], segment.id);
  const transcribed = (await client.audio.transcriptions.create({ ...base, file: await file(), response_format: 'verbose_json' })) as any;
  t.equal(transcribed.task, 'transcribe');
  t.not(translated.text, transcribed.text, 'whisper was asked to translate (another task token, another decode)');
  const again = (await client.audio.translations.create({ ...base, file: await file(), response_format: 'verbose_json' } as any)) as any;
  t.equal(again.text, translated.text, 'deterministic at temperature 0');
});

t.test('json (the default), text, srt and vtt', async (t) => {
  const json = await client.audio.translations.create({ ...base, file: await file() });
  t.same(openAiErrors('CreateTranslationResponseJson', json), []);
  t.same(Object.keys(json), ['text']);
  for (const [format, type] of [
    ['text', /^text\/plain/],
    ['srt', /^application\/x-subrip|^text\//],
    ['vtt', /^text\/vtt/],
  ] as const) {
    const res = await postTranscription(
      svc.url,
      svc.key,
      { ...base, response_format: format },
      { data: speech, name: 'visit.wav', type: 'audio/wav' },
      {},
      '/v1/audio/translations',
    );
    t.equal(res.status, 200, format);
    t.match(res.headers.get('content-type'), type);
    const body = await res.text();
    if (format === 'text') t.equal(body, json.text, 'the json text');
    if (format === 'vtt') t.match(body, /^WEBVTT/);
  }
});

t.test('refusals: transcription-only fields 422, unknown fields and formats 400', async (t) => {
  const send = (fields: Record<string, string>) =>
    postTranscription(svc.url, svc.key, { ...base, ...fields }, { data: speech, name: 'visit.wav', type: 'audio/wav' }, {}, '/v1/audio/translations');
  for (const [fields, status, message] of [
    [{ diarize: 'true' }, 422, /diarize is a transcription field: translations take model, response_format/],
    [{ 'timestamp_granularities[]': 'word' }, 422, /timestamp_granularities is a transcription field/],
    [{ stream: 'true' }, 422, /stream is a transcription field/],
    [{ vocabulary: '["metoprolol"]' }, 422, /vocabulary is a transcription field/],
    [{ colour: 'blue' }, 400, /not one of: model, response_format, language/],
    [{ response_format: 'diarized_json' }, 400, /response_format must be one of: json, text, srt, verbose_json, vtt/],
    [{ temperature: '2' }, 400, /temperature must be a number from 0 to 1/],
  ] as const) {
    const res = await send(fields as Record<string, string>);
    t.equal(res.status, status, JSON.stringify(fields));
    const body = (await res.json()) as { error: { code: string; message: string } };
    t.equal(body.error.code, 'invalid_request');
    t.match(body.error.message, message);
  }
});

t.test('audio above the inline boundary becomes a job whose result is a translation', async (t) => {
  const long = await readFile(await speechWav(14));
  const res = await postTranscription(
    svc.url,
    svc.key,
    { ...base, response_format: 'verbose_json' },
    { data: long, name: 'visit.wav', type: 'audio/wav' },
    {},
    '/v1/audio/translations',
  );
  t.equal(res.status, 202);
  const job = (await res.json()) as { poll_url: string };
  t.equal((await waitForEnd(job.poll_url, svc.key)).status, 'succeeded');
  const result = (await poll(job.poll_url, svc.key, '?include_result=true')).body.result.content;
  t.same(openAiErrors('CreateTranslationResponseVerboseJson', result), [], "OpenAI's verbose translation");
  t.match(result, { task: 'translate', language: 'en', source_language: 'en' });
});
