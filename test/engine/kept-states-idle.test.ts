// An engine frees its model's kept decoding states after keptStatesIdleMs without a whisper call
// (src/engine/kept-states.ts), and keeps at most as many as calls can run at once.
import t from 'tap';

import { decodeAudio } from '../../src/audio/index.js';
import { Engine } from '../../src/engine/engine.js';
import { speechWav } from '../helpers/audio-fixtures.js';
import { testModelPath } from '../helpers/test-models.js';

// Greedy with no fallback: a call that samples never gives its state back (kept-states.test.ts).
const GREEDY = { language: 'en', strategy: 'greedy', temperatureInc: 0, maxTokens: 8 } as const;

t.test('the kept states are freed once the engine has been idle for keptStatesIdleMs, and made again by the next call', async (t) => {
  // A seed of its own: no other holder in this process shares the model's pool.
  const engine = await Engine.open({ model: await testModelPath('micro', 7), workers: 1, threadsPerWorker: 1, urgentWorkers: 1, keptStatesIdleMs: 400 });
  t.teardown(() => engine.close());
  t.equal(engine.model.stateLimit, 2, 'as many as calls can run at once: one worker and one urgent');
  const pcm = await decodeAudio(await speechWav(3), { maxSeconds: 60, timeoutMs: 60_000 });
  const idleAfter = async () => {
    const deadline = Date.now() + 20_000;
    while (engine.model.idleStates > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    return engine.model.idleStates;
  };
  await engine.transcribe(pcm, GREEDY);
  t.equal(engine.model.idleStates, 1, 'the call kept its state');
  t.equal(await idleAfter(), 0, 'freed once the engine was idle');
  await engine.transcribe(pcm, GREEDY);
  t.equal(engine.model.idleStates, 1, 'the next call keeps one again');
  t.equal(await idleAfter(), 0, 'and it is freed again');
});

t.test('keptStatesIdleMs is checked', async (t) => {
  await t.rejects(Engine.open({ model: await testModelPath('micro'), keptStatesIdleMs: -1 }), RangeError);
});
