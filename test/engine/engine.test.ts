// The Engine's pool: shared model, concurrency, cancellation, progress, segments as decoded, a bounded queue.
import t from 'tap';

import { decodeAudio } from '../../src/audio/index.js';
import { Engine } from '../../src/engine/engine.js';
import { loadNativeAddon } from '../../src/engine/native-addon.js';
import { speechWav } from '../helpers/audio-fixtures.js';
import { testModelPath } from '../helpers/test-models.js';

const GREEDY_CAPPED = { language: 'en', strategy: 'greedy', temperatureInc: 0, maxTokens: 24 } as const;

t.test('two workers, six calls: all correct, the model read from disk once', async (t) => {
  const model = await testModelPath('micro');
  const pcm = await decodeAudio(await speechWav(11), { maxSeconds: 60, timeoutMs: 60_000 });
  const loadsBefore = loadNativeAddon().modelStats().loads;
  const engine = await Engine.open({ model, workers: 2, threadsPerWorker: 1 });
  t.teardown(() => engine.close());

  // Reference: the same call alone (on two threads: the idle worker's is lent to it).
  const reference = await engine.transcribe(pcm, GREEDY_CAPPED);
  t.ok(reference.segments.length > 0);
  const results = await Promise.all(Array.from({ length: 6 }, () => engine.transcribe(pcm, GREEDY_CAPPED)));
  for (const r of results) {
    t.same(
      r.segments.map((s) => s.tokens.map((x) => x.id)),
      reference.segments.map((s) => s.tokens.map((x) => x.id)),
    );
    t.equal(r.text, reference.text);
  }
  const stats = loadNativeAddon().modelStats();
  t.equal(stats.loads - loadsBefore, 1, 'one read of the model file for the main thread and both workers');
  t.ok(stats.references >= 3, 'the main thread and both workers hold references');
  const { classes, encoderRuns, decoderSteps, ...figures } = engine.stats;
  t.equal(encoderRuns, 7, 'one window each');
  t.equal(decoderSteps, 7 * reference.timings.decoderSteps, 'the same decoding seven times');
  t.same(figures, {
    workers: 2,
    threadsPerWorker: 1,
    urgentWorkers: 2,
    running: 0,
    held: 0,
    holds: 0,
    // The reference call ran alone and was lent the idle worker's thread; the six at once were not.
    lent: 1,
    queued: 0,
    maxQueue: engine.maxQueue,
    calls: { transcribe: 7, detectLanguage: 0, detectSpeech: 0, diarize: 0, speakerFeatures: 0 },
  });
  // Untagged calls count as inline work.
  t.equal(classes.interactive.dispatched, 7);
  t.equal(classes.interactive.queued, 0);
  t.equal(classes.batch.dispatched + classes.realtime_final.dispatched + classes.realtime_partial.dispatched, 0);
});

t.test('a result does not depend on what ran before on the same worker', async (t) => {
  const model = await testModelPath('micro');
  const a = await decodeAudio(await speechWav(11), { maxSeconds: 60, timeoutMs: 60_000 });
  const b = await decodeAudio(await speechWav(6), { maxSeconds: 60, timeoutMs: 60_000 });
  const engine = await Engine.open({ model, workers: 1, threadsPerWorker: 2 });
  t.teardown(() => engine.close());
  // Sampling with temperature uses whisper's RNG; a fresh state per call resets it.
  const sampled = { language: 'en', temperature: 0.8, temperatureInc: 0, maxTokens: 16 };
  const first = await engine.transcribe(a, sampled);
  await engine.transcribe(b, sampled);
  const again = await engine.transcribe(a, sampled);
  t.same(
    again.segments.map((s) => s.tokens.map((x) => x.id)),
    first.segments.map((s) => s.tokens.map((x) => x.id)),
  );
});

t.test('cancellation mid-decode rejects with AbortError and frees the worker', async (t) => {
  const model = await testModelPath('tiny');
  const pcm = await decodeAudio(await speechWav(60), { maxSeconds: 120, timeoutMs: 60_000 });
  const engine = await Engine.open({ model, workers: 1, threadsPerWorker: 2 });
  t.teardown(() => engine.close());
  const controller = new AbortController();
  let progressed = false;
  const started = Date.now();
  const call = engine.transcribe(
    pcm,
    { language: 'en', temperatureInc: 0 },
    {
      signal: controller.signal,
      onProgress: () => {
        progressed = true;
      },
    },
  );
  // Abort once decoding is under way (the encoder of the first window has run).
  await new Promise((r) => setTimeout(r, 1500));
  controller.abort();
  await t.rejects(call, { name: 'AbortError' });
  t.comment(`aborted after ${Date.now() - started} ms, progress seen: ${progressed}`);
  // The worker is free again: a short call completes.
  const short = await decodeAudio(await speechWav(3), { maxSeconds: 60, timeoutMs: 60_000 });
  const after = await engine.transcribe(short, { ...GREEDY_CAPPED, maxTokens: 4 });
  t.ok(after.segments.length >= 0);
  t.equal(engine.stats.running, 0);
});

t.test('an already-aborted signal rejects without running', async (t) => {
  const engine = await Engine.open({ model: await testModelPath('micro'), workers: 1, threadsPerWorker: 1 });
  t.teardown(() => engine.close());
  await t.rejects(engine.transcribe(new Float32Array(16000), {}, { signal: AbortSignal.abort() }), { name: 'AbortError' });
});

t.test('progress is monotonic and reaches 100', async (t) => {
  const engine = await Engine.open({ model: await testModelPath('micro'), workers: 1, threadsPerWorker: 2 });
  t.teardown(() => engine.close());
  const pcm = await decodeAudio(await speechWav(70), { maxSeconds: 120, timeoutMs: 60_000 });
  const seen: number[] = [];
  await engine.transcribe(pcm, GREEDY_CAPPED, { onProgress: (p) => seen.push(p) });
  t.ok(seen.length >= 2, `several progress reports (${seen.join(',')})`);
  t.same(
    [...seen].sort((a, b) => a - b),
    seen,
    'non-decreasing',
  );
  t.equal(seen.at(-1), 100);
});

t.test('segments are reported as they are decoded, each once, in order, the same as the result holds', async (t) => {
  const pcm = await decodeAudio(await speechWav(70), { maxSeconds: 120, timeoutMs: 60_000 });
  for (const wordAlignment of ['tokens', 'dtw'] as const) {
    const engine = await Engine.open({ model: await testModelPath('tiny'), workers: 1, threadsPerWorker: 2, wordAlignment });
    t.teardown(() => engine.close());
    const batches: Array<{ count: number; settled: boolean }> = [];
    const reported: unknown[] = [];
    let settled = false;
    const options = { ...GREEDY_CAPPED, tokenTimestamps: true };
    const transcript = await engine.transcribe(pcm, options, {
      onSegments: (segments) => {
        batches.push({ count: segments.length, settled });
        reported.push(...segments);
      },
    });
    settled = true;
    t.ok(transcript.segments.length >= 3, `${wordAlignment}: ${transcript.segments.length} segments over three windows`);
    t.same(reported, transcript.segments, `${wordAlignment}: the reports are the result's segments, each once, in order`);
    t.ok(
      batches.every((b) => !b.settled),
      `${wordAlignment}: every report came before the call resolved`,
    );
    if (wordAlignment === 'tokens') t.ok(batches.length >= 3, `reported while decoding, in ${batches.length} batches`);
  }
});

t.test('a full queue rejects fast with queue_full', async (t) => {
  const engine = await Engine.open({ model: await testModelPath('micro'), workers: 1, threadsPerWorker: 1, maxQueue: 1 });
  t.teardown(() => engine.close());
  const pcm = await decodeAudio(await speechWav(11), { maxSeconds: 60, timeoutMs: 60_000 });
  const running = engine.transcribe(pcm, GREEDY_CAPPED);
  const queued = engine.transcribe(pcm, GREEDY_CAPPED);
  t.same({ running: engine.stats.running, queued: engine.stats.queued }, { running: 1, queued: 1 });
  const started = Date.now();
  await t.rejects(engine.transcribe(pcm, GREEDY_CAPPED), { name: 'EngineError', code: 'queue_full' });
  t.ok(Date.now() - started < 1000, 'rejected without waiting for a worker');
  await Promise.all([running, queued]);
});

t.test('bad input is a clear error, never a crash', async (t) => {
  const engine = await Engine.open({ model: await testModelPath('micro'), workers: 1, threadsPerWorker: 1 });
  t.teardown(() => engine.close());
  await t.rejects(engine.transcribe(new Float32Array(0)), { code: 'invalid_audio' });
  await t.rejects(engine.transcribe(new Float64Array(10) as unknown as Float32Array), { code: 'invalid_audio' });
  await t.rejects(engine.transcribe(new Float32Array(16000), { language: 'xx' }), /language/);
  await t.rejects(engine.transcribe(new Float32Array(16000), { beamSize: 99, strategy: 'beam' }), /beamSize/);
  await t.rejects(engine.detectLanguage(new Float32Array(16000), { offsetMs: 5000 }), /beyond the end/);
  const addon = loadNativeAddon();
  t.throws(() => addon.transcribe({} as never, new Float32Array(10), {}), /loadModel/);
  t.throws(() => addon.transcribe(engine['anchor'], new Float32Array(10), {}, new Uint8Array(4) as never), /Int32Array/);
});

t.test('opening a bad model file fails clearly', async (t) => {
  await t.rejects(Engine.open({ model: '/nonexistent/model.bin' }), { code: 'model_not_found' });
});
