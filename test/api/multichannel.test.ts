// multichannel on the direct upload and the job body (issue 46.4): the real service, engine and ffmpeg
// over a generated stereo consultation (two espeak voices, one per channel, 15 % bleed). A generated
// model's words are noise, so what is asserted is what holds whatever was said: each segment and word
// carries its channel, the channel is the speaker, segments come in time order, and audio that is not a
// 2-channel recording, or a request multichannel cannot honour, is refused in the contract's envelope.
// Which channel a passage is heard on is asserted on speech put on one channel only: the noise words of
// a generated model are alike on both channels of the consultation, and kept once (on the louder).
// With diarize, a job's decoration diarizes each channel alone, as an inline answer does: the two
// answers for the same stereo audio agree on their channels and speakers (chunks of 5 s, so the job's
// per-channel speech regions are carried across chunks).
// The merge's rule (a word heard on both channels kept once): test/pipeline/channel-merge.test.ts.
import { readFile } from 'node:fs/promises';

import t, { type Test } from 'tap';

import { speechWav } from '../helpers/audio-fixtures.js';
import { auth, completeJob, createJob, createJobRequest, jobBody, poll, uploadFile, waitForEnd } from '../helpers/jobs-client.js';
import { OwnDocumentValidator } from '../helpers/own-document-validator.js';
import { oneSidedStereo, stereoConsultation } from '../helpers/stereo-consultation.js';
import { postTranscription, startTestService, type TestService } from '../helpers/test-service.js';

let svc: TestService;
let stereo: Uint8Array;
let mono: Uint8Array;
let rightOnly: Uint8Array;
let leftOnly: Uint8Array;

t.before(async () => {
  // The 4-turn consultation (14 s) is answered inline; the 8-turn one (about 30 s) becomes a job.
  svc = await startTestService({ SVC_JOB_CHUNK_SECONDS: '5', SVC_INLINE_BOUNDARY_SECONDS: '20' });
  stereo = await readFile((await stereoConsultation({ turns: 4 })).path);
  const speech = await speechWav(4);
  mono = await readFile(speech);
  rightOnly = await readFile(await oneSidedStereo(speech, 1));
  leftOnly = await readFile(await oneSidedStereo(speech, 0));
});
t.teardown(() => svc.close());

const post = (fields: Record<string, string>, data = stereo) =>
  postTranscription(svc.url, svc.key, { model: 'svc-medical-1', ...fields }, { data, name: 'visit.wav', type: 'audio/wav' });

interface Answer {
  text: string;
  segments: Array<{ channel: number; speaker: string; start: number; end: number }>;
  words?: Array<{ channel: number; speaker?: string; start: number }>;
  speakers: Array<{ speaker: string }>;
  speaker_segments: Array<{ speaker: string; start: number; end: number }>;
  speaker_timing: { detected_speaker_count: number; word_timing: boolean };
  decoration?: unknown;
  word_timing_available?: boolean;
}

function assertChannels(t: Test, body: Answer): void {
  t.ok(body.segments.length > 0, 'segments');
  for (const s of body.segments) {
    t.ok(s.channel === 0 || s.channel === 1, 'a channel on each segment');
    t.equal(s.speaker, `channel_${s.channel}`, 'its channel is its speaker');
  }
  t.same(
    body.segments.map((s) => s.start),
    body.segments.map((s) => s.start).sort((a, b) => a - b),
    'merged in time order',
  );
  t.ok(
    body.speakers.every((s) => /^channel_[01]$/.test(s.speaker)),
    'speakers are channels',
  );
  t.ok(
    body.speaker_segments.every((s) => /^channel_[01]$/.test(s.speaker)),
    'speaker_segments by channel',
  );
}

async function refusal(t: Test, res: Response, status: number, pattern: RegExp): Promise<void> {
  t.equal(res.status, status, `status ${status}`);
  const body = (await res.json()) as { error: { code: string; message: string } };
  t.equal(body.error.code, 'invalid_request');
  t.match(body.error.message, pattern);
}

t.test('the upload: each channel transcribed apart, merged in time, every segment and word tagged', async (t) => {
  const res = await post({ response_format: 'verbose_json', multichannel: 'true', 'timestamp_granularities[]': 'word' });
  t.equal(res.status, 200);
  const body = (await res.json()) as Answer;
  assertChannels(t, body);
  const documented = await OwnDocumentValidator.fetch(svc.url);
  t.same(documented.errors('POST', '/v1/audio/transcriptions', 200, 'application/json', body), [], 'the answer is as the OpenAPI document says');
  t.ok(body.words && body.words.length > 0, 'words asked, words given');
  for (const w of body.words ?? []) t.equal(w.speaker, `channel_${w.channel}`, 'a channel on each word');
  const plain = (await (await post({ response_format: 'verbose_json' })).json()) as Answer;
  t.ok(
    plain.segments.every((s) => !('channel' in s)),
    'without multichannel, stereo is mixed down as before',
  );
});

t.test('speech on one channel is heard on that channel only', async (t) => {
  for (const [data, channel] of [
    [rightOnly, 1],
    [leftOnly, 0],
  ] as const) {
    const body = (await (await post({ response_format: 'verbose_json', multichannel: 'true' }, data)).json()) as Answer;
    t.ok(body.segments.length > 0, 'segments');
    t.ok(
      body.segments.every((s) => s.channel === channel && s.speaker === `channel_${channel}`),
      `all on channel ${channel}`,
    );
    t.same(body.speakers, [{ speaker: `channel_${channel}` }]);
  }
});

/** Voices labelled within their channel: on segments, words, speakers and turns, in time order. */
function assertVoicesByChannel(t: Test, body: Answer): void {
  t.ok(body.segments.length > 0, 'segments');
  for (const s of body.segments) t.match(s.speaker, new RegExp(`^(channel_${s.channel}_[A-Z]|unknown)$`), 'a voice of its channel');
  for (const w of body.words ?? []) {
    t.ok(w.channel === 0 || w.channel === 1, 'a channel on each word');
    if (w.speaker !== undefined) t.match(w.speaker, new RegExp(`^(channel_${w.channel}_[A-Z]|unknown)$`), 'a voice of its channel');
  }
  t.same(
    body.segments.map((s) => s.start),
    body.segments.map((s) => s.start).sort((a, b) => a - b),
    'merged in time order',
  );
  t.ok(body.speaker_segments.length > 0, 'speaker_segments');
  t.ok(
    body.speaker_segments.every((s) => /^channel_[01]_[A-Z]$/.test(s.speaker)),
    'turns by voice within a channel',
  );
  t.ok(body.speakers.length > 0 && body.speakers.every((s) => /^channel_[01]_[A-Z]$/.test(s.speaker)), 'speakers by voice within a channel');
  t.equal(body.speaker_timing.detected_speaker_count, body.speakers.length, 'the bleed-only voices are not counted');
}

/**
 * The voices an answer has by channel, and its fields: what the inline and the job answers must agree on
 * (not which channel each segment is on: a generated model's noise words, kept once where louder, fall
 * apart differently when the job decodes them in chunks).
 */
function structureOf(body: Answer) {
  const voices = (list: Array<{ speaker?: string }>) => [...new Set(list.map((x) => x.speaker))].sort();
  return {
    speakers: body.speakers.map((s) => s.speaker).sort(),
    turnVoices: voices(body.speaker_segments),
    // A job's times carry the legacy milliseconds too (docs/DESIGN.md decision 7).
    segmentKeys: keysOf(body.segments),
    wordKeys: keysOf(body.words ?? []),
  };
}

const keysOf = (list: object[]) => [...new Set(list.flatMap((x) => Object.keys(x)))].filter((k) => !/_ms$/.test(k)).sort();

let inlineDiarized: Answer;

t.test('with diarize, voices are labelled within their channel', async (t) => {
  const res = await post({ response_format: 'diarized_json', multichannel: 'true', diarize: 'true' });
  t.equal(res.status, 200);
  inlineDiarized = (await res.json()) as Answer;
  assertVoicesByChannel(t, inlineDiarized);
});

/** A job's result once its decoration is done (the job is `succeeded` before it). */
async function decorated(t: Test, pollUrl: string): Promise<Answer> {
  t.equal((await waitForEnd(pollUrl, svc.key)).status, 'succeeded');
  let body = {} as Answer;
  for (const until = Date.now() + 120_000; Date.now() < until; await new Promise((r) => setTimeout(r, 250))) {
    body = (await poll(pollUrl, svc.key, '?include_result=true')).body.result?.content ?? {};
    if (body.segments && body.decoration === undefined) break;
  }
  t.notOk('decoration' in body, 'the decoration is done');
  return body;
}

t.test('a job with diarize: its decoration diarizes each channel alone, and agrees with the inline answer', async (t) => {
  const job = await createJob(svc.url, svc.key, jobBody(stereo, { multichannel: true, diarize: true, response_format: 'diarized_json' }));
  t.ok((await uploadFile(job, stereo)).status < 300, 'uploaded');
  t.equal((await completeJob(job, svc.key)).status, 202);
  const body = await decorated(t, job.poll_url);
  t.equal(body.word_timing_available, true);
  t.ok((body.words ?? []).length > 0, 'words with the speakers');
  assertVoicesByChannel(t, body);
  t.same(structureOf(body), structureOf(inlineDiarized), 'the same channels, voices and fields as the inline answer');

  // An upload past the inline boundary becomes such a job too.
  const long = await readFile((await stereoConsultation({ turns: 8 })).path);
  const accepted = await post({ response_format: 'diarized_json', multichannel: 'true', diarize: 'true' }, long);
  t.equal(accepted.status, 202, 'a job');
  assertVoicesByChannel(t, await decorated(t, ((await accepted.json()) as { poll_url: string }).poll_url));
});

t.test('what multichannel cannot serve is refused, saying why', async (t) => {
  await refusal(t, await post({ multichannel: 'true' }, mono), 422, /multichannel needs audio with 2 channels; this audio is mono/);
  await refusal(t, await post({ multichannel: 'yes' }), 400, /multichannel must be true or false/);
  await refusal(t, await post({ multichannel: 'true', stream: 'true', response_format: 'json' }), 422, /cannot be streamed/);
  await refusal(t, await post({ multichannel: 'true', 'include[]': 'logprobs', response_format: 'json' }), 422, /multichannel/);
  const translation = await fetch(`${svc.url}/v1/audio/translations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${svc.key}` },
    body: (() => {
      const form = new FormData();
      form.append('model', 'svc-medical-1');
      form.append('multichannel', 'true');
      form.append('file', new Blob([stereo as Uint8Array<ArrayBuffer>], { type: 'audio/wav' }), 'visit.wav');
      return form;
    })(),
  });
  await refusal(t, translation, 422, /multichannel is a transcription field/);
});

t.test('the OpenAPI document lists the field on both routes', async (t) => {
  const doc = JSON.stringify(await (await fetch(`${svc.url}/v1/openapi.json`)).json());
  t.ok((doc.match(/"multichannel":\{/g) ?? []).length >= 2, 'upload form and job body');
});

t.test('a job: its result carries channels; mono fails it saying why', async (t) => {
  await refusal(
    t,
    await createJobRequest(
      svc.url,
      svc.key,
      jobBody(stereo, { multichannel: true, diarize: true, response_format: 'diarized_json', known_speakers: ['voice_1'] }),
    ),
    422,
    /known speakers are not matched per channel/,
  );
  const job = await createJob(svc.url, svc.key, jobBody(stereo, { multichannel: true, response_format: 'verbose_json' }));
  t.ok((await uploadFile(job, stereo)).status < 300, 'uploaded');
  t.equal((await completeJob(job, svc.key)).status, 202);
  const done = await waitForEnd(job.poll_url, svc.key);
  t.equal(done.status, 'succeeded');
  assertChannels(t, (await (await fetch(done.result.download_url, { headers: auth(svc.key) })).json()) as Answer);

  // Which channel, on a job too: speech on the right only is heard on channel 1 only.
  const oneSided = await createJob(svc.url, svc.key, jobBody(rightOnly, { multichannel: true, response_format: 'verbose_json' }));
  t.ok((await uploadFile(oneSided, rightOnly)).status < 300, 'uploaded');
  t.equal((await completeJob(oneSided, svc.key)).status, 202);
  const right = await waitForEnd(oneSided.poll_url, svc.key);
  const rightBody = (await (await fetch(right.result.download_url, { headers: auth(svc.key) })).json()) as Answer;
  t.ok(rightBody.segments.length > 0 && rightBody.segments.every((s) => s.channel === 1), 'all on channel 1');

  const monoJob = await createJob(svc.url, svc.key, jobBody(mono, { multichannel: true }));
  t.ok((await uploadFile(monoJob, mono)).status < 300, 'uploaded');
  const completed = await completeJob(monoJob, svc.key);
  if (completed.status === 202) {
    const failed = await waitForEnd(monoJob.poll_url, svc.key);
    t.equal(failed.status, 'failed');
    t.match(JSON.stringify(failed.error), /mono/);
  } else {
    await refusal(t, completed, 422, /mono/);
  }
});
