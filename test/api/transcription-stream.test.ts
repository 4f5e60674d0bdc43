// POST /v1/audio/transcriptions with stream=true: server-sent events in OpenAI's shapes, read by the
// official openai client's `for await` loop and by a plain SSE reader; the done text equals the
// non-streamed answer for the same file and settings; requests that cannot stream are refused.
import { readFile } from 'node:fs/promises';

import OpenAI, { toFile } from 'openai';
import t from 'tap';

import { speechWav } from '../helpers/audio-fixtures.js';
import { postTranscription, startTestService, type TestService } from '../helpers/test-service.js';

let svc: TestService;
let speech: Uint8Array; // 50 s: inline, more speech than one 30 s window
let long: Uint8Array; // 61 s: above the 60 s boundary

t.before(async () => {
  svc = await startTestService({ SVC_INLINE_BOUNDARY_SECONDS: '60' });
  speech = await readFile(await speechWav(50));
  long = await readFile(await speechWav(61));
});
t.teardown(() => svc.close());

const wav = (data: Uint8Array) => ({ data, name: 'visit.wav', type: 'audio/wav' });

interface StreamEvent {
  type: string;
  [field: string]: unknown;
}

/**
 * The events of a text/event-stream body: each `data:` line's JSON, in order. Comment blocks (the
 * keep-alive written while a window is decoded) are skipped, as every event-stream reader does.
 */
async function readEvents(res: Response): Promise<StreamEvent[]> {
  const blocks = (await res.text()).split('\n\n').filter((block) => block.trim() !== '');
  const comments = blocks.filter((block) => block.startsWith(':'));
  if (comments.some((block) => block !== ': keep-alive')) throw new Error('a comment other than the keep-alive');
  return blocks
    .filter((block) => !block.startsWith(':'))
    .map((block) => {
      const data = block.split('\n').find((line) => line.startsWith('data: '));
      return JSON.parse(data!.slice('data: '.length)) as StreamEvent;
    });
}

function checkTextEvents(t: any, events: StreamEvent[], expectedText: string) {
  const done = events.at(-1)!;
  t.equal(done.type, 'transcript.text.done', 'done is last');
  t.equal(events.filter((e) => e.type === 'transcript.text.done').length, 1, 'one done');
  const deltas = events.filter((e) => e.type === 'transcript.text.delta');
  t.equal(deltas.map((e) => e.delta).join(''), done.text, 'the deltas add up to the done text');
  t.equal(done.text, expectedText, 'the done text is the non-streamed answer');
  return deltas;
}

t.test('the official openai client iterates deltas and done; the text equals the non-streamed answer', async (t) => {
  const client = new OpenAI({ apiKey: svc.key, baseURL: `${svc.url}/v1` });
  const settings = { model: 'svc-medical-1', language: 'en', response_format: 'json' } as const;
  const plain = await client.audio.transcriptions.create({ ...settings, file: await toFile(speech, 'visit.wav') });
  t.not(plain.text, '', 'the recording says something');
  const verbose = (await client.audio.transcriptions.create({ ...settings, response_format: 'verbose_json', file: await toFile(speech, 'visit.wav') })) as {
    segments: unknown[];
  };

  const stream = await client.audio.transcriptions.create({ ...settings, file: await toFile(speech, 'visit.wav'), stream: true });
  const events: StreamEvent[] = [];
  for await (const event of stream) events.push(event as unknown as StreamEvent);
  const deltas = checkTextEvents(t, events, plain.text);
  // whisper.cpp finishes its segments a 30 s window at a time: each window's text is told as it ends.
  t.ok(deltas.length >= 2, `${deltas.length} deltas (${verbose.segments.length} segments): the first window's text before the second is decoded`);
  t.equal(deltas[0].type, 'transcript.text.delta', 'a delta is the first event');
  t.same(Object.keys(events.at(-1)!).sort(), ['text', 'type'], 'done: type and text, as OpenAI shapes it');
});

t.test('a plain SSE reader: the headers, text format, and a prompt told window by window', async (t) => {
  const fields = { model: 'svc-medical-1', language: 'en', response_format: 'text' };
  const plain = await (await postTranscription(svc.url, svc.key, fields, wav(speech))).text();
  const res = await postTranscription(svc.url, svc.key, { ...fields, stream: 'true' }, wav(speech));
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /^text\/event-stream/);
  t.equal(res.headers.get('cache-control'), 'no-cache');
  t.match(res.headers.get('x-request-id'), /^req_/, 'the request id, as on every answer');
  checkTextEvents(t, await readEvents(res), plain);

  // A prompt's safety check decides each window after decoding: the text is told once it stands.
  const prompted = { ...fields, prompt: 'Hypertension follow-up.' };
  const plainPrompted = await (await postTranscription(svc.url, svc.key, prompted, wav(speech))).text();
  const streamedPrompted = await postTranscription(svc.url, svc.key, { ...prompted, stream: 'false' }, wav(speech));
  t.equal(await streamedPrompted.text(), plainPrompted, 'stream=false is the plain answer');
  const res2 = await postTranscription(svc.url, svc.key, { ...prompted, stream: 'true' }, wav(speech));
  checkTextEvents(t, await readEvents(res2), plainPrompted);
});

t.test('diarized_json streams the segments with their speakers before done', async (t) => {
  const fields = { model: 'svc-medical-1', language: 'en', response_format: 'diarized_json', diarize: 'true' };
  const plain = (await (await postTranscription(svc.url, svc.key, fields, wav(speech))).json()) as { text: string; segments: StreamEvent[] };
  const events = await readEvents(await postTranscription(svc.url, svc.key, { ...fields, stream: 'true' }, wav(speech)));
  checkTextEvents(t, events, plain.text);
  const segments = events.filter((e) => e.type === 'transcript.text.segment');
  t.same(segments, plain.segments, "the segment events are the answer's segments, speakers included");
  t.ok(
    segments.every((s) => typeof s.id === 'string' && typeof s.start === 'number' && typeof s.end === 'number' && typeof s.text === 'string'),
    "OpenAI's required fields",
  );
  const firstSegment = events.findIndex((e) => e.type === 'transcript.text.segment');
  const lastDelta = events.map((e) => e.type).lastIndexOf('transcript.text.delta');
  if (segments.length > 0) t.ok(firstSegment > lastDelta, 'segments once the text and speakers are final');
});

t.test('requests that cannot stream are refused before anything is decoded, and leave nothing behind', async (t) => {
  const cases: Array<[string, Record<string, string>, Uint8Array, number, RegExp]> = [
    ['a webhook', { webhook_url: 'https://receiver.example/hook' }, speech, 422, /stream=true .* webhook_url/],
    ['verbose_json', { response_format: 'verbose_json' }, speech, 422, /stream=true needs response_format json, text, diarized_json/],
    ['audio above the inline boundary', {}, long, 422, /up to 60 seconds; longer audio becomes a job/],
    ['not a boolean', { stream: 'yes' }, speech, 400, /stream must be true or false/],
    [
      'logprobs',
      { response_format: 'json', 'include[]': 'logprobs' },
      speech,
      422,
      /include\[\]=logprobs .*cannot be streamed: send stream=true or include\[\]/,
    ],
  ];
  for (const [name, extra, audio, status, message] of cases) {
    const res = await postTranscription(svc.url, svc.key, { model: 'svc-medical-1', language: 'en', stream: 'true', ...extra }, wav(audio));
    t.equal(res.status, status, `${name}: ${status}`);
    t.match(res.headers.get('content-type'), /^application\/json/, `${name}: an ordinary error answer`);
    const body = (await res.json()) as { error: { code: string; message: string } };
    t.equal(body.error.code, 'invalid_request', name);
    t.match(body.error.message, message, name);
  }
  t.same(await svc.blobFiles(), { uploads: [], jobs: [] }, 'no upload kept, no job audio (no job)');
});
