// Known speakers on the inline route, end to end (real service, ffmpeg, the VAD, the native
// diarizer, the official openai client): a voice that matches a reference clip carries its name, the
// others keep letters, speaker_timing says which names matched and how strongly, a stranger's clip
// names nobody, and clips that are not 2 to 10 s of one person speaking are refused with 422 naming
// the field.
import { readFile } from 'node:fs/promises';

import OpenAI, { toFile } from 'openai';
import t from 'tap';

import { FIXTURE_SAMPLE_RATE, wavFileBytes } from '../helpers/audio-fixtures.js';
import { conversation, CONVERSATION_VOICES, exchange } from '../helpers/conversations.js';
import { poll, waitForEnd } from '../helpers/jobs-client.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { referenceClip } from '../helpers/voice-references.js';

let svc: TestService;
let talk: Uint8Array;
let turns: Array<{ speaker: string; start: number; end: number }>;
t.before(async () => {
  svc = await startTestService();
  const c = await conversation({ voices: 2, turns: 8, seed: 1 });
  talk = await readFile(c.path);
  turns = c.turns;
});
t.teardown(() => svc.close());

const dataUrl = (bytes: Uint8Array, type = 'audio/wav') => `data:${type};base64,${Buffer.from(bytes).toString('base64')}`;
const referenceOf = async (voice: (typeof CONVERSATION_VOICES)[string], seconds?: number) => dataUrl(await readFile(await referenceClip(voice, seconds)));
const samplesWav = (samples: Float32Array) => wavFileBytes(Int16Array.from(samples, (s) => Math.round(Math.max(-1, Math.min(1, s)) * 32767)));

/** A form with each array field's values repeated under `name[]`, as OpenAI's client sends them. */
async function transcribe(fields: Record<string, string | string[]>, audio = talk) {
  const form = new FormData();
  for (const [name, value] of Object.entries({ model: 'svc-medical-1', language: 'en', response_format: 'diarized_json', diarize: 'true', ...fields })) {
    for (const v of Array.isArray(value) ? value : [value]) form.append(name, v);
  }
  form.append('file', new Blob([audio as Uint8Array<ArrayBuffer>], { type: 'audio/wav' }), 'visit.wav');
  const res = await fetch(`${svc.url}/v1/audio/transcriptions`, { method: 'POST', body: form, headers: { authorization: `Bearer ${svc.key}` } });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

/** Seconds of the reference speaker's turns covered by segments labelled `label`. */
function secondsLabelled(segments: Array<{ speaker: string; start: number; end: number }>, speaker: string, label: string): number {
  let seconds = 0;
  for (const r of turns.filter((x) => x.speaker === speaker)) {
    for (const s of segments.filter((x) => x.speaker === label)) seconds += Math.max(0, Math.min(r.end, s.end) - Math.max(r.start, s.start));
  }
  return seconds;
}

t.test('the openai client: the enrolled voice carries its name, the other keeps a letter', async (t) => {
  const client = new OpenAI({ apiKey: svc.key, baseURL: `${svc.url}/v1` });
  const result = (await client.audio.transcriptions.create({
    file: await toFile(talk, 'visit.wav', { type: 'audio/wav' }),
    model: 'svc-medical-1' as 'gpt-4o-transcribe-diarize',
    language: 'en',
    response_format: 'diarized_json',
    diarize: true,
    known_speaker_names: ['Dr Ames'],
    known_speaker_references: [await referenceOf(CONVERSATION_VOICES.A)],
  } as never)) as unknown as Record<string, any>;
  t.same(result.speakers, [{ speaker: 'A' }, { speaker: 'Dr Ames' }], 'the named voice and one letter');
  const timing = result.speaker_timing.known_speakers;
  t.equal(timing.length, 1);
  t.match(timing[0], { name: 'Dr Ames', matched: true });
  t.ok(timing[0].similarity > 0.5 && timing[0].similarity <= 1, `similarity ${timing[0].similarity}`);
  const segments = result.speaker_segments as Array<{ speaker: string; start: number; end: number }>;
  t.ok(secondsLabelled(segments, 'A', 'Dr Ames') > 0.9 * turns.filter((x) => x.speaker === 'A').reduce((s, x) => s + x.end - x.start, 0), 'the doctor');
  // Turns meet and overlap in the conversation: a few hundredths of a second at a boundary is the boundary.
  t.ok(secondsLabelled(segments, 'B', 'Dr Ames') < 0.25, 'the other voice is never named as the doctor');
  t.ok(secondsLabelled(segments, 'B', 'A') > 0, 'the other voice is A');
  t.ok(
    result.segments.every((s: any) => ['A', 'Dr Ames'].includes(s.speaker)),
    'segments carry the same labels',
  );
});

t.test('a stranger enrolled names nobody; every name is reported', async (t) => {
  const res = await transcribe({
    'known_speaker_names[]': ['Dr Ames', 'Nurse Ray'],
    'known_speaker_references[]': [await referenceOf(CONVERSATION_VOICES.A), await referenceOf({ voice: 'en-us+f1', pitch: 70 })],
  });
  t.equal(res.status, 200);
  t.same(res.body.speakers, [{ speaker: 'A' }, { speaker: 'Dr Ames' }]);
  t.match(res.body.speaker_timing.known_speakers, [
    { name: 'Dr Ames', matched: true },
    { name: 'Nurse Ray', matched: false },
  ]);
  t.ok(res.body.speaker_timing.known_speakers[1].similarity < 0.5);
});

t.test('bad reference clips and fields: 422 naming the field, never echoing it', async (t) => {
  const doctor = await referenceOf(CONVERSATION_VOICES.A);
  const silence = dataUrl(samplesWav(new Float32Array(4 * FIXTURE_SAMPLE_RATE)));
  const cases: Array<[string, Record<string, string | string[]>, RegExp]> = [
    ['silence', { 'known_speaker_names[]': 'x', 'known_speaker_references[]': silence }, /known_speaker_references\[0\] holds too little speech/],
    [
      'music',
      { 'known_speaker_names[]': 'x', 'known_speaker_references[]': dataUrl(samplesWav(music(6))) },
      /known_speaker_references\[0\] holds too little speech/,
    ],
    ['too short', { 'known_speaker_names[]': 'x', 'known_speaker_references[]': await referenceOf(CONVERSATION_VOICES.A, 1.5) }, /2 to 10 seconds/],
    [
      'too long',
      { 'known_speaker_names[]': 'x', 'known_speaker_references[]': dataUrl(samplesWav(new Float32Array(12 * FIXTURE_SAMPLE_RATE))) },
      /2 to 10 seconds/,
    ],
    [
      'two voices',
      { 'known_speaker_names[]': 'x', 'known_speaker_references[]': await twoVoices() },
      /known_speaker_references\[0\] holds more than one voice/,
    ],
    ['not audio', { 'known_speaker_names[]': 'x', 'known_speaker_references[]': dataUrl(Buffer.from('hello, not audio at all')) }, /not audio/],
    ['not a data URL', { 'known_speaker_names[]': 'x', 'known_speaker_references[]': 'https://example.com/a.wav' }, /base64 data URL/],
    ['unpaired', { 'known_speaker_names[]': ['x', 'y'], 'known_speaker_references[]': doctor }, /pair one to one/],
    ['five', { 'known_speaker_names[]': ['a1', 'a2', 'a3', 'a4', 'a5'], 'known_speaker_references[]': Array(5).fill(doctor) }, /must be 1 to 4/],
    ['a letter', { 'known_speaker_names[]': 'B', 'known_speaker_references[]': doctor }, /single capital letter/],
    ['repeated', { 'known_speaker_names[]': ['x', 'x'], 'known_speaker_references[]': [doctor, doctor] }, /repeat/],
    ['without diarize', { diarize: 'false', 'known_speaker_names[]': 'x', 'known_speaker_references[]': doctor }, /need diarize=true/],
  ];
  for (const [name, fields, message] of cases) {
    const res = await transcribe(fields);
    t.equal(res.status, 422, name);
    t.equal(res.body.error.code, 'invalid_request', name);
    t.match(res.body.error.message, message, name);
    t.notMatch(res.body.error.message, /UklGR|example\.com|hello/, `${name}: the clip is not echoed`);
  }
});

t.test('audio that becomes a job: the clip is stored as its profile, and the decoration names the voice', async (t) => {
  const long = await conversation({ voices: 2, turns: 28, seed: 1 });
  t.ok(long.seconds > 60, `${Math.round(long.seconds)} s, past the inline boundary`);
  const accepted = await transcribe(
    { response_format: 'verbose_json', 'known_speaker_names[]': 'Dr Ames', 'known_speaker_references[]': await referenceOf(CONVERSATION_VOICES.A) },
    await readFile(long.path),
  );
  t.equal(accepted.status, 202);
  const row = (await svc.stores.jobs.getById(accepted.body.id))!;
  t.same(Object.keys((row.request.knownSpeakers as Array<Record<string, unknown>>)[0]).sort(), ['name', 'profile'], 'a profile, not the clip');
  t.notOk('knownSpeakerReferences' in row.request, "the clip's bytes are not stored");
  const pollUrl = accepted.body.poll_url as string;
  t.equal((await waitForEnd(pollUrl, svc.key, 300_000)).status, 'succeeded');
  let result: Record<string, any> = {};
  for (const until = Date.now() + 300_000; Date.now() < until; await new Promise((r) => setTimeout(r, 250))) {
    result = (await poll(pollUrl, svc.key, '?include_result=true')).body.result?.content ?? {};
    if (result.decoration === undefined && result.speakers?.length > 0) break;
  }
  t.same(result.speakers, [{ speaker: 'A' }, { speaker: 'Dr Ames' }], 'decorated with the name');
  t.match(result.speaker_timing.known_speakers, [{ name: 'Dr Ames', matched: true }]);
});

/** Tones of a melody with harmonics and a sustained chord under it: music, no speech. */
function music(seconds: number): Float32Array {
  const pcm = new Float32Array(seconds * FIXTURE_SAMPLE_RATE);
  const notes = [262, 294, 330, 349, 392, 440, 494, 523];
  for (let i = 0; i < pcm.length; i++) {
    const time = i / FIXTURE_SAMPLE_RATE;
    const note = notes[Math.floor(time / 0.3) % notes.length];
    const envelope = Math.min(1, ((time % 0.3) / 0.02) * Math.exp(-(time % 0.3) * 4));
    let v = 0;
    for (let h = 1; h <= 5; h++) v += (0.25 / h) * Math.sin(2 * Math.PI * note * h * time) * envelope;
    for (const f of [131, 165, 196]) v += 0.08 * Math.sin(2 * Math.PI * f * time);
    pcm[i] = v * 0.5;
  }
  return pcm;
}

/** Two voices taking turns within 8 s. */
async function twoVoices(): Promise<string> {
  const c = await exchange({ voices: [CONVERSATION_VOICES.A, CONVERSATION_VOICES.B], turns: 2, minSeconds: 3, maxSeconds: 3.5, seed: 3 });
  return dataUrl(await readFile(c.path));
}
