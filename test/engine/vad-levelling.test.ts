// The VAD hears each recording levelled (native/speech-level.h, src/engine/vad-params.ts): far-field
// speech, 25-35 dB quieter than a close talker's and smeared by a room, is found; noise, tones and
// music raised just as far are still not speech. Real Silero weights (the installed default), espeak-ng
// speech through a simulated room (test/helpers/far-field.ts), sox noise, synthesised music.
import t from 'tap';

import { Engine } from '../../src/engine/engine.js';
import { loadNativeAddon } from '../../src/engine/native-addon.js';
import { nativeVadParams, resolveVadParams } from '../../src/engine/vad-params.js';
import { vadModelPath } from '../../src/models/vad-model-path.js';
import { farField, pinkNoise } from '../helpers/far-field.js';
import { music } from '../helpers/music.js';
import { clicks, noiseBursts } from '../helpers/room-sounds.js';
import { speechDetectionScore } from '../helpers/speech-detection-score.js';
import { soxSignal, speechWithSilences } from '../helpers/speech-with-silences.js';
import { testModelPath } from '../helpers/test-models.js';

const RATE = 16_000;
/** Ten sentences with pauses of 0.3 to 2 s. */
const LAYOUT = { sentences: [0, 1, 2, 3, 4, 2, 0, 4, 1, 3], silences: [1.0, 0.5, 1.5, 0.3, 2.0, 0.7, 1.2, 0.4, 0.9, 1.6, 1.0] };
/** A talker across a reverberant room from the microphone: -55 dBFS, T60 0.6 s, DRR -3 dB, pink noise 20 dB under the speech. */
const FAR_ROOM = { t60Seconds: 0.6, directToReverberantDb: -3, speechLevelDb: -55, snrDb: 20 };
const UNLEVELLED = { maxGainDb: 0 };

let engine: Engine;
t.before(async () => {
  engine = await Engine.open({ model: await testModelPath('micro'), workers: 1, vadModel: vadModelPath(), vadWorkers: 1 });
});
t.teardown(() => engine.close());

const atRmsDb = (pcm: Float32Array, db: number) => {
  const rms = Math.sqrt(pcm.reduce((sum, x) => sum + x * x, 0) / pcm.length);
  return pcm.map((x) => (x * 10 ** (db / 20)) / rms);
};

t.test('a quiet talker in a reverberant room is found, sentence by sentence', async (t) => {
  const audio = await speechWithSilences(LAYOUT);
  const pcm = farField(audio.pcm, audio.truth, FAR_ROOM);
  const heard = await engine.detectSpeech(pcm);
  const score = speechDetectionScore(audio.truth, heard.segments);
  t.comment(`levelled by ${heard.levelling[0].gainDb.toFixed(1)} dB from ${heard.levelling[0].levelDb.toFixed(1)} dBFS`);
  t.comment(`recall ${score.recall.toFixed(3)}, precision ${score.precision.toFixed(3)} (0.25 s collar)`);
  t.ok(heard.levelling[0].gainDb > 25, 'raised by about the 30 dB it lies below the target');
  t.ok(score.recall >= 0.95, 'almost all of the speech is found');
  t.ok(score.precision >= 0.95, 'and little else');
  for (const [i, sentence] of audio.truth.entries()) {
    const covered = heard.segments.reduce((sum, s) => sum + Math.max(0, Math.min(s.end, sentence.end) - Math.max(s.start, sentence.start)), 0);
    t.ok(covered >= 0.9 * (sentence.end - sentence.start), `sentence ${i} found`);
  }
  // Unlevelled, Silero misses most of it: what the levelling is for.
  const unlevelled = await engine.detectSpeech(pcm, UNLEVELLED);
  const before = speechDetectionScore(audio.truth, unlevelled.segments);
  t.comment(`unlevelled: recall ${before.recall.toFixed(3)}`);
  t.equal(unlevelled.levelling[0].gainDb, 0);
  t.ok(before.recall < 0.7, 'unlevelled, much of the far talker is missed');
});

t.test('a far talker right after a near one is found: each stretch is levelled on itself', async (t) => {
  // One room, one noise floor (-60 dBFS): a talker near the microphone at -20 dBFS, then one across the room at -45.
  const near = await speechWithSilences({ voice: 'en-us', sentences: [0, 1, 2, 3, 4], silences: [1.0, 0.5, 1.5, 0.3, 2.0, 0.7] });
  const far = await speechWithSilences({ voice: 'en-us+f3', sentences: [3, 0, 4, 1, 2], silences: [0.6, 1.1, 0.4, 1.8, 0.8, 0.3] });
  const nearPcm = farField(near.pcm, near.truth, { speechLevelDb: -20, snrDb: 40, directToReverberantDb: 10 });
  const farPcm = farField(far.pcm, far.truth, { speechLevelDb: -45, snrDb: 15, seed: 2 });
  const pcm = new Float32Array(nearPcm.length + farPcm.length);
  pcm.set(nearPcm);
  pcm.set(farPcm, nearPcm.length);
  const farTruth = far.truth.map((s) => ({ start: s.start + near.seconds, end: s.end + near.seconds }));
  const recallOfFar = (segments: ReadonlyArray<{ start: number; end: number }>) =>
    speechDetectionScore(
      farTruth,
      segments.filter((s) => s.end > near.seconds),
    ).recall;
  const heard = await engine.detectSpeech(pcm);
  t.comment(`far talker recall ${recallOfFar(heard.segments).toFixed(3)}`);
  t.ok(recallOfFar(heard.segments) >= 0.95, 'the far talker is found');
  t.ok(
    speechDetectionScore(
      near.truth,
      heard.segments.filter((s) => s.start < near.seconds),
    ).precision >= 0.95,
    'and the near one is not smeared',
  );
  // Levelled as one stretch, the near talker sets the level, and Silero, having heard it, misses the far one.
  const whole = await engine.detectSpeech(pcm, { levelWindowMs: 100_000 });
  t.comment(`levelled as one stretch: far talker recall ${recallOfFar(whole.segments).toFixed(3)}`);
  t.ok(recallOfFar(whole.segments) < 0.5, 'levelled as a whole, most of the far talker is missed');
});

t.test('close speech is heard as it is: never lowered, the same segments as unlevelled', async (t) => {
  const audio = await speechWithSilences(LAYOUT);
  for (const db of [-20, -6]) {
    const pcm = atRmsDb(audio.pcm, db);
    const heard = await engine.detectSpeech(pcm);
    t.equal(heard.levelling[0].gainDb, 0, `speech at ${db} dBFS is not levelled`);
    t.same(heard.segments, (await engine.detectSpeech(pcm, UNLEVELLED)).segments);
  }
});

t.test('noise, tones, music and room sounds raised to speech level are still not speech', async (t) => {
  const signals: Array<[string, Float32Array, number]> = [
    ['white noise', await soxSignal('whitenoise-vol0.1', 10, ['whitenoise'], ['vol', '0.1']), -60],
    ['pink noise', await soxSignal('pinknoise-vol0.1', 10, ['pinknoise'], ['vol', '0.1']), -60],
    ['brown noise', await soxSignal('brownnoise-vol0.3', 10, ['brownnoise'], ['vol', '0.3']), -50],
    ['pink noise near the floor', await soxSignal('pinknoise-vol0.1', 10, ['pinknoise'], ['vol', '0.1']), -68],
    ['dial tone', await soxSignal('dial-vol0.3', 10, ['sine', '350', 'sine', '440'], ['vol', '0.3']), -50],
    ['sine 440 Hz', await soxSignal('sine440-vol0.3', 10, ['sine', '440'], ['vol', '0.3']), -55],
    ['music', music(10), -55],
    ['music', music(10), -40],
  ];
  const sounds: Array<[string, Float32Array]> = [
    ['clicks at -40 dBFS', clicks(10, -40)],
    ['breath-like bursts at -45 dBFS', noiseBursts(10, -45, 0.6, 2.5)],
    ['cough-like bursts at -35 dBFS', noiseBursts(10, -35, 0.25, 1.7)],
    ['rustle-like bursts at -50 dBFS', noiseBursts(10, -50, 1.5, 2)],
  ];
  for (const [name, pcm] of [...signals.map(([n, signal, db]) => [`${n} at ${db} dBFS`, atRmsDb(signal, db)] as const), ...sounds]) {
    const heard = await engine.detectSpeech(pcm);
    const highest = heard.probabilities.reduce((max, p) => Math.max(max, p), 0);
    t.comment(`${name}: raised ${heard.levelling[0].gainDb.toFixed(1)} dB, highest speech probability ${highest.toFixed(3)}`);
    t.ok(heard.levelling[0].gainDb >= 15, `${name} was raised`);
    t.same(heard.segments, [], `${name}: no speech`);
  }
});

t.test('the level is measured on the active part, and the gain is bounded', async (t) => {
  const silence = await engine.detectSpeech(new Float32Array(5 * RATE));
  t.same(silence.levelling, [{ levelDb: Number.NEGATIVE_INFINITY, gainDb: 0 }], 'digital silence: nothing to level');
  t.same(silence.segments, []);

  // A sine's mean square is half its amplitude squared: 0.01 is -43 dBFS. Whole frames, so no window holds the zero-padded last one.
  const sine = Float32Array.from({ length: 160 * 512 }, (_, i) => 0.01 * Math.sin((2 * Math.PI * 440 * i) / RATE));
  const [sineLevel] = (await engine.detectSpeech(sine)).levelling;
  t.ok(Math.abs(sineLevel.levelDb - 20 * Math.log10(0.01 / Math.SQRT2)) < 0.1, `a sine of amplitude 0.01 measures ${sineLevel.levelDb.toFixed(2)} dBFS`);
  t.ok(Math.abs(sineLevel.gainDb - (-25 - sineLevel.levelDb)) < 0.01, 'raised to the -25 dBFS target');

  // The same speech with ten times the silence around it measures the same: pauses never count.
  const sparse = await speechWithSilences({ sentences: [0, 1], silences: [20, 30, 25] });
  const dense = await speechWithSilences({ sentences: [0, 1], silences: [0.5, 0.5, 0.5] });
  const quiet = (pcm: Float32Array) => pcm.map((x) => x * 10 ** (-40 / 20));
  const [a] = (await engine.detectSpeech(quiet(sparse.pcm))).levelling;
  const [b] = (await engine.detectSpeech(quiet(dense.pcm))).levelling;
  t.ok(Math.abs(a.levelDb - b.levelDb) < 1, `speech in long silences ${a.levelDb.toFixed(1)} dBFS, in short ones ${b.levelDb.toFixed(1)} dBFS`);
  // Over a room's noise 20 dB under the speech, the relative gate leaves the pauses' noise out while speech fills
  // much of the stretch. Where noise fills most of it (long pauses), part of the noise passes the gate and the level
  // reads low (about 10 dB here): that stretch is raised more, which the range where Silero's recall is flat absorbs.
  const noisy = (pcm: Float32Array) => {
    const noise = pinkNoise(pcm.length, 5);
    return pcm.map((x, i) => x * 10 ** (-20 / 20) + noise[i] * 10 ** (-60 / 20));
  };
  const [clean] = (await engine.detectSpeech(dense.pcm.map((x) => x * 10 ** (-20 / 20)))).levelling;
  const [overNoise] = (await engine.detectSpeech(noisy(dense.pcm))).levelling;
  const [mostlyNoise] = (await engine.detectSpeech(noisy(sparse.pcm))).levelling;
  t.comment(`speech ${clean.levelDb.toFixed(1)} dBFS; over noise ${overNoise.levelDb.toFixed(1)}; in long pauses of noise ${mostlyNoise.levelDb.toFixed(1)}`);
  t.ok(Math.abs(overNoise.levelDb - clean.levelDb) < 1.5, 'speech over noise measures as the speech');

  const faint = Float32Array.from({ length: 5 * RATE }, (_, i) => 0.0006 * Math.sin((2 * Math.PI * 440 * i) / RATE));
  t.equal((await engine.detectSpeech(faint)).levelling[0].gainDb, 40, 'at most 40 dB');
  t.equal((await engine.detectSpeech(faint, { maxGainDb: 12 })).levelling[0].gainDb, 12, "the caller's bound");
});

t.test("the addon never writes the caller's samples", async (t) => {
  // The addon reads the caller's array in place (the engine's workers hold copies): levelling works on its own buffer.
  const addon = loadNativeAddon();
  const model = await addon.loadVadModel(vadModelPath());
  t.teardown(() => model.release());
  const audio = await speechWithSilences({ sentences: [2], silences: [0.5, 0.5] });
  const pcm = audio.pcm.map((x) => x * 0.01);
  const copy = pcm.slice();
  const heard = await addon.detectSpeech(model, pcm, nativeVadParams(resolveVadParams()));
  t.ok(heard.levelling.gainDb > 0, 'levelled');
  t.same(pcm, copy);
});
