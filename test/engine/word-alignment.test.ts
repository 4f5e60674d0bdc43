// Word alignment by DTW (src/engine/alignment-heads.ts, Engine `wordAlignment`): the preset chosen from
// a model header (the released shapes only), DTW times on the tokens of an engine opened with it
// (whisper.cpp computes none under flash attention, which the engine therefore turns off), none
// without it, words starting at their DTW times, and the setting and CLI flag refused where they
// would be ignored.
import t from 'tap';

import { decodeAudio } from '../../src/audio/index.js';
import { runTranscribeCommand } from '../../src/cli/transcribe-command.js';
import { loadConfig } from '../../src/config/load-config.js';
import { alignmentHeadsOf } from '../../src/engine/alignment-heads.js';
import { Engine } from '../../src/engine/engine.js';
import { readModelHeader } from '../../src/models/model-header.js';
import { wordsOfSegment } from '../../src/pipeline/words.js';
import { speechWav } from '../helpers/audio-fixtures.js';
import { testModelPath } from '../helpers/test-models.js';

t.test('the alignment-heads preset follows the model header', async (t) => {
  const shape = (arch: string, multilingual: boolean, nTextLayer: number, nMels = 80) =>
    alignmentHeadsOf({ arch: arch as never, multilingual, nTextLayer, nMels });
  t.equal(shape('tiny', true, 4), 'tiny');
  t.equal(shape('tiny', false, 4), 'tiny.en');
  t.equal(shape('base', true, 6), 'base');
  t.equal(shape('small', false, 12), 'small.en');
  t.equal(shape('medium', true, 24), 'medium');
  t.equal(shape('large', true, 32), 'large.v2', '80 mels: large-v2');
  t.equal(shape('large', true, 32, 128), 'large.v3');
  t.equal(shape('large', true, 4, 128), 'large.v3.turbo');
  t.equal(shape('large', true, 2, 128), 'none', 'a distilled decoder has no published heads');
  t.equal(shape('small', true, 4), 'none', 'a decoder of another depth');
  t.equal(shape('micro', true, 1), 'none');
  t.equal(shape('unknown', true, 4), 'none');
  t.equal(alignmentHeadsOf(await readModelHeader(await testModelPath('tiny'))), 'tiny', 'the generated tiny model');
  t.equal(alignmentHeadsOf(await readModelHeader(await testModelPath('micro'))), 'none', 'the generated micro model');
});

t.test('an engine opened with DTW times its tokens by DTW; without it, by timestamp tokens', async (t) => {
  const model = await testModelPath('tiny');
  const pcm = await decodeAudio(await speechWav(10), { maxSeconds: 60, timeoutMs: 60_000 });
  const options = { language: 'en', strategy: 'greedy', maxTokens: 24, temperatureInc: 0, tokenTimestamps: true } as const;
  const dtw = await Engine.open({ model, workers: 1, wordAlignment: 'dtw' });
  t.teardown(() => dtw.close());
  t.equal(dtw.wordAlignment, 'dtw');
  t.equal(dtw.model.dtw, 'tiny');
  const timed = await dtw.transcribe(pcm, options);
  const tokens = timed.segments.flatMap((s) => s.tokens).filter((x) => !x.special);
  t.ok(tokens.length > 0);
  t.ok(
    tokens.every((x) => x.dtw !== null && x.dtw >= 0 && x.dtw <= 10),
    'every text token has a DTW time inside the audio',
  );
  for (const segment of timed.segments) {
    for (const word of wordsOfSegment(segment)) {
      const first = segment.tokens[word.tokenFrom];
      t.ok(word.start >= Math.min(first.dtw!, segment.end) - 1e-9, "a word starts no earlier than its first token's DTW time");
    }
  }

  const plain = await Engine.open({ model, workers: 1 });
  t.teardown(() => plain.close());
  t.equal(plain.wordAlignment, 'tokens');
  const untimed = await plain.transcribe(pcm, options);
  t.ok(
    untimed.segments.flatMap((s) => s.tokens).every((x) => x.dtw === null),
    'no DTW times without it',
  );

  const micro = await Engine.open({ model: await testModelPath('micro'), workers: 1, wordAlignment: 'dtw' });
  t.teardown(() => micro.close());
  t.equal(micro.wordAlignment, 'tokens', 'a model without published heads keeps token timestamps');
});

t.test('SVC_WORD_ALIGNMENT and --dtw: honoured or refused', async (t) => {
  const model = await testModelPath('micro');
  t.equal(loadConfig({ SVC_MODEL: model }).wordAlignment, 'tokens');
  t.equal(loadConfig({ SVC_MODEL: model, SVC_WORD_ALIGNMENT: 'dtw' }).wordAlignment, 'dtw');
  t.throws(() => loadConfig({ SVC_MODEL: model, SVC_WORD_ALIGNMENT: 'fast' }), /SVC_WORD_ALIGNMENT/);
  await t.rejects(runTranscribeCommand(['x.wav', '--model', model, '--dtw']), { message: /--dtw times words: it needs --words or --diarize/ });
});
