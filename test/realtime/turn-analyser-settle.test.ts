// A realtime turn's speculative final decode (src/realtime/turn-analyser.ts), on the real engine and VAD:
// begun in a pause, it is stopped as soon as the turn goes on (its audio is not the turn's), so it
// holds no core at the final decode's urgency; the turn still gets its turn_final, from a decode of
// its whole audio.
import { readFile } from 'node:fs/promises';

import t from 'tap';

import { NO_CLINICAL_TEXT } from '../../src/contract/clinical-text-fields.js';
import { Engine } from '../../src/engine/engine.js';
import { vadModelPath } from '../../src/models/vad-model-path.js';
import { EventSequence } from '../../src/realtime/realtime-events.js';
import { DEFAULT_SESSION_LIMITS } from '../../src/realtime/session-limits.js';
import { SessionVocabulary } from '../../src/realtime/session-vocabulary.js';
import { ShownTurnText } from '../../src/realtime/shown-turn-text.js';
import { TurnAnalyser } from '../../src/realtime/turn-analyser.js';
import { speechWav } from '../helpers/audio-fixtures.js';
import { wavPcm } from '../helpers/realtime-client.js';
import { testModelPath } from '../helpers/test-models.js';

const RATE = 16_000;

function floats(pcm16: Uint8Array): Float32Array {
  const view = new DataView(pcm16.buffer, pcm16.byteOffset, pcm16.byteLength);
  return Float32Array.from({ length: pcm16.byteLength / 2 }, (_, i) => view.getInt16(2 * i, true) / 32768);
}

t.test('a final decode begun in a pause is stopped when the turn goes on; the turn_final decodes the whole turn', async (t) => {
  const engine = await Engine.open({ model: await testModelPath('tiny'), workers: 1, vadModel: vadModelPath() });
  t.teardown(() => engine.close());
  const speech = floats(wavPcm(await readFile(await speechWav(2))));
  // Speech, a pause long enough to be a turn-end candidate (0.3 s) but not to end the turn (0.6 s), speech, silence.
  const gap = Math.round(0.45 * RATE);
  const audio = new Float32Array(2 * speech.length + gap + RATE);
  audio.set(speech, 0);
  audio.set(speech, speech.length + gap);

  const finals: Array<{ samples: number; signal: AbortSignal }> = [];
  const watched = Object.create(engine) as Engine;
  watched.transcribe = (pcm, options, call = {}) => {
    if (call.work?.workClass === 'realtime_final') finals.push({ samples: pcm.length, signal: call.signal! });
    return engine.transcribe(pcm, options, call);
  };
  const events: Array<Record<string, unknown>> = [];
  const session = new AbortController();
  const failures: unknown[] = [];
  const analyser = new TurnAnalyser({
    engine: watched,
    language: 'en',
    tenant: 'tenant',
    sessionId: 'session',
    shown: new ShownTurnText(NO_CLINICAL_TEXT, 'en'),
    vocabulary: new SessionVocabulary([], [], [], 'en'),
    speakers: null,
    events: new EventSequence(),
    send: (event) => events.push(event),
    signal: session.signal,
    limits: DEFAULT_SESSION_LIMITS,
    isStreaming: () => true,
    failed: (error) => failures.push(error),
  });
  // A look's worth of audio (0.25 s) at a time, each look finished before the next audio: the looks fall
  // at the same moments on any machine (at 2.5 s the pause is a candidate, at 2.75 s the speech is back).
  const step = DEFAULT_SESSION_LIMITS.stepSeconds * RATE;
  for (let at = 0; at < audio.length; at += step) {
    analyser.push(audio.subarray(at, Math.min(audio.length, at + step)));
    await analyser.idle();
  }
  await analyser.closeTurns();

  t.same(failures, []);
  const types = events.map((e) => e.type);
  t.ok(types.includes('turn_end_candidate'), `the pause made a candidate (${types.join(' ')})`);
  t.ok(types.includes('turn_continuation'), 'and the speech after it continued the turn');
  t.ok(finals.length >= 2, `a final decode in the pause and one of the whole turn (${finals.length})`);
  const stopped = finals.filter((f) => f.signal.aborted);
  t.ok(stopped.length >= 1, 'the decode begun in the pause was stopped');
  t.ok(
    stopped.every((f) => f.samples < speech.length + gap),
    'only decodes of the audio before the pause were stopped',
  );
  t.notOk(session.signal.aborted, 'while the session itself went on');
  const turnFinals = events.filter((e) => e.type === 'turn_final');
  t.equal(turnFinals.length, 1, 'one turn');
  t.ok((turnFinals[0]?.end as number) > (speech.length + gap) / RATE, 'the turn_final covers the speech after the pause');
  t.notOk(finals.at(-1)!.signal.aborted, "the turn_final's own decode ran to its end");
});
