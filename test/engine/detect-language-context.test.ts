// engine.detectLanguage's audioSeconds: the encoder runs over only the audio given (whisper.cpp's
// audio_ctx, set on the state through its public API). A context of the whole window must give
// exactly the full-window answer (the setting leaves nothing else behind on the state); a shorter
// one is a different computation.
import t from 'tap';

import { decodeAudio } from '../../src/audio/index.js';
import { Engine } from '../../src/engine/engine.js';
import { speechWav } from '../helpers/audio-fixtures.js';
import { testModelPath } from '../helpers/test-models.js';

t.test('audioSeconds shortens the encoded audio and nothing else', async (t) => {
  const engine = await Engine.open({ model: await testModelPath('micro', 1), workers: 1, threadsPerWorker: 1 });
  t.teardown(() => engine.close());
  const pcm = await decodeAudio(await speechWav(3), { maxSeconds: 10, timeoutMs: 30_000 });
  const full = await engine.detectLanguage(pcm);
  const wholeWindow = await engine.detectLanguage(pcm, { audioSeconds: 30 });
  t.same(wholeWindow.probabilities, full.probabilities, '30 s of context is the full window');
  const short = await engine.detectLanguage(pcm, { audioSeconds: 3 });
  t.not(short.probabilities.en, full.probabilities.en, '3 s of context is another computation');
  const again = await engine.detectLanguage(pcm, { audioSeconds: 3 });
  t.same(again.probabilities, short.probabilities, 'deterministic');
  // The full window after a short one: the short context did not stay with the model.
  t.same((await engine.detectLanguage(pcm)).probabilities, full.probabilities);
  await t.rejects(engine.detectLanguage(pcm, { audioSeconds: 0 }), RangeError);
});
