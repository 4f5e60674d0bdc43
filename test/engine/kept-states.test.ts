// Decoding states kept between calls (native/whisper-state.h): a call on a state that served other
// calls gives exactly what it gives on a fresh one, and a state that drew randomness or read earlier
// text is never kept. Through the addon, on generated models (the tokens are noise, the numbers real).
import t from 'tap';

import { decodeAudio } from '../../src/audio/index.js';
import { loadNativeAddon, type NativeModel, type NativeTranscribeOptions, type NativeTranscribeResult } from '../../src/engine/native-addon.js';
import { speechWav } from '../helpers/audio-fixtures.js';
import { testModelPath } from '../helpers/test-models.js';

const addon = loadNativeAddon();
const GREEDY: NativeTranscribeOptions = { threads: 2, language: 'en', strategy: 'greedy', temperatureInc: 0 };
// Random weights make decoding run away to the window's end: a bound keeps the many calls short.
const BOUNDED: NativeTranscribeOptions = { ...GREEDY, maxTokens: 24 };

/** Everything a caller reads from a result, times and probabilities included. */
function seen(result: NativeTranscribeResult) {
  return {
    language: result.language,
    segments: result.segments.map((s) => ({
      t0: s.t0,
      t1: s.t1,
      bytes: Buffer.from(s.bytes).toString('hex'),
      noSpeechProb: s.noSpeechProb,
      tokens: s.tokens.map((k) => [k.id, k.p, k.plog, k.t0, k.t1]),
    })),
  };
}

async function freshModel(path: string): Promise<NativeModel> {
  const model = await addon.loadModel(path);
  if (model.info.idleStates !== 0) throw new Error('another holder of this model kept states: the test needs a model of its own');
  return model;
}

t.test('calls on a kept state give what they give on a fresh one', async (t) => {
  // The one-layer architecture: what a kept state could carry over does not depend on the model's size.
  const path = await testModelPath('micro', 5);
  const a = await decodeAudio(await speechWav(12), { maxSeconds: 60, timeoutMs: 60_000 });
  const b = await decodeAudio(await speechWav(7, { seed: 4 }), { maxSeconds: 60, timeoutMs: 60_000 });
  const cases: Array<[string, Float32Array, NativeTranscribeOptions]> = [
    ['greedy', a, BOUNDED],
    ['a prompt and token timestamps', a, { ...BOUNDED, initialPrompt: 'Metoprolol, lisinopril.', tokenTimestamps: true }],
    ['a sized encoder context', a.subarray(0, 3 * 16_000), { ...BOUNDED, audioCtx: 200 }],
    ['the whole context after a sized one', a.subarray(0, 3 * 16_000), BOUNDED],
    ['language detected', a, { ...BOUNDED, language: 'auto' }],
    // A kept state's first decoder never drew from its generator: sampling starts where a fresh one does.
    ['sampling at temperature 0.8', a, { threads: 2, language: 'en', temperature: 0.8, temperatureInc: 0, maxTokens: 16 }],
  ];

  const fresh: Array<ReturnType<typeof seen>> = [];
  for (const [, pcm, options] of cases) {
    const model = await freshModel(path);
    fresh.push(seen(await addon.transcribe(model, pcm, options)));
    model.release();
  }

  const model = await freshModel(path);
  t.teardown(() => model.release());
  // A history that leaves its marks on a state if anything could: other audio, a prompt, a sized context,
  // beam search and sampling (their states are dropped), a language detection on a sized context.
  const history = async () => {
    await addon.transcribe(model, b, { ...BOUNDED, initialPrompt: 'Atorvastatin forty milligrams.' });
    await addon.transcribe(model, b, { ...BOUNDED, audioCtx: 300 });
    await addon.transcribe(model, b, { threads: 2, language: 'en', strategy: 'beam', beamSize: 3, temperatureInc: 0, maxTokens: 8 });
    await addon.transcribe(model, b, { threads: 2, language: 'en', temperature: 0.9, temperatureInc: 0, maxTokens: 8 });
    await addon.detectLanguage(model, b, { threads: 2, audioCtx: 250 });
    await addon.transcribe(model, b, { ...BOUNDED, tokenTimestamps: true });
  };
  for (let i = 0; i < cases.length; i++) {
    await history();
    t.ok(model.info.idleStates >= 1, `a kept state waits before "${cases[i][0]}"`);
    t.same(seen(await addon.transcribe(model, cases[i][1], cases[i][2])), fresh[i], cases[i][0]);
  }
});

t.test('language detection on a kept state gives what it gives on a fresh one', async (t) => {
  const path = await testModelPath('tiny', 5);
  const pcm = await decodeAudio(await speechWav(12), { maxSeconds: 60, timeoutMs: 60_000 });
  const first = await freshModel(path);
  const whole = await addon.detectLanguage(first, pcm, { threads: 2 });
  const sized = await addon.detectLanguage(first, pcm, { threads: 2, audioCtx: 200 });
  first.release();
  const model = await freshModel(path);
  t.teardown(() => model.release());
  // The kept state last encoded a 200-position context: the whole window's detection may take it.
  await addon.transcribe(model, pcm.subarray(0, 3 * 16_000), { ...GREEDY, audioCtx: 200 });
  t.equal(model.info.idleStates, 1);
  t.same((await addon.detectLanguage(model, pcm, { threads: 2 })).probabilities, whole.probabilities, 'the whole window, not the last call’s context');
  t.same((await addon.detectLanguage(model, pcm, { threads: 2, audioCtx: 200 })).probabilities, sized.probabilities);
  // The state that encoded the whole window holds encoder output beyond 200 positions: a fresh one served.
  t.equal(model.info.idleStates, 2, 'the sized detection took a state of its own');
});

t.test('which calls give their state back', async (t) => {
  const path = await testModelPath('micro');
  const pcm = await decodeAudio(await speechWav(12), { maxSeconds: 60, timeoutMs: 60_000 });
  const model = await freshModel(path);
  t.teardown(() => model.release());
  await addon.transcribe(model, pcm, GREEDY);
  t.equal(model.info.idleStates, 1, 'greedy at temperature 0: kept');
  await addon.transcribe(model, pcm, GREEDY);
  t.equal(model.info.idleStates, 1, 'and used again');
  await addon.transcribe(model, pcm, { ...GREEDY, temperature: 0.5 });
  t.equal(model.info.idleStates, 0, 'sampling drew from the generator: dropped');
  await addon.transcribe(model, pcm, GREEDY);
  await addon.transcribe(model, pcm, { ...GREEDY, strategy: 'beam', beamSize: 2 });
  t.equal(model.info.idleStates, 0, 'beam search draws too: dropped');

  // Random weights fail whisper's log-probability check, so a fallback decodes each window again.
  await addon.transcribe(model, pcm, GREEDY);
  const once = await addon.transcribe(model, pcm, GREEDY);
  const fellBack = await addon.transcribe(model, pcm, { ...GREEDY, temperatureInc: 0.2 });
  t.ok(fellBack.timings.decoderSteps > once.timings.decoderSteps, 'the fallback decoded the window again');
  t.equal(model.info.idleStates, 0, 'a window decoded again at a higher temperature: dropped');

  await addon.transcribe(model, pcm, GREEDY);
  t.equal(model.info.idleStates, 1);
  await addon.transcribe(model, pcm, { ...GREEDY, noContext: false });
  t.equal(model.info.idleStates, 2, 'a call reading earlier text took a fresh state, and gave it back');
});

t.test('a call of the whole context leaves the states of short contexts to short calls', async (t) => {
  const path = await testModelPath('micro', 2);
  const pcm = await decodeAudio(await speechWav(12), { maxSeconds: 60, timeoutMs: 60_000 });
  const short = pcm.subarray(0, 3 * 16_000);
  const model = await freshModel(path);
  t.teardown(() => model.release());
  await addon.transcribe(model, pcm, GREEDY);
  // The state that encoded the whole window cannot serve a 200-position context: a second state is made.
  await addon.transcribe(model, short, { ...GREEDY, audioCtx: 200 });
  t.equal(model.info.idleStates, 2, 'one state that encoded the whole window, one that encoded 200 positions');
  await addon.transcribe(model, pcm, GREEDY);
  await addon.transcribe(model, short, { ...GREEDY, audioCtx: 200 });
  t.equal(model.info.idleStates, 2, 'each call took the state that suited it: no third state was made');
});

t.test('ever shorter contexts do not grow the pool past its limit', async (t) => {
  const path = await testModelPath('micro', 4);
  const pcm = await decodeAudio(await speechWav(3), { maxSeconds: 60, timeoutMs: 60_000 });
  const model = await freshModel(path);
  t.teardown(() => model.release());
  t.equal(model.info.stateLimit, 4, 'four until the engine says otherwise');
  // The reviewer's case: each call's context is shorter than any kept state encoded, so none fits and
  // each makes a fresh state. Unbounded, every one of them was kept.
  for (const audioCtx of [150, 140, 130, 120, 110, 100]) await addon.transcribe(model, pcm, { ...BOUNDED, audioCtx });
  t.equal(model.info.idleStates, 4, 'six states made, four kept');
  addon.keepStates(model, 2);
  t.same([model.info.stateLimit, model.info.idleStates], [2, 2], 'a lower limit frees the surplus at once');
  for (const audioCtx of [90, 80, 70]) await addon.transcribe(model, pcm, { ...BOUNDED, audioCtx });
  t.equal(model.info.idleStates, 2, 'and holds from then on');
  t.throws(() => addon.keepStates(model, -1), RangeError);
  t.throws(() => addon.keepStates(model, 1.5), RangeError);
});

t.test('releaseStates frees every idle state; calls go on with fresh ones', async (t) => {
  const path = await testModelPath('micro', 6);
  const pcm = await decodeAudio(await speechWav(3), { maxSeconds: 60, timeoutMs: 60_000 });
  const model = await freshModel(path);
  t.teardown(() => model.release());
  const before = seen(await addon.transcribe(model, pcm, BOUNDED));
  await addon.transcribe(model, pcm, { ...BOUNDED, audioCtx: 100 });
  t.equal(model.info.idleStates, 2);
  t.equal(addon.releaseStates(model), 2, 'two freed');
  t.equal(model.info.idleStates, 0);
  t.same(seen(await addon.transcribe(model, pcm, BOUNDED)), before, 'the next call, on a fresh state, gives the same');
  t.equal(model.info.idleStates, 1, 'and keeps its state again');
});
