// A realtime turn's final text (src/realtime/turn-recognition.ts) on recorded engine outputs: the same
// stages as an uploaded window. A prompt that changes a dose falls back to the context-free text, a
// near-miss spelling is corrected to the session's term, patterns format what they match, the
// hallucination guard drops what whisper invents over silence, and without vocabulary no prompt is
// sent. (End to end on the real engine and service: realtime-vocabulary.test.ts.)
import t from 'tap';

import type { TranscribeOptions } from '../../src/engine/engine.js';
import type { Transcript } from '../../src/engine/transcript.js';
import { patternPrograms } from '../../src/pipeline/patterns.js';
import { planVocabulary } from '../../src/pipeline/vocabulary-audit.js';
import { recogniseTurn, turnDecodeOptions } from '../../src/realtime/turn-recognition.js';
import { recordedPass, type RecordedSegment } from '../helpers/recorded-pass.js';

const RATE = 16_000;
/** A 6 s turn: speech from 0.2 s to 5.6 s. */
const PCM = new Float32Array(6 * RATE).fill(0.05);
const SPEECH = [{ start: 0.2, end: 5.6 }];

/** An engine answering with recorded passes: prompted (with its context-free check), or plain. */
function recordedEngine(plain: RecordedSegment[], prompted?: RecordedSegment[]) {
  const calls: TranscribeOptions[] = [];
  const transcribe = async (_pcm: Float32Array, options: TranscribeOptions): Promise<Transcript> => {
    calls.push(options);
    if (!options.initialPrompt || !prompted) return recordedPass(plain);
    return { ...recordedPass(prompted), check: { ...recordedPass(plain), capped: false } };
  };
  return { transcribe, calls };
}

const noVocabulary = planVocabulary([], [], 'en');

t.test('without vocabulary: one plain decode, greedy and without earlier turns, and the text as decoded', async (t) => {
  const engine = recordedEngine([{ text: ' The patient takes metoprolol 50 milligrams.', start: 0, end: 5 }]);
  const out = await recogniseTurn({ pcm: PCM, regions: SPEECH, language: 'en', vocabulary: noVocabulary, patterns: [], transcribe: engine.transcribe });
  t.equal(out.text, 'The patient takes metoprolol 50 milligrams.');
  t.equal(out.droppedSegments, 0);
  t.equal(out.vocabulary, null);
  t.equal(out.patterns, null);
  t.equal(engine.calls.length, 1);
  t.notOk(engine.calls[0].initialPrompt, 'no prompt');
  t.match(engine.calls[0], { ...turnDecodeOptions('en', 5.4), language: 'en', strategy: 'greedy', noContext: true, temperatureInc: 0 });
});

t.test('a prompt that changed the dose falls back to the context-free text, and the tally says so', async (t) => {
  const engine = recordedEngine(
    [{ text: ' Start metoprolol 50 milligrams twice daily.', start: 0, end: 5 }],
    [{ text: ' Start metoprolol 15 milligrams twice daily.', start: 0, end: 5 }],
  );
  const vocabulary = planVocabulary(['metoprolol'], [], 'en');
  const out = await recogniseTurn({ pcm: PCM, regions: SPEECH, language: 'en', vocabulary, patterns: [], transcribe: engine.transcribe });
  t.equal(out.text, 'Start metoprolol 50 milligrams twice daily.', 'the number the prompt changed is not trusted');
  t.equal(engine.calls[0].initialPrompt, 'metoprolol.');
  t.equal(engine.calls[0].contextFreeCheck, true, 'one encoder run, two decodes');
  t.equal(out.vocabulary?.fallbackChunks, 1);
  t.ok((out.vocabulary?.fallbackReasons.number ?? 0) > 0, `reasons ${JSON.stringify(out.vocabulary?.fallbackReasons)}`);
});

t.test("an unchanged prompted turn keeps the prompted text, corrected to the session's spelling; patterns format it", async (t) => {
  const engine = recordedEngine(
    [{ text: ' Metoprolole given, BP one twenty over eighty.', start: 0, end: 5 }],
    [{ text: ' Metoprolole given, BP one twenty over eighty.', start: 0, end: 5 }],
  );
  const vocabulary = planVocabulary(['Metoprolol'], [], 'en');
  const patterns = patternPrograms(['BP \\d+/\\d+']);
  const out = await recogniseTurn({ pcm: PCM, regions: SPEECH, language: 'en', vocabulary, patterns, transcribe: engine.transcribe });
  t.equal(out.text, 'Metoprolol given, BP 120/80.');
  t.equal(out.vocabulary?.fallbackChunks, 0);
  t.same(
    out.vocabulary?.corrections.map((c) => c.term),
    ['Metoprolol'],
  );
  t.equal(out.patterns?.results[0].count, 1, 'one pattern match reported');
});

t.test('the hallucination guard: a segment whisper calls non-speech, over the silence after the speech, is dropped', async (t) => {
  const transcribe = async (): Promise<Transcript> => {
    const pass = recordedPass([
      { text: ' Any chest pain?', start: 0, end: 1.2 },
      { text: ' Thank you for watching.', start: 5.4, end: 6.0 },
    ]);
    pass.segments[1].noSpeechProb = 0.9;
    return pass;
  };
  const regions = [{ start: 0.2, end: 1.4 }];
  const out = await recogniseTurn({ pcm: PCM, regions, language: 'en', vocabulary: noVocabulary, patterns: [], transcribe });
  t.equal(out.text, 'Any chest pain?');
  t.equal(out.droppedSegments, 1);
  const onlyHallucination = async (): Promise<Transcript> => {
    const pass = recordedPass([{ text: ' Thank you.', start: 2.0, end: 3.0 }]);
    pass.segments[0].noSpeechProb = 0.95;
    return pass;
  };
  const empty = await recogniseTurn({ pcm: PCM, regions, language: 'en', vocabulary: noVocabulary, patterns: [], transcribe: onlyHallucination });
  t.equal(empty.text, '', 'a turn of invented text only has none');
  t.equal(empty.droppedSegments, 1, 'and says what was dropped');
});

t.test("the session's signal reaches every decode: a closed session's turn stops, and nothing is told", async (t) => {
  const stopped = new AbortController();
  let seen: AbortSignal | undefined;
  const transcribe = (_pcm: Float32Array, _options: TranscribeOptions, signal?: AbortSignal) =>
    new Promise<Transcript>((_resolve, reject) => {
      seen = signal;
      signal?.addEventListener('abort', () => reject(Object.assign(new Error('aborted'), { name: 'AbortError' })));
    });
  const vocabulary = planVocabulary(['metoprolol'], [], 'en');
  const turn = recogniseTurn({ pcm: PCM, regions: SPEECH, language: 'en', vocabulary, patterns: [], transcribe, signal: stopped.signal });
  await new Promise((resolve) => setImmediate(resolve));
  t.ok(seen, 'the decode got a signal');
  stopped.abort();
  await t.rejects(turn, { name: 'AbortError' });
});
