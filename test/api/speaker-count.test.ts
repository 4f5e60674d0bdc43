// Speaker-count hints (src/contract/speaker-count.ts) on a real service: `min_speakers` and
// `max_speakers` on the direct route as on jobs, 1 to 4, the minimum not above the maximum, each
// needing diarize=true (422 otherwise, naming the field); `min_speakers` has the diarizer split a short
// exchange of two alike voices (two male espeak-ng voices, two turns each) into two, and
// `max_speakers` is the labelling ceiling on the direct route too.
import t from 'tap';

import { FIXTURE_SAMPLE_RATE, spokenSentence, wavFileBytes } from '../helpers/audio-fixtures.js';
import { createJobRequest, jobBody } from '../helpers/jobs-client.js';
import { postTranscription, startTestService, type TestService } from '../helpers/test-service.js';

let svc: TestService;
let exchange: Uint8Array;

/** Two alike voices taking turns, two sentences each, 0.7 s apart (the stopping rule before issue 31 heard one voice; now two, unhinted). */
async function shortExchange(): Promise<Uint8Array> {
  const first = { voice: 'en-us' };
  const second = { voice: 'en-gb-x-rp', pitch: 20, speed: 130 };
  const turns = [await spokenSentence(0, first), await spokenSentence(1, second), await spokenSentence(2, first), await spokenSentence(3, second)];
  const pause = new Int16Array(Math.round(0.7 * FIXTURE_SAMPLE_RATE));
  const parts = [pause, ...turns.flatMap((turn) => [turn, pause])];
  const samples = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    samples.set(part, at);
    at += part.length;
  }
  return wavFileBytes(samples);
}

t.before(async () => {
  svc = await startTestService();
  exchange = await shortExchange();
});
t.teardown(() => svc?.close());

const transcribe = (fields: Record<string, string>) =>
  postTranscription(svc.url, svc.key, { model: 'svc-medical-1', language: 'en', ...fields }, { data: exchange, name: 'visit.wav', type: 'audio/wav' });

t.test('bad counts are refused with 422 naming the field, on both routes', async (t) => {
  const diarized = { diarize: 'true', response_format: 'verbose_json' };
  const cases: Array<[string, Record<string, string>, RegExp]> = [
    ['min without diarize', { min_speakers: '2', response_format: 'verbose_json' }, /min_speakers needs diarize=true/],
    ['max without diarize', { max_speakers: '2', response_format: 'verbose_json' }, /max_speakers needs diarize=true/],
    ['min 0', { ...diarized, min_speakers: '0' }, /min_speakers must be an integer from 1 to 4/],
    ['min 5', { ...diarized, min_speakers: '5' }, /min_speakers must be an integer from 1 to 4/],
    ['min not a number', { ...diarized, min_speakers: 'two' }, /min_speakers must be an integer from 1 to 4/],
    ['max 1.5', { ...diarized, max_speakers: '1.5' }, /max_speakers must be an integer from 1 to 4/],
    ['min above max', { ...diarized, min_speakers: '3', max_speakers: '2' }, /min_speakers must not be above max_speakers/],
  ];
  for (const [name, fields, message] of cases) {
    const res = await transcribe(fields);
    const body = (await res.json()) as { error: { code: string; message: string } };
    t.equal(res.status, 422, `${name}: 422`);
    t.match(body.error, { code: 'invalid_request', message }, name);
  }
  const base = jobBody(exchange);
  for (const [name, fields, message] of [
    ['job min without diarize', { min_speakers: 2 }, /min_speakers needs diarize=true/],
    ['job min above max', { diarize: true, response_format: 'verbose_json', min_speakers: 4, max_speakers: 3 }, /min_speakers must not be above/],
  ] as const) {
    const res = await createJobRequest(svc.url, svc.key, { ...base, ...fields });
    t.equal(res.status, 422, name);
    t.match(((await res.json()) as { error: { message: string } }).error.message, message);
  }
  const ok = await createJobRequest(svc.url, svc.key, { ...base, diarize: true, response_format: 'verbose_json', min_speakers: 2, max_speakers: 2 });
  t.equal(ok.status, 201, 'a job takes both');
});

t.test('min_speakers=2 splits a short exchange of two alike voices; max_speakers is the ceiling inline too', async (t) => {
  const verbose = async (fields: Record<string, string>) => {
    const res = await transcribe({ diarize: 'true', response_format: 'verbose_json', ...fields });
    t.equal(res.status, 200);
    return (await res.json()) as { speakers: Array<{ speaker: string }>; speaker_timing: Record<string, unknown>; segments: Array<{ speaker?: string }> };
  };
  const hinted = await verbose({ min_speakers: '2' });
  t.same(
    hinted.speakers.map((s) => s.speaker),
    ['A', 'B'],
    'two voices, as the clinician said',
  );
  const unhinted = await verbose({});
  t.comment(`without the hint: ${unhinted.speakers.length} voice(s)`);
  const ceiling = await verbose({ min_speakers: '2', max_speakers: '2' });
  t.same(ceiling.speaker_timing.requested_max_speakers, 2);
  const one = await verbose({ max_speakers: '1', min_speakers: '1' });
  t.equal(one.speakers.length, 1, 'max_speakers 1: one label');
  t.equal(one.speaker_timing.requested_max_speakers, 1);
});
