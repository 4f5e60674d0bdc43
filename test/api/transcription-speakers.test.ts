// Speakers and words on the inline route, end to end (real service, generated model, ffmpeg, the
// native diarizer, the official openai client): diarized responses carry OpenAI's diarized fields,
// the wording is identical with and without diarize, timestamp_granularities[] is honoured or refused,
// a speaker segment holds its talker's short pause, and Arabic gets speaker_segments only.
import { readFile } from 'node:fs/promises';

import OpenAI, { toFile } from 'openai';
import t from 'tap';

import { FIXTURE_SAMPLE_RATE, spokenSentence, wavFileBytes } from '../helpers/audio-fixtures.js';
import { conversation, CONVERSATION_VOICES } from '../helpers/conversations.js';
import { postTranscription, startTestService, type TestService } from '../helpers/test-service.js';

let svc: TestService;
let talk: Uint8Array;
t.before(async () => {
  svc = await startTestService();
  talk = await readFile((await conversation({ voices: 2, turns: 6, seed: 1 })).path);
});
t.teardown(() => svc.close());

const wav = () => ({ data: talk, name: 'visit.wav', type: 'audio/wav' });

async function transcribe(fields: Record<string, string | string[]>) {
  const res = await postTranscription(svc.url, svc.key, { model: 'svc-medical-1', language: 'en', ...fields } as Record<string, string>, wav());
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

t.test('diarize: speakers, split segments and words; the wording is the same as without', async (t) => {
  const plain = await transcribe({ response_format: 'verbose_json' });
  const diarized = await transcribe({ response_format: 'diarized_json', diarize: 'true' });
  t.equal(plain.status, 200);
  t.equal(diarized.status, 200);
  const d = diarized.body;
  t.equal(d.task, 'transcribe', "OpenAI's task field");
  t.equal(d.text, plain.body.text, 'text byte-identical');
  t.equal(d.segments.map((s: any) => s.text).join(' '), plain.body.segments.map((s: any) => s.text).join(' '), 'segments carry the same words');
  t.same(d.speakers, [{ speaker: 'A' }, { speaker: 'B' }], 'two voices');
  t.ok(d.speaker_segments.length >= 2);
  for (const s of d.speaker_segments) t.ok(['A', 'B'].includes(s.speaker) && s.end > s.start);
  t.same(d.speaker_timing, {
    word_timing: true,
    speaker_ceiling_reached: false,
    requested_max_speakers: 4,
    detected_speaker_count: 2,
    speaker_ceiling_action: 'none',
  });
  for (const s of d.segments) {
    t.equal(s.type, 'transcript.text.segment');
    t.type(s.id, 'string');
    t.ok(['A', 'B'].includes(s.speaker) || d.speaker_segments.length === 0, `segment speaker ${s.speaker}`);
  }
  if (d.text !== '') {
    t.ok(Array.isArray(d.words) && d.words.length > 0, 'words present');
    for (let i = 1; i < d.words.length; i++) t.ok(d.words[i].start >= d.words[i - 1].end, 'words monotonic, not overlapping');
    t.ok(
      d.words.every((w: any) => w.start >= 0 && w.end <= d.duration + 1e-6),
      'words within the audio',
    );
  }
  t.type(d.metadata.processing_ms.diarization, 'number');
  t.equal(plain.body.speakers.length, 0, 'without diarize: no speakers');
  t.equal(plain.body.words, undefined, 'and no words');
});

/**
 * One voice says two sentences 0.4 s apart, then another voice two sentences 1 s apart (the VAD hears
 * each sentence as speech of its own). Returns the WAV and each sentence's audible span.
 */
async function pausedTalk(): Promise<{ data: Uint8Array; spans: Array<{ start: number; end: number }> }> {
  const plan = [
    { sentence: 0, voice: CONVERSATION_VOICES.A, pauseBefore: 0.5 },
    { sentence: 1, voice: CONVERSATION_VOICES.A, pauseBefore: 0.4 },
    { sentence: 2, voice: CONVERSATION_VOICES.B, pauseBefore: 0.8 },
    { sentence: 3, voice: CONVERSATION_VOICES.B, pauseBefore: 1 },
  ];
  const pieces: Int16Array[] = [];
  const spans: Array<{ start: number; end: number }> = [];
  let at = 0;
  for (const p of plan) {
    const spoken = await spokenSentence(p.sentence, p.voice);
    let first = 0;
    let last = spoken.length - 1;
    while (first < last && spoken[first] === 0) first++;
    while (last > first && spoken[last] === 0) last--;
    const silence = new Int16Array(Math.round(p.pauseBefore * FIXTURE_SAMPLE_RATE));
    pieces.push(silence, spoken.subarray(first, last + 1));
    at += silence.length;
    spans.push({ start: at / FIXTURE_SAMPLE_RATE, end: (at + last + 1 - first) / FIXTURE_SAMPLE_RATE });
    at += last + 1 - first;
  }
  pieces.push(new Int16Array(FIXTURE_SAMPLE_RATE / 2));
  const samples = new Int16Array(at + FIXTURE_SAMPLE_RATE / 2);
  let offset = 0;
  for (const piece of pieces) {
    samples.set(piece, offset);
    offset += piece.length;
  }
  return { data: wavFileBytes(samples), spans };
}

// SPEAKERS.md "Attaching speakers": a turn holds its talker's pauses of up to 0.5 s (src/engine/turn-pauses.ts),
// as diarization references count them; a longer silence ends the turn, and another voice is never joined.
t.test("speaker_segments: a talker's 0.4 s pause stays inside their segment; a 1 s silence ends one", async (t) => {
  const { data, spans } = await pausedTalk();
  const file = { data, name: 'paused.wav', type: 'audio/wav' };
  const fields = { model: 'svc-medical-1', language: 'en', response_format: 'diarized_json', diarize: 'true' };
  const res = await postTranscription(svc.url, svc.key, fields, file);
  t.equal(res.status, 200);
  const d = (await res.json()) as Record<string, any>;
  const segments = d.speaker_segments as Array<{ speaker: string; start: number; end: number }>;
  t.comment(JSON.stringify(segments));
  t.equal(d.speakers.length, 2, 'two voices');
  const across = (from: { end: number }, to: { start: number }) => segments.filter((s) => s.start < from.end && s.end > to.start);
  const held = across(spans[0], spans[1]);
  t.equal(held.length, 1, 'one segment runs from the first sentence into the second, over the pause');
  t.ok(held[0].start <= spans[0].start + 0.3 && held[0].end >= spans[1].end - 0.3, 'it covers both sentences');
  t.same(across(spans[1], spans[2]), [], 'the two voices keep their own segments');
  t.same(across(spans[2], spans[3]), [], 'the second voice is silent 1 s: two segments');
  const second = segments.filter((s) => s.start >= spans[1].end);
  t.equal(new Set(second.map((s) => s.speaker)).size, 1, 'both of its sentences are one voice');
  t.not(second[0].speaker, held[0].speaker, 'and not the first');
});

t.test('timestamp_granularities[]: word gives words without diarize (the openai client)', async (t) => {
  const client = new OpenAI({ apiKey: svc.key, baseURL: `${svc.url}/v1` });
  const result = (await client.audio.transcriptions.create({
    file: await toFile(talk, 'visit.wav', { type: 'audio/wav' }),
    model: 'svc-medical-1' as 'whisper-1',
    language: 'en',
    response_format: 'verbose_json',
    timestamp_granularities: ['word', 'segment'],
  })) as unknown as Record<string, any>;
  if (result.text !== '') t.ok(result.words.length > 0, 'words');
  else t.same(result.words, []);
  t.ok(
    result.words.every((w: any) => w.speaker === undefined),
    'no speakers without diarize',
  );
  t.equal(result.speaker_timing.word_timing, true);
  const segmentOnly = await transcribe({ response_format: 'verbose_json', 'timestamp_granularities[]': 'segment' });
  t.equal(segmentOnly.status, 200);
  t.equal(segmentOnly.body.words, undefined, 'segment only: no words');
});

t.test('timestamp_granularities[] refusals', async (t) => {
  for (const [fields, status, message] of [
    [{ 'timestamp_granularities[]': 'sentence', response_format: 'verbose_json' }, 422, /word or segment/],
    [{ 'timestamp_granularities[]': 'word', response_format: 'json' }, 422, /verbose_json/],
    [{ 'timestamp_granularities[]': 'word', response_format: 'verbose_json', language: 'ar' }, 422, /not available for ar/],
    [{ 'timestamp_granularities[]': 'word', timestamp_granularities: 'word', response_format: 'verbose_json' }, 400, /not both/],
  ] as const) {
    const res = await transcribe(fields as Record<string, string>);
    t.equal(res.status, status, JSON.stringify(fields));
    t.match(res.body.error.message, message);
  }
});

t.test('Arabic: ownership only in speaker_segments, segments transcript-only', async (t) => {
  const { status, body } = await transcribe({ response_format: 'verbose_json', diarize: 'true', language: 'ar' });
  t.equal(status, 200);
  t.equal(body.speaker_timing.word_timing, false);
  t.equal(body.words, undefined);
  t.ok(
    body.segments.every((s: any) => s.speaker === 'unknown'),
    'segments unattributed',
  );
  t.ok(body.speaker_segments.length > 0, 'speaker_segments present');
  t.same(body.speakers, [{ speaker: 'A' }, { speaker: 'B' }]);
});
