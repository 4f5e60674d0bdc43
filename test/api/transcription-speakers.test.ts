// Speakers and words on the inline route, end to end (real service, generated model, ffmpeg, the
// native diarizer, the official openai client): diarized responses carry OpenAI's diarized fields,
// the wording is identical with and without diarize, timestamp_granularities[] is honoured or refused,
// and Arabic gets speaker_segments only.
import { readFile } from 'node:fs/promises';
import t from 'tap';
import OpenAI, { toFile } from 'openai';
import { conversation } from '../helpers/conversations.js';
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
