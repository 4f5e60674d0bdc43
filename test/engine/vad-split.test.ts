// One VAD call shared among the VAD workers (src/engine/vad-split.ts): where the audio is cut, how the
// pieces join, and that the joined answer is the single call's answer where it matters — the speech.
import t from 'tap';

import { Engine } from '../../src/engine/engine.js';
import { joinPieces, MIN_PIECE_SECONDS, pieceStarts } from '../../src/engine/vad-split.js';
import { vadModelPath } from '../../src/models/vad-model-path.js';
import { speechWithSilences } from '../helpers/speech-with-silences.js';
import { testModelPath } from '../helpers/test-models.js';

const RATE = 16_000;
const FRAME = 512;

t.test('the cut goes to the quietest frame near the middle, on a frame boundary', async (t) => {
  const pcm = Float32Array.from({ length: 40 * RATE }, (_, i) => 0.3 * Math.sin(i / 7));
  const quietFrame = Math.floor((21 * RATE) / FRAME);
  pcm.fill(0, quietFrame * FRAME, (quietFrame + 1) * FRAME);
  t.same(pieceStarts(pcm, RATE, FRAME, 2), [0, quietFrame * FRAME]);
  t.same(pieceStarts(pcm, RATE, FRAME, 1), [0], 'one worker: one piece');
  t.same(pieceStarts(new Float32Array((2 * MIN_PIECE_SECONDS - 1) * RATE), RATE, FRAME, 2), [0], 'too short to share');
});

t.test('pieces join: probabilities in order, times shifted, speech across a cut made whole', async (t) => {
  const joined = joinPieces(
    [
      { probabilities: Float32Array.of(0.1, 0.9), segments: [{ start: 1, end: 20 }] },
      {
        probabilities: Float32Array.of(0.8),
        segments: [
          { start: 0, end: 3 },
          { start: 5, end: 6 },
        ],
      },
    ],
    [0, 20],
  );
  t.same(
    [...joined.probabilities].map((p) => Math.round(p * 10) / 10),
    [0.1, 0.9, 0.8],
  );
  t.same(joined.segments, [
    { start: 1, end: 23 },
    { start: 25, end: 26 },
  ]);
});

t.test('two workers find the speech one worker finds', async (t) => {
  const audio = await speechWithSilences({ sentences: [0, 1, 2, 3, 4], silences: [3, 6, 9, 5, 8, 4] });
  const model = await testModelPath('micro');
  const one = await Engine.open({ model, workers: 1, vadModel: vadModelPath(), vadWorkers: 1 });
  const two = await Engine.open({ model, workers: 1, vadModel: vadModelPath(), vadWorkers: 2 });
  t.teardown(() => Promise.all([one.close(), two.close()]));
  const single = await one.detectSpeech(audio.pcm);
  const before = two.stats.calls.detectSpeech;
  const shared = await two.detectSpeech(audio.pcm);
  t.equal(two.stats.calls.detectSpeech - before, 2, 'two pieces');
  t.equal(shared.probabilities.length, single.probabilities.length);
  t.equal(shared.segments.length, single.segments.length);
  shared.segments.forEach((s, i) => {
    t.ok(Math.abs(s.start - single.segments[i].start) < 0.05 && Math.abs(s.end - single.segments[i].end) < 0.05, `segment ${i} within 50 ms`);
  });
  const cutFrame = pieceStarts(audio.pcm, RATE, FRAME, 2)[1] / FRAME;
  t.same(shared.probabilities.subarray(0, cutFrame), single.probabilities.subarray(0, cutFrame), 'identical before the cut');
});
