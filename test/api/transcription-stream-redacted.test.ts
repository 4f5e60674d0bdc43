// stream=true with redact and smart_format (issue 45): the real service, route, VAD and pipeline
// stages, with the engine's decode replaced by a recorded one that says PHI (a generated model's words
// are noise, so it would never say a name to remove), read by the official openai client. No delta,
// segment or done event tells a planted identifier; the deltas are the shaped text, one per segment,
// adding up to the done text, which equals the non-streamed answer's and carries where and how many
// redactions; without redact the same words are streamed, so the planted PHI does reach the stream
// when nothing removes it.
import { readFile } from 'node:fs/promises';

import OpenAI, { toFile } from 'openai';
import t from 'tap';

import { SAMPLE_RATE } from '../../src/domain/audio-format.js';
import type { Transcribe } from '../../src/pipeline/recognised-segment.js';
import { speechWav } from '../helpers/audio-fixtures.js';
import { recordedSegment } from '../helpers/recorded-pass.js';
import { postTranscription, startTestService, type TestService } from '../helpers/test-service.js';

const SAID = [
  ' My name is John Smith, date of birth March third, nineteen fifty.',
  ' Give metoprolol twenty five milligrams twice daily.',
  ' Call me at five five five, zero one nine two.',
];
/** What must not be told anywhere in a redacted stream, in any casing. */
const PLANTED = ['john', 'smith', 'march', 'nineteen fifty', '1950', 'five five five', 'zero one nine two'];

/** Every window decodes to SAID, its three segments spread over the window. */
const recorded: Transcribe = async (pcm) => {
  const seconds = pcm.length / SAMPLE_RATE;
  const segments = SAID.map((text, i) => recordedSegment({ text, start: (i * seconds) / 3, end: ((i + 1) * seconds) / 3 }));
  return { text: SAID.join(''), language: 'en', languageProbability: null, durationSeconds: seconds, segments, timings: {} as never };
};

let svc: TestService;
let speech: Uint8Array;

t.before(async () => {
  svc = await startTestService({}, { wrapStages: (stages) => ({ ...stages, transcribe: recorded }) });
  speech = await readFile(await speechWav(8));
});
t.teardown(() => svc.close());

interface StreamEvent {
  type: string;
  [field: string]: unknown;
}

async function streamed(fields: Record<string, string>): Promise<StreamEvent[]> {
  const client = new OpenAI({ apiKey: svc.key, baseURL: `${svc.url}/v1` });
  const stream = await client.audio.transcriptions.create({
    model: 'svc-medical-1',
    language: 'en',
    response_format: 'json',
    ...fields,
    file: await toFile(speech, 'visit.wav'),
    stream: true,
  } as unknown as OpenAI.Audio.TranscriptionCreateParamsStreaming);
  const events: StreamEvent[] = [];
  for await (const event of stream) events.push(event as unknown as StreamEvent);
  return events;
}

const told = (events: StreamEvent[]) => JSON.stringify(events).toLowerCase();

t.test('redacted and formatted: no delta tells a planted identifier; the deltas add up to the redacted answer', async (t) => {
  const fields = { redact: 'identifiers', smart_format: 'true' };
  const events = await streamed(fields);
  const answer = (await (
    await postTranscription(svc.url, svc.key, { model: 'svc-medical-1', language: 'en', response_format: 'json', ...fields }, wav())
  ).json()) as {
    text: string;
    redactions: unknown[];
    redaction_counts: Record<string, number>;
  };
  const deltas = events.filter((e) => e.type === 'transcript.text.delta');
  const done = events.at(-1)!;
  t.equal(done.type, 'transcript.text.done', 'done is last');
  for (const [i, delta] of deltas.entries()) {
    for (const planted of PLANTED) t.notOk(String(delta.delta).toLowerCase().includes(planted), `delta ${i}: no "${planted}"`);
  }
  for (const planted of PLANTED) t.notOk(told(events).includes(planted), `no event tells "${planted}"`);
  t.equal(deltas.map((e) => e.delta).join(''), done.text, 'the deltas add up to the done text');
  t.equal(done.text, answer.text, 'the done text is the non-streamed answer');
  t.match(done.text, /\[PERSON_NAME\]/, 'the name is replaced by its class');
  t.match(done.text, /25 mg/, 'formatted');
  t.ok(deltas.length >= 3, `${deltas.length} deltas: one per segment`);
  t.same(done.redactions, answer.redactions, 'done says where, as the answer does');
  t.same(done.redaction_counts, answer.redaction_counts);
  t.ok((done.redaction_counts as Record<string, number>).person_name > 0, 'the name counted');
});

t.test('diarized_json: its segment events are redacted too', async (t) => {
  const events = await streamed({ response_format: 'diarized_json', redact: 'identifiers', redact_substitution: 'hash' });
  const segments = events.filter((e) => e.type === 'transcript.text.segment');
  t.ok(segments.length >= 3, `${segments.length} segments`);
  for (const planted of PLANTED) t.notOk(told(events).includes(planted), `no event tells "${planted}"`);
  t.match(String(events.at(-1)!.text), /####/);
});

t.test('without redact the same words are streamed: what is planted reaches the stream when nothing removes it', async (t) => {
  const events = await streamed({});
  t.ok(told(events).includes('john smith'), 'the name is told');
  t.same(Object.keys(events.at(-1)!).sort(), ['text', 'type'], 'done: type and text, as OpenAI shapes it');
});

function wav() {
  return { data: speech, name: 'visit.wav', type: 'audio/wav' };
}
