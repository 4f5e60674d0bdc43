// The diarizer reports where its time goes (native/speakers/diarizer.h DiarizationStageTimings): every
// stage in milliseconds, inside the call's total, the features' stages only when it computed them. The
// times themselves are measured by `npm run bench -- diarization`, never asserted here.
import { readFile } from 'node:fs/promises';

import t from 'tap';

import { Engine } from '../../src/engine/engine.js';
import { DIARIZATION_STAGES } from '../../src/engine/speaker-diarizer.js';
import { vadModelPath } from '../../src/models/vad-model-path.js';
import { conversation } from '../helpers/conversations.js';
import { testModelPath } from '../helpers/test-models.js';

let engine: Engine;
t.before(async () => {
  engine = await Engine.open({ model: await testModelPath('micro'), workers: 1, vadModel: vadModelPath(), vadWorkers: 1 });
});
t.teardown(() => engine.close());

t.test('each stage is timed, within the total; the features only when the diarizer computed them', async (t) => {
  const bytes = await readFile((await conversation({ voices: 2, turns: 8, seed: 1 })).path);
  const pcm = Float32Array.from(new Int16Array(bytes.buffer, bytes.byteOffset + 44, (bytes.length - 44) / 2), (s) => s / 32768);
  const regions = (await engine.detectSpeech(pcm)).segments;

  const fromPcm = await engine.diarize(pcm, regions);
  const stages = fromPcm.timings.stages;
  t.same(Object.keys(stages).sort(), [...DIARIZATION_STAGES].sort(), 'every stage, and no other');
  for (const stage of DIARIZATION_STAGES) t.ok(Number.isFinite(stages[stage]) && stages[stage] >= 0, `${stage}: ${stages[stage].toFixed(3)} ms`);
  // Cepstra and a pitch track over about 40 s of speech are never free; the clustering ran (two voices).
  t.ok(stages.cepstra > 0 && stages.pitch > 0 && stages.clustering > 0, 'the features and the clustering took time');
  const sum = DIARIZATION_STAGES.reduce((total, stage) => total + stages[stage], 0);
  t.ok(sum <= fromPcm.timings.totalMs + 0.5, `the stages (${sum.toFixed(2)} ms) fit in the call (${fromPcm.timings.totalMs.toFixed(2)} ms)`);

  const fromFeatures = await engine.diarize(await engine.speakerFeatures(pcm, regions), regions);
  t.same([fromFeatures.timings.stages.cepstra, fromFeatures.timings.stages.pitch], [0, 0], 'given features, the diarizer computed none');
  t.ok(fromFeatures.timings.stages.clustering > 0);
  t.same(fromFeatures.turns, fromPcm.turns, 'and answered the same turns');
});
