// Voice activity detection (Silero VAD through whisper.cpp's whisper_vad_* API) with real weights:
// whisper.cpp's official ggml conversions in ../shared/models/silero (where they are absent, the model
// the install converted; the checks against the official files are skipped), speech from espeak-ng, noise and
// tones from sox. Boundaries against the audio itself and against whisper-cli's own VAD; silence,
// noise and tones; cancellation; concurrency; bad model files; our converted model against the
// official one.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

import t from 'tap';

import { decodeAudio } from '../../src/audio/index.js';
import { SAMPLE_RATE } from '../../src/domain/audio-format.js';
import { Engine, type SpeechDetection } from '../../src/engine/engine.js';
import { EngineError } from '../../src/engine/engine-errors.js';
import { loadNativeAddon, type NativeSpeechDetection, type NativeVadParams } from '../../src/engine/native-addon.js';
import { DEFAULT_VAD_PARAMS, nativeVadParams, resolveVadParams } from '../../src/engine/vad-params.js';
import { defaultVadModelPath } from '../../src/models/vad-model-path.js';
import { speechWav } from '../helpers/audio-fixtures.js';
import { SILERO_ORACLES_MISSING, sileroOracles, VAD_MODEL_UNDER_TEST } from '../helpers/silero-oracles.js';
import { soxSignal, type SpeechSpan, speechWithSilences, wavBytes } from '../helpers/speech-with-silences.js';
import { testModelPath } from '../helpers/test-models.js';
import { WHISPER_CLI } from '../helpers/whisper-cli.js';

const execFileAsync = promisify(execFile);
const addon = loadNativeAddon();
const DEFAULTS: NativeVadParams = nativeVadParams(resolveVadParams());
/** whisper.cpp's own VAD hears the audio as it is. */
const UNLEVELLED = { levelTargetDb: -25, maxGainDb: 0, levelWindowMs: 3000 };
const OFFICIAL = SILERO_ORACLES_MISSING
  ? []
  : [
      { name: 'v6.2.0', path: sileroOracles.officialGgmlV6(), version: '6.2.0' },
      { name: 'v5.1.2', path: sileroOracles.officialGgmlV5(), version: '5.1.2' },
    ];
/** The v6 model the tests of behaviour run on (whisper.cpp's official file where the oracles are). */
const V6 = VAD_MODEL_UNDER_TEST.path;

/** Five sentences with 0.8 to 2 s of digital silence around them (24 s: several detection chunks). */
const LAYOUT = { sentences: [0, 1, 2, 3, 4], silences: [1.0, 1.5, 2.0, 1.2, 0.8, 1.0] };

const spans = (segments: readonly SpeechSpan[]) => segments.map((s) => `${s.start.toFixed(3)}-${s.end.toFixed(3)}`).join(' ');

function sameProbabilities(a: Float32Array, b: Float32Array): boolean {
  return a.length === b.length && Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.byteLength), Buffer.from(b.buffer, b.byteOffset, b.byteLength)) === 0;
}

function maxProbability(result: NativeSpeechDetection | SpeechDetection): number {
  return result.probabilities.reduce((max, p) => Math.max(max, p), 0);
}

t.test('a model handle reports the file it holds', { skip: SILERO_ORACLES_MISSING }, async (t) => {
  for (const official of OFFICIAL) {
    const model = await addon.loadVadModel(official.path);
    t.same(model.info, { path: official.path, type: 'silero-16k', version: official.version, frameSamples: 512, contextSamples: 64 });
    model.release();
    t.equal(model.released, true);
    t.throws(() => model.info, /released/);
    t.throws(() => addon.detectSpeech(model, new Float32Array(512), DEFAULTS), /released/);
  }
});

t.test('speech segments fall within 0.1 s of where the speech is', async (t) => {
  const audio = await speechWithSilences(LAYOUT);
  for (const official of OFFICIAL) {
    const model = await addon.loadVadModel(official.path);
    t.teardown(() => model.release());
    const result = await addon.detectSpeech(model, audio.pcm, DEFAULTS);
    t.comment(`${official.name}: truth ${spans(audio.truth)}`);
    t.comment(`${official.name}: found ${spans(result.segments)} in ${result.timings.detectMs.toFixed(1)} ms`);
    t.equal(result.frameSamples, 512);
    t.equal(result.probabilities.length, Math.ceil(audio.pcm.length / 512), 'one probability per frame, the last one zero-padded');
    t.equal(result.segments.length, audio.truth.length, `${official.name}: one segment per sentence`);
    result.segments.forEach((segment, i) => {
      const truth = audio.truth[i];
      t.ok(Math.abs(segment.start - truth.start) <= 0.1, `${official.name} sentence ${i}: start ${segment.start.toFixed(3)} vs ${truth.start.toFixed(3)}`);
      t.ok(Math.abs(segment.end - truth.end) <= 0.1, `${official.name} sentence ${i}: end ${segment.end.toFixed(3)} vs ${truth.end.toFixed(3)}`);
    });
  }
});

t.test('silence, noise and steady tones hold no speech', async (t) => {
  const signals: Array<[string, Float32Array]> = [
    ['digital silence', new Float32Array(10 * SAMPLE_RATE)],
    ['white noise (-30 dBFS RMS)', await soxSignal('whitenoise-vol0.1', 10, ['whitenoise'], ['vol', '0.1'])],
    ['white noise (-20 dBFS RMS)', await soxSignal('whitenoise-vol0.3', 10, ['whitenoise'], ['vol', '0.3'])],
    ['pink noise (-33 dBFS RMS)', await soxSignal('pinknoise-vol0.1', 10, ['pinknoise'], ['vol', '0.1'])],
    ['brown noise (-15 dBFS RMS)', await soxSignal('brownnoise-vol0.3', 10, ['brownnoise'], ['vol', '0.3'])],
    ['sine 440 Hz (-13 dBFS RMS)', await soxSignal('sine440-vol0.3', 10, ['sine', '440'], ['vol', '0.3'])],
    ['dial tone 350+440 Hz (-16 dBFS RMS)', await soxSignal('dial-vol0.3', 10, ['sine', '350', 'sine', '440'], ['vol', '0.3'])],
  ];
  for (const official of OFFICIAL) {
    const model = await addon.loadVadModel(official.path);
    t.teardown(() => model.release());
    for (const [name, pcm] of signals) {
      const result = await addon.detectSpeech(model, pcm, DEFAULTS);
      t.comment(`${official.name} ${name}: highest speech probability ${maxProbability(result).toFixed(3)}`);
      t.same(result.segments, [], `${official.name}: ${name}`);
    }
  }
});

t.test("the segments equal whisper.cpp's own VAD (whisper-cli) under several parameter sets", async (t) => {
  const whisperModel = await testModelPath('micro');
  const dir = t.testdir();
  const layout = await speechWithSilences(LAYOUT);
  const continuous = await decodeAudio(await speechWav(60), { maxSeconds: 120, timeoutMs: 60_000 });
  const cases: Array<{ name: string; pcm: Float32Array; params: NativeVadParams; cliArgs: string[] }> = [
    { name: 'layout, defaults', pcm: layout.pcm, params: { ...DEFAULTS, ...UNLEVELLED }, cliArgs: ['-vmsd', '30'] },
    {
      // Pauses shorter than a second never end a segment, so 5 s forces splits at the 98 ms pauses.
      name: '60 s of speech, forced splits',
      pcm: continuous,
      params: {
        threshold: 0.35,
        minSpeechDurationMs: 100,
        minSilenceDurationMs: 1000,
        maxSpeechDurationS: 5,
        speechPadMs: 100,
        ...UNLEVELLED,
      },
      cliArgs: ['-vt', '0.35', '-vspd', '100', '-vsd', '1000', '-vmsd', '5', '-vp', '100'],
    },
    {
      name: '60 s of speech, whisper.cpp defaults (no maximum)',
      pcm: continuous,
      params: nativeVadParams(resolveVadParams({ maxSpeechDurationS: Number.POSITIVE_INFINITY, ...UNLEVELLED })),
      cliArgs: [],
    },
  ];
  const model = await addon.loadVadModel(V6);
  t.teardown(() => model.release());
  for (const [i, c] of cases.entries()) {
    const wav = join(dir, `case-${i}.wav`);
    await writeFile(wav, wavBytes(c.pcm));
    // whisper-cli reads the WAV back as 16-bit samples: run ours on exactly those.
    const pcm = Float32Array.from(c.pcm, (x) => Math.max(-32768, Math.min(32767, Math.round(x * 32768))) / 32768);
    const ours = await addon.detectSpeech(model, pcm, c.params);
    const { stderr } = await execFileAsync(
      WHISPER_CLI,
      ['-m', whisperModel, '-f', wav, '-t', '1', '-l', 'en', '-bs', '1', '-bo', '1', '-nf', '-mc', '0', '--vad', '-vm', V6, ...c.cliArgs],
      { maxBuffer: 64 * 1024 * 1024 },
    );
    const theirs = [...stderr.matchAll(/VAD segment \d+: start = ([0-9.]+), end = ([0-9.]+)/g)].map((m) => ({ start: Number(m[1]), end: Number(m[2]) }));
    t.comment(`${c.name}: ours ${spans(ours.segments)}`);
    t.ok(theirs.length > 1, `${c.name}: whisper-cli found segments`);
    t.equal(ours.segments.length, theirs.length, `${c.name}: as many segments as whisper-cli`);
    // whisper.cpp rounds to centiseconds and prints two decimals; ours are exact samples.
    const off = ours.segments.map((s, j) => Math.max(Math.abs(s.start - (theirs[j]?.start ?? NaN)), Math.abs(s.end - (theirs[j]?.end ?? NaN))));
    t.ok(
      off.every((d) => d <= 0.0051),
      `${c.name}: every bound within 5 ms of whisper-cli's (worst ${Math.max(...off).toFixed(4)} s)`,
    );
  }
});

t.test('an abort stops a detection between chunks, and the context stays usable', async (t) => {
  const model = await addon.loadVadModel(V6);
  t.teardown(() => model.release());
  const speech = await speechWithSilences(LAYOUT);
  const reference = await addon.detectSpeech(model, speech.pcm, DEFAULTS);

  // 20 minutes: seconds of compute, against an abort after 200 ms. The call rejects with AbortError
  // only when it saw the flag before its last chunk, so the rejection itself proves it stopped early.
  const long = new Float32Array(20 * 60 * SAMPLE_RATE);
  long.set(speech.pcm, 0);
  const control = new Int32Array(new SharedArrayBuffer(4));
  const started = Date.now();
  const call = addon.detectSpeech(model, long, DEFAULTS, control);
  setTimeout(() => Atomics.store(control, 0, 1), 200);
  await t.rejects(call, { name: 'AbortError', code: 'ABORT_ERR' });
  t.comment(`aborted after ${Date.now() - started} ms`);

  const again = await addon.detectSpeech(model, speech.pcm, DEFAULTS);
  t.ok(sameProbabilities(again.probabilities, reference.probabilities), 'the next call starts from a fresh LSTM state');
  t.same(again.segments, reference.segments);

  Atomics.store(control, 0, 1);
  await t.rejects(addon.detectSpeech(model, speech.pcm, DEFAULTS, control), { name: 'AbortError' }, 'an already-set flag never runs');
});

t.test('concurrent calls on one model use their own contexts and free them with the last reference', async (t) => {
  // A private copy, so no other holder of the same path shares the registry entry.
  const path = join(t.testdir(), 'silero.bin');
  await copyFile(V6, path);
  const before = addon.vadStats();
  const a = await speechWithSilences(LAYOUT);
  const b = await speechWithSilences({ sentences: [4, 2, 0], silences: [0.5, 0.9, 1.4, 0.3] });
  const model = await addon.loadVadModel(path);
  const second = addon.loadVadModelSync(path);
  t.equal(addon.vadStats().loads - before.loads, 1, 'the file is read once for both handles');
  const refA = await addon.detectSpeech(model, a.pcm, DEFAULTS);
  const refB = await addon.detectSpeech(model, b.pcm, DEFAULTS);
  const results = await Promise.all([a, b, a, b].map((audio, i) => addon.detectSpeech(i % 2 ? second : model, audio.pcm, DEFAULTS)));
  results.forEach((r, i) => {
    const ref = i % 2 ? refB : refA;
    t.ok(sameProbabilities(r.probabilities, ref.probabilities), `concurrent call ${i}: same probabilities`);
    t.same(r.segments, ref.segments);
  });
  const during = addon.vadStats();
  t.ok(during.contexts - before.contexts >= 2, `concurrent calls made their own contexts (${during.contexts - before.contexts})`);
  t.ok(during.contexts - before.contexts <= 4, 'idle contexts are bounded');

  // A call in flight keeps the model alive after its handles are released.
  const inFlight = addon.detectSpeech(model, a.pcm, DEFAULTS);
  model.release();
  second.release();
  t.ok(sameProbabilities((await inFlight).probabilities, refA.probabilities));
  t.same(addon.vadStats(), { ...before, loads: before.loads + 1 }, 'contexts, models and references back to where they were');
});

t.test('bad model files are refused without harm', async (t) => {
  const dir = t.testdir();
  const official = await readFile(V6);
  const patched = (at: number, value: number) => {
    const copy = Buffer.from(official);
    copy.writeInt32LE(value, at);
    return copy;
  };
  // Header: window size at byte 30, encoder layer count at 38; the first tensor header follows at 106
  // (n_dims at 106, name length at 110, type at 114).
  const files: Record<string, Buffer | undefined> = {
    missing: undefined,
    empty: Buffer.alloc(0),
    'random bytes': Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 2654435761) >>> 24)),
    'header only (whisper.cpp would take it as an empty test model)': official.subarray(0, 106),
    'cut inside a tensor': official.subarray(0, Math.floor(official.length / 2)),
    'one byte short': official.subarray(0, official.length - 1),
    'type-name length of 2 GB': patched(4, 0x7fffffff),
    'negative type-name length': patched(4, -1),
    'three encoder layers': patched(38, 3),
    'window size zero': patched(30, 0),
    'tensor with seven dimensions': patched(106, 7),
    'tensor of unknown type': patched(114, 99),
    'whisper model': await readFile(await testModelPath('micro')),
  };
  t.equal(official.readInt32LE(30), 512, 'byte 30 holds the window size');
  t.equal(official.readInt32LE(38), 4, 'byte 38 holds the encoder layer count');
  t.equal(official.readInt32LE(106), 3, "byte 106 holds the first tensor's n_dims");
  const whisperModel = await testModelPath('micro');
  const before = addon.vadStats();
  for (const [name, bytes] of Object.entries(files)) {
    const path = join(dir, name.replace(/\W+/g, '-'));
    if (bytes) await writeFile(path, bytes);
    // The addon on its own (no TypeScript checks in front) rejects, never crashes.
    await t.rejects(addon.loadVadModel(path), Error, `addon: ${name}`);
    t.throws(() => addon.loadVadModelSync(path), Error, `addon, sync: ${name}`);
    // The engine fails open() with its own error code, naming the file.
    const error = await Engine.open({ model: whisperModel, workers: 1, vadModel: path }).then(
      async (engine) => {
        await engine.close();
        return undefined;
      },
      (e: unknown) => e,
    );
    t.ok(error instanceof EngineError && error.code === 'vad_model_load_failed', `engine: ${name}`);
    t.match((error as Error).message, path);
    t.comment(`${name}: ${(error as Error).message}`);
  }
  t.same(addon.vadStats(), before, 'nothing stays loaded');
});

t.test('the engine runs VAD in its own pool', async (t) => {
  const engine = await Engine.open({
    model: await testModelPath('micro'),
    workers: 1,
    threadsPerWorker: 1,
    vadModel: V6,
    vadWorkers: 2,
  });
  t.teardown(() => engine.close());
  t.equal(engine.vadModel?.version, VAD_MODEL_UNDER_TEST.version);
  const a = await speechWithSilences(LAYOUT);
  const b = await speechWithSilences({ sentences: [1, 3], silences: [0.7, 1.1, 0.4] });

  const refA = await engine.detectSpeech(a.pcm);
  const refB = await engine.detectSpeech(b.pcm);
  t.equal(refA.segments.length, 5);
  t.ok(
    refA.segments.every((s) => s.end <= a.seconds),
    'segments end within the audio',
  );
  t.equal(refB.segments.length, 2);
  t.ok(refB.segments[1].end <= b.seconds, 'the last segment is clamped to the audio');

  // Two workers at once, interleaved with whisper work: the same results as one at a time.
  const results = await Promise.all([
    engine.detectSpeech(a.pcm),
    engine.detectSpeech(b.pcm),
    engine.transcribe(b.pcm, { language: 'en', temperatureInc: 0, maxTokens: 4 }),
    engine.detectSpeech(a.pcm),
    engine.detectSpeech(b.pcm),
  ]);
  for (const [i, r] of [results[0], results[1], results[3], results[4]].entries()) {
    const ref = i % 2 ? refB : refA;
    const detection = r as SpeechDetection;
    t.ok(sameProbabilities(detection.probabilities, ref.probabilities), `call ${i}: same probabilities`);
    t.same(detection.segments, ref.segments);
  }
  t.same(engine.stats.vad, { workers: 2, running: 0, queued: 0, holds: 0 }, 'untagged calls are never held');

  // Parameters: defaults from vad-params.ts, overrides checked before anything runs.
  const padded = await engine.detectSpeech(a.pcm, { speechPadMs: 200 });
  t.ok(padded.segments[1].start < refA.segments[1].start && padded.segments[1].end > refA.segments[1].end, 'wider pads widen segments');
  await t.rejects(engine.detectSpeech(a.pcm, { threshold: 1.5 }), RangeError);
  await t.rejects(engine.detectSpeech(a.pcm, { maxSpeechDurationS: 2.5 }), RangeError);
  await t.rejects(engine.detectSpeech(a.pcm, { samplesOverlap: 0.1 } as never), /unknown VAD parameter/);
  await t.rejects(engine.detectSpeech(new Float32Array(0)), { code: 'invalid_audio' });

  // Cancellation: the call rejects at once, and the worker is free again afterwards.
  const controller = new AbortController();
  const call = engine.detectSpeech(new Float32Array(20 * 60 * SAMPLE_RATE), {}, { signal: controller.signal });
  setTimeout(() => controller.abort(), 100);
  await t.rejects(call, { name: 'AbortError' });
  await t.rejects(engine.detectSpeech(a.pcm, {}, { signal: AbortSignal.abort() }), { name: 'AbortError' });
  const after = await engine.detectSpeech(a.pcm);
  t.ok(sameProbabilities(after.probabilities, refA.probabilities));
});

t.test('an engine without a VAD model says so', async (t) => {
  const engine = await Engine.open({ model: await testModelPath('micro'), workers: 1 });
  t.teardown(() => engine.close());
  t.equal(engine.vadModel, undefined);
  t.equal(engine.stats.vad, undefined);
  await t.rejects(engine.detectSpeech(new Float32Array(16_000)), { code: 'vad_not_configured' });
});

t.test("VAD parameters: whisper.cpp's defaults but a 30 s maximum, and the input levelled", async (t) => {
  t.same(DEFAULT_VAD_PARAMS, {
    threshold: 0.5,
    minSpeechDurationMs: 250,
    minSilenceDurationMs: 100,
    maxSpeechDurationS: 30,
    speechPadMs: 30,
    levelTargetDb: -25,
    maxGainDb: 40,
    levelWindowMs: 3000,
  });
  t.throws(() => resolveVadParams({ levelWindowMs: 0 }), RangeError, 'a level is measured over at least a millisecond');
  t.throws(() => resolveVadParams({ levelTargetDb: 3 }), RangeError, 'a target above full scale');
  t.throws(() => resolveVadParams({ maxGainDb: -6 }), RangeError, 'levelling never lowers');
  t.equal(nativeVadParams(resolveVadParams({ maxSpeechDurationS: Number.POSITIVE_INFINITY })).maxSpeechDurationS, 1e6);
  t.throws(() => resolveVadParams({ minSilenceDurationMs: 100.5 }), RangeError);
  t.throws(() => resolveVadParams({ speechPadMs: 200_000 }), RangeError);
  t.throws(() => resolveVadParams({ maxSpeechDurationS: 1, speechPadMs: 400 }), RangeError, 'too short for the pads');
  // The addon takes every field explicitly: it has no defaults of its own.
  const model = await addon.loadVadModel(V6);
  t.teardown(() => model.release());
  const { speechPadMs: _omitted, ...partial } = DEFAULTS;
  t.throws(() => addon.detectSpeech(model, new Float32Array(512), partial as NativeVadParams), /speechPadMs is required/);
  t.throws(() => addon.detectSpeech(model, new Float32Array(512), { ...DEFAULTS, threshold: Number.NaN }), TypeError);
  t.throws(() => addon.detectSpeech(model, new Float32Array(512), { ...DEFAULTS, minSpeechDurationMs: 200_000 }), RangeError);
  const { maxGainDb: _gain, ...unlevelled } = DEFAULTS;
  t.throws(() => addon.detectSpeech(model, new Float32Array(512), unlevelled as NativeVadParams), /maxGainDb is required/);
  t.throws(() => addon.detectSpeech(model, new Float32Array(512), { ...DEFAULTS, maxGainDb: 61 }), RangeError);
  t.throws(() => addon.detectSpeech(model, new Float64Array(512) as never, DEFAULTS), TypeError);
});

const converted = defaultVadModelPath();
t.test(
  'the converted model (install step) matches the official conversion frame by frame',
  { skip: existsSync(converted) ? SILERO_ORACLES_MISSING : `${converted} does not exist yet: the install step (scripts/vad-model.mjs) makes it` },
  async (t) => {
    const ours = await addon.loadVadModel(converted);
    const official = await addon.loadVadModel(sileroOracles.officialGgmlV6());
    t.teardown(() => {
      ours.release();
      official.release();
    });
    t.equal(ours.info.version, '6.2.1');
    for (const pcm of [(await speechWithSilences(LAYOUT)).pcm, await decodeAudio(await speechWav(60), { maxSeconds: 120, timeoutMs: 60_000 })]) {
      const a = await addon.detectSpeech(ours, pcm, DEFAULTS);
      const b = await addon.detectSpeech(official, pcm, DEFAULTS);
      let worst = 0;
      for (let i = 0; i < a.probabilities.length; i++) worst = Math.max(worst, Math.abs(a.probabilities[i] - b.probabilities[i]));
      t.equal(a.probabilities.length, b.probabilities.length);
      t.ok(worst <= 0.02, `per-frame probabilities within 0.02 of the official file's (worst ${worst.toExponential(2)})`);
      t.same(a.segments, b.segments);
    }
  },
);
