// The engine's work totals (EngineStats.encoderRuns, decoderSteps; /metrics reports them): the sum of
// what each finished transcribe call counted in its timings, which the differential test holds to
// whisper-cli's own counts.
import t from 'tap';

import { decodeAudio } from '../../src/audio/index.js';
import { Engine } from '../../src/engine/engine.js';
import { speechWav } from '../helpers/audio-fixtures.js';
import { testModelPath } from '../helpers/test-models.js';

t.test('the engine sums the encoder runs and decoder steps of its transcribe calls', async (t) => {
  const engine = await Engine.open({ model: await testModelPath('micro'), workers: 2, threadsPerWorker: 1 });
  t.teardown(() => engine.close());
  t.same([engine.stats.encoderRuns, engine.stats.decoderSteps], [0, 0], 'nothing computed at open');
  const pcm = await decodeAudio(await speechWav(45), { maxSeconds: 60, timeoutMs: 60_000 });
  const greedy = { language: 'en', strategy: 'greedy', temperatureInc: 0 } as const;
  const calls = await Promise.all([engine.transcribe(pcm, greedy), engine.transcribe(pcm.subarray(0, 10 * 16_000), greedy)]);
  t.same(
    calls.map((c) => c.timings.encoderRuns),
    [2, 1],
    'two windows, then one',
  );
  t.ok(
    calls.every((c) => c.timings.decoderSteps >= c.timings.encoderRuns),
    'at least the prompt pass of each window decoded',
  );
  t.equal(engine.stats.encoderRuns, 3);
  t.equal(
    engine.stats.decoderSteps,
    calls.reduce((sum, c) => sum + c.timings.decoderSteps, 0),
  );
});
