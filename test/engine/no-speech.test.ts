// A window's no-speech probability (native/no-speech.h): the no-speech token's probability at the
// start-of-transcript position, decoded from the window's own encoder output. whisper.cpp's own figure
// read a logits row that was never computed: 1 / n_vocab on every first window. Through the addon, on
// a generated model (random weights: the figure is small and varies little, but it is computed), and
// whisper.cpp's own decisions, taken on its own figure, are left as they were (test/engine/differential
// holds the tokens to whisper-cli's).
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import t from 'tap';

import { decodeAudio } from '../../src/audio/index.js';
import { loadNativeAddon, type NativeSegment, type NativeTranscribeOptions } from '../../src/engine/native-addon.js';
import { speechWav } from '../helpers/audio-fixtures.js';
import { testModelPath } from '../helpers/test-models.js';

const addon = loadNativeAddon();
const GREEDY: NativeTranscribeOptions = { threads: 2, language: 'en', strategy: 'greedy', temperatureInc: 0, maxTokens: 24 };
const N_VOCAB = 51_865;
// Random weights barely listen to the audio (figures about 1.3e-5, apart by 1e-10 between two
// recordings): the same computation on other input is told apart exactly, not by a tolerance.
const distinct = (a: number, b: number) => a !== b;

t.test("each window's segments carry that window's own no-speech probability", async (t) => {
  const model = await addon.loadModel(await testModelPath('tiny', 1));
  t.teardown(() => model.release());
  const eight = await decodeAudio(await speechWav(8), { maxSeconds: 60, timeoutMs: 60_000 });
  const other = await decodeAudio(await speechWav(8, { seed: 2 }), { maxSeconds: 60, timeoutMs: 60_000 });
  const long = await decodeAudio(await speechWav(45, { seed: 3 }), { maxSeconds: 60, timeoutMs: 60_000 });

  const one = await addon.transcribe(model, eight, GREEDY);
  t.equal(one.timings.encoderRuns, 1);
  t.ok(one.segments.length > 0, 'something decoded');
  const p = one.segments[0].noSpeechProb;
  t.ok(p > 0 && p < 1, `a probability (${p})`);
  t.ok(Math.abs(p * N_VOCAB - 1) > 0.1, 'not whisper.cpp’s 1 / n_vocab from a row of zeros');
  t.ok(
    one.segments.every((s) => s.noSpeechProb === p),
    'one window, one figure',
  );
  t.ok(distinct((await addon.transcribe(model, other, GREEDY)).segments[0].noSpeechProb, p), 'other audio, another figure');
  const silence = await addon.transcribe(model, new Float32Array(5 * 16_000), GREEDY);
  t.ok(silence.segments.length === 0 || distinct(silence.segments[0].noSpeechProb, p), 'silence, another figure');

  // Two windows in one call (whisper seeks to the first window's last timestamp): whisper.cpp gave the
  // second the first window's last decoding step.
  const two = await addon.transcribe(model, long, GREEDY);
  t.equal(two.timings.encoderRuns, 2, 'two windows');
  const figures = two.segments.map((s) => s.noSpeechProb);
  const changes = figures.filter((f, i) => i > 0 && f !== figures[i - 1]).length;
  t.equal(changes, 1, 'a figure per window, in order');
  t.ok(distinct(figures[0], figures[figures.length - 1]), 'each its own');
  // The first window's encoder output is the same whether the call went on past 30 s or not.
  const firstAlone = await addon.transcribe(model, long, { ...GREEDY, durationMs: 30_000 });
  t.equal(firstAlone.segments[0]?.noSpeechProb, figures[0], 'the first window alone: the same figure');
});

t.test('the figure is the audio’s: no prompt, token timing, live report or check changes it', async (t) => {
  const model = await addon.loadModel(await testModelPath('tiny', 1));
  t.teardown(() => model.release());
  const pcm = await decodeAudio(await speechWav(12, { seed: 5 }), { maxSeconds: 60, timeoutMs: 60_000 });
  const plain = (await addon.transcribe(model, pcm, GREEDY)).segments[0].noSpeechProb;
  const prompt = 'Metoprolol twenty-five milligrams, lisinopril.';
  const prompted = await addon.transcribe(model, pcm, { ...GREEDY, initialPrompt: prompt, tokenTimestamps: true });
  t.ok(
    prompted.segments.every((s) => s.noSpeechProb === plain),
    'a vocabulary prompt does not sway whether the window holds speech',
  );
  const live: NativeSegment[] = [];
  const checked = await addon.transcribe(model, pcm, { ...GREEDY, initialPrompt: prompt, contextFreeCheck: true }, undefined, undefined, (s) =>
    live.push(...s),
  );
  await new Promise((resolve) => setImmediate(resolve));
  t.same(
    live.map((s) => s.noSpeechProb),
    checked.segments.map((s) => s.noSpeechProb),
    'segments reported while decoding carry the final figure',
  );
  t.equal(checked.check?.noSpeechProb, plain, 'the check reports its window’s figure');
  t.ok(
    checked.segments.every((s) => s.noSpeechProb === plain),
    'and the checked call’s own segments the same',
  );
  t.same(
    checked.segments.map((s) => s.tokens.map((k) => k.id)),
    (await addon.transcribe(model, pcm, { ...GREEDY, initialPrompt: prompt })).segments.map((s) => s.tokens.map((k) => k.id)),
    'the check and the figure leave whisper’s own decode as it is',
  );
});

t.test("no native source reads whisper.cpp's own no-speech figure", async (t) => {
  const native = fileURLToPath(new URL('../../native', import.meta.url));
  const sources = readdirSync(native, { recursive: true, encoding: 'utf8' }).filter((name) => /\.(cc|h)$/.test(name));
  t.ok(sources.length > 20, `${sources.length} native sources`);
  const readers = sources.filter((name) => /whisper_full_get_segment_no_speech_prob/.test(readFileSync(`${native}/${name}`, 'utf8')));
  t.same(readers, [], 'segments take their window’s figure from native/no-speech.h');
});
