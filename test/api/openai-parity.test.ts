// OpenAI's transcription parameters through the official `openai` client against the real service:
// each is honoured or refused in the error envelope, never accepted and ignored. `temperature`,
// `include: ['logprobs']`, `chunking_strategy: 'auto'`, `response_format: 'srt' | 'vtt'` (with
// speakers as voices when diarized); unknown fields, bad values and unsupported OpenAI fields refused.
import { readFile } from 'node:fs/promises';

import OpenAI, { toFile } from 'openai';
import t from 'tap';

import { speechWav } from '../helpers/audio-fixtures.js';
import { conversation } from '../helpers/conversations.js';
import { postTranscription, startTestService, type TestService } from '../helpers/test-service.js';

let svc: TestService;
let client: OpenAI;
let speech: Buffer;

t.before(async () => {
  svc = await startTestService();
  client = new OpenAI({ apiKey: svc.key, baseURL: `${svc.url}/v1`, maxRetries: 0 });
  speech = await readFile(await speechWav(8));
});
t.teardown(() => svc.close());

const file = (data: Buffer = speech) => toFile(data, 'visit.wav');
const base = { model: 'svc-medical-1', language: 'en' } as const;

async function refusal(t: any, promise: Promise<unknown>, status: number, pattern: RegExp) {
  const error = (await promise.then(
    () => null,
    (e: unknown) => e,
  )) as InstanceType<typeof OpenAI.APIError> | null;
  t.ok(error instanceof OpenAI.APIError, 'the client raises an APIError');
  t.equal(error?.status, status);
  t.equal((error?.error as { code?: string } | undefined)?.code, 'invalid_request');
  t.match((error?.error as { message?: string } | undefined)?.message, pattern);
}

t.test('temperature: validated 0 to 1 and honoured as the decoding temperature', async (t) => {
  const greedy = await client.audio.transcriptions.create({ ...base, file: await file(), response_format: 'json', temperature: 0 });
  const again = await client.audio.transcriptions.create({ ...base, file: await file(), response_format: 'json' });
  t.equal(again.text, greedy.text, 'temperature 0 (the default) is deterministic');
  const sampled = await client.audio.transcriptions.create({ ...base, file: await file(), response_format: 'json', temperature: 1 });
  t.type(sampled.text, 'string');
  t.not(sampled.text, greedy.text, 'temperature 1 samples: another text than greedy decoding');
  await refusal(t, client.audio.transcriptions.create({ ...base, file: await file(), temperature: 1.5 }), 400, /temperature must be a number from 0 to 1/);
  const banana = await postTranscription(svc.url, svc.key, { ...base, temperature: 'banana' }, { data: speech, name: 'visit.wav', type: 'audio/wav' });
  t.equal(banana.status, 400);
  t.same(await banana.json(), { error: { code: 'invalid_request', message: 'temperature must be a number from 0 to 1' } }, 'nothing of the value echoed');
});

t.test("include: ['logprobs'] gives the decoder's tokens on json; refused elsewhere", async (t) => {
  const answer = (await client.audio.transcriptions.create({ ...base, file: await file(), response_format: 'json', include: ['logprobs'] })) as {
    text: string;
    logprobs?: Array<{ token: string; logprob: number; bytes: number[] }>;
  };
  t.ok(answer.logprobs && answer.logprobs.length > 0, 'logprobs given');
  for (const token of answer.logprobs ?? []) {
    t.ok(token.logprob <= 0, 'a log-probability');
    t.ok(
      token.bytes.every((b) => Number.isInteger(b) && b >= 0 && b <= 255),
      'bytes',
    );
  }
  t.equal(
    Buffer.concat((answer.logprobs ?? []).map((token) => Buffer.from(token.bytes)))
      .toString('utf8')
      .replace(/\s+/g, ' ')
      .trim(),
    answer.text.replace(/\s+/g, ' ').trim(),
    "the tokens' bytes spell the text (no vocabulary asked for)",
  );
  const plain = await client.audio.transcriptions.create({ ...base, file: await file(), response_format: 'json' });
  t.notOk('logprobs' in plain, 'only when asked');
  await refusal(
    t,
    client.audio.transcriptions.create({ ...base, file: await file(), response_format: 'verbose_json', include: ['logprobs'] }),
    422,
    /needs response_format json/,
  );
  const other = await postTranscription(
    svc.url,
    svc.key,
    { ...base, response_format: 'json', 'include[]': 'canary' },
    { data: speech, name: 'visit.wav', type: 'audio/wav' },
  );
  t.equal(other.status, 400);
  t.notMatch(await other.text(), /canary/);
});

t.test('srt and vtt: one cue per segment, speakers as voices when diarized', async (t) => {
  const talk = await conversation({ voices: 2, turns: 6, seed: 3 });
  const audio = await readFile(talk.path);
  const verbose = (await client.audio.transcriptions.create({
    ...base,
    file: await file(audio),
    response_format: 'verbose_json',
    diarize: true,
  } as never)) as unknown as {
    segments: Array<{ speaker: string; text: string; start: number; end: number }>;
  };
  const srt = (await client.audio.transcriptions.create({
    ...base,
    file: await file(audio),
    response_format: 'srt',
    diarize: true,
  } as never)) as unknown as string;
  const vtt = (await client.audio.transcriptions.create({
    ...base,
    file: await file(audio),
    response_format: 'vtt',
    diarize: true,
  } as never)) as unknown as string;
  const stamp = (s: number, sep: string) => {
    const ms = Math.round(s * 1000);
    const p = (n: number, w = 2) => String(n).padStart(w, '0');
    return `${p(Math.floor(ms / 3_600_000))}:${p(Math.floor(ms / 60_000) % 60)}:${p(Math.floor(ms / 1000) % 60)}${sep}${p(ms % 1000, 3)}`;
  };
  const labelled = (s: { speaker: string }) => s.speaker !== 'unknown';
  const kept = verbose.segments.filter((s) => s.text.trim() !== '');
  t.ok(kept.some(labelled), 'the conversation has labelled segments');
  t.equal(
    srt,
    kept
      .map((s, i) => `${i + 1}\n${stamp(s.start, ',')} --> ${stamp(s.end, ',')}\n${labelled(s) ? `${s.speaker}: ` : ''}${s.text.replace(/\s+/g, ' ').trim()}\n`)
      .join('\n'),
    "SubRip: numbered cues, the segments' times, the speaker leading the text",
  );
  const escape = (x: string) => x.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const vttCues = kept.map(
    (s) => `${stamp(s.start, '.')} --> ${stamp(s.end, '.')}\n${labelled(s) ? `<v ${s.speaker}>` : ''}${escape(s.text.replace(/\s+/g, ' ').trim())}\n`,
  );
  t.equal(vtt, `WEBVTT\n\n${vttCues.join('\n')}`, 'WebVTT: the header, then cues with voice spans');
  const raw = await postTranscription(svc.url, svc.key, { ...base, response_format: 'vtt' }, { data: speech, name: 'visit.wav', type: 'audio/wav' });
  t.match(raw.headers.get('content-type'), /^text\/vtt/);
  t.match(await raw.text(), /^WEBVTT\n\n00:00:0\d\.\d{3} --> /);
  const srtRaw = await postTranscription(svc.url, svc.key, { ...base, response_format: 'srt' }, { data: speech, name: 'visit.wav', type: 'audio/wav' });
  t.match(srtRaw.headers.get('content-type'), /^text\/plain/);
  t.notMatch(await srtRaw.text(), /: /, 'no speakers without diarize');
});

t.test('chunking_strategy: auto is what the service does; server_vad sets the VAD; other OpenAI fields and unknown fields are refused', async (t) => {
  const auto = await client.audio.transcriptions.create({ ...base, file: await file(), response_format: 'json', chunking_strategy: 'auto' });
  const plain = await client.audio.transcriptions.create({ ...base, file: await file(), response_format: 'json' });
  t.equal(auto.text, plain.text, 'auto: the same answer');
  t.ok(plain.text.length > 0, 'speech found with the service VAD');
  // A threshold no frame's speech probability can exceed: the VAD finds no speech, nothing is decoded.
  const deaf = await client.audio.transcriptions.create({
    ...base,
    file: await file(),
    response_format: 'verbose_json',
    chunking_strategy: { type: 'server_vad', threshold: 1 },
  });
  t.match(deaf, { text: '', language: 'und', segments: [] }, 'server_vad threshold honoured');
  const defaults = await client.audio.transcriptions.create({
    ...base,
    file: await file(),
    response_format: 'json',
    chunking_strategy: { type: 'server_vad' },
  });
  t.ok(defaults.text.length > 0, "server_vad with OpenAI's defaults finds the speech");
  const json = await postTranscription(
    svc.url,
    svc.key,
    { ...base, response_format: 'json', chunking_strategy: '{"type":"server_vad","threshold":1}' },
    { data: speech, name: 'visit.wav', type: 'audio/wav' },
  );
  t.same(await json.json(), { text: '' }, 'the object as a JSON string too');
  for (const [strategy, message] of [
    [{ type: 'server_vad', threshold: 1.5 }, /chunking_strategy\[threshold\] must be a number from 0 to 1/],
    [{ type: 'server_vad', silence_duration_ms: 2.5 }, /chunking_strategy\[silence_duration_ms\] must be an integer from 0 to 10000/],
    [{ type: 'server_vad', prefix_padding_ms: -1 }, /chunking_strategy\[prefix_padding_ms\] must be an integer/],
    [{ type: 'client_vad' }, /chunking_strategy\[type\] must be server_vad/],
    [{ type: 'server_vad', canary: 1 }, /takes type, threshold, prefix_padding_ms and silence_duration_ms only/],
    // Names an object has by its prototype are unknown members too.
    [{ type: 'server_vad', constructor: 1 }, /takes type, threshold, prefix_padding_ms and silence_duration_ms only/],
    [{ type: 'server_vad', toString: 1 }, /takes type, threshold, prefix_padding_ms and silence_duration_ms only/],
  ] as const) {
    await refusal(t, client.audio.transcriptions.create({ ...base, file: await file(), chunking_strategy: strategy as never }), 400, message);
  }
  const protoFields: Array<Record<string, string>> = [
    { 'chunking_strategy[type]': 'server_vad', 'chunking_strategy[__proto__]': '1' },
    { chunking_strategy: '{"type":"server_vad","__proto__":{"threshold":1}}' },
  ];
  for (const fields of protoFields) {
    const proto = await postTranscription(svc.url, svc.key, { ...base, ...fields }, { data: speech, name: 'visit.wav', type: 'audio/wav' });
    t.equal(proto.status, 400, '__proto__ is an unknown member');
    t.match(((await proto.json()) as { error: { message: string } }).error.message, /takes type, threshold, prefix_padding_ms and silence_duration_ms only/);
  }
  await refusal(t, client.audio.transcriptions.create({ ...base, file: await file(), known_speaker_names: ['canary'] } as never), 422, /need diarize=true/);
  await refusal(t, client.audio.transcriptions.create({ ...base, file: await file(), languages: ['en'] } as never), 422, /language_hints/);
  const unknown = await postTranscription(svc.url, svc.key, { ...base, unknown_field: 'canary' }, { data: speech, name: 'visit.wav', type: 'audio/wav' });
  t.equal(unknown.status, 400);
  const body = (await unknown.json()) as { error: { code: string; message: string } };
  t.equal(body.error.code, 'invalid_request');
  // A name shaped like a field name is named (a client's slip); its value never is.
  t.match(body.error.message, /has a field "unknown_field" that is not one of/, 'the unknown field is named');
  t.notMatch(body.error.message, /canary/, 'its value is not echoed');
  const odd = await postTranscription(svc.url, svc.key, { ...base, chunking_strategy: 'canary' }, { data: speech, name: 'visit.wav', type: 'audio/wav' });
  t.equal(odd.status, 400);
});
