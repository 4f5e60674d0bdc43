// `svc-stt transcribe FILE --diarize` (the local runtime) and the library call under it,
// `transcribePcm(engine, pcm, {diarize: true})`: who spoke when on a generated 2-voice conversation,
// the words with their speakers, the dialogue text format, and the usage errors of the new flags; and
// a model file that is not there, which is refused with how to get it.
import { join, resolve } from 'node:path';

import t from 'tap';

import { decodeAudio } from '../../src/audio/index.js';
import { runTranscribeCommand } from '../../src/cli/transcribe-command.js';
import { UsageError } from '../../src/cli/usage-error.js';
import { Engine } from '../../src/engine/engine.js';
import { vadModelPath } from '../../src/models/vad-model-path.js';
import { transcribePcm } from '../../src/pipeline/transcribe-pcm.js';
import { speechWav } from '../helpers/audio-fixtures.js';
import { capturedStdout } from '../helpers/captured-stdout.js';
import { conversation } from '../helpers/conversations.js';
import { diarizationErrorRate } from '../helpers/diarization-error-rate.js';
import { testModelPath } from '../helpers/test-models.js';

const captured = (argv: string[]) => capturedStdout(() => runTranscribeCommand(argv));

t.test('transcribePcm with diarize: speakers, words with their speakers, speaker segments', async (t) => {
  const c = await conversation({ voices: 2, turns: 16, seed: 2 });
  const engine = await Engine.open({ model: await testModelPath('micro'), workers: 1, vadModel: vadModelPath() });
  t.teardown(() => engine.close());
  const pcm = await decodeAudio(c.path, { maxSeconds: 600, timeoutMs: 60_000 });
  const decoding = { maxTokens: 12, temperatureFallback: false };
  const plain = await transcribePcm(engine, pcm, { language: 'en', decoding });
  const outcome = await transcribePcm(engine, pcm, { language: 'en', decoding, diarize: true, maxSpeakers: 4 });
  t.same(outcome.speakers.speakers, [{ speaker: 'A' }, { speaker: 'B' }], 'two voices');
  t.ok(outcome.diarizationMs > 0);
  t.equal(outcome.wordTiming, true, 'diarize brings word timing');
  t.ok(outcome.speakers.words!.length > 0 && outcome.speakers.words!.every((w) => w.speaker === 'A' || w.speaker === 'B'));
  t.equal(outcome.text, plain.text, 'the same text with and without diarize');
  const score = diarizationErrorRate(c.turns, outcome.speakers.speakerSegments);
  t.ok(score.der <= 0.1, `DER ${score.der.toFixed(3)}`);
  const ceiling = await transcribePcm(engine, pcm, { language: 'en', decoding, diarize: true, maxSpeakers: 1 });
  t.same(ceiling.speakers.speakers, [{ speaker: 'A' }], 'max_speakers 1 labels one voice');
  t.equal(ceiling.speakers.timing.speaker_ceiling_action, 'unlabelled_review_required');
});

t.test('svc-stt transcribe --diarize: verbose_json with speakers and words, text as a dialogue', async (t) => {
  const c = await conversation({ voices: 2, turns: 16, seed: 2 });
  const model = await testModelPath('micro');
  const common = [c.path, '--model', model, '--max-tokens', '12', '--no-fallback', '--diarize'];
  const verbose = JSON.parse(await captured([...common, '--format', 'verbose_json']));
  t.same(verbose.speakers, [{ speaker: 'A' }, { speaker: 'B' }]);
  t.ok(
    verbose.segments.every((s: { speaker: string }) => ['A', 'B'].includes(s.speaker)),
    'every segment has its speaker',
  );
  t.ok(verbose.words.length > 0 && verbose.words.every((w: { speaker: string }) => ['A', 'B'].includes(w.speaker)));
  t.equal(verbose.speaker_timing.requested_max_speakers, 4);
  t.ok(verbose.speaker_segments.length >= 2);

  const text = await captured([...common, '--format', 'text']);
  const lines = text.trimEnd().split('\n');
  t.ok(lines.length >= 2 && lines.every((line) => /^[AB]: /.test(line)), 'one "SPEAKER: text" line per segment');

  const words = JSON.parse(await captured([c.path, '--model', model, '--max-tokens', '12', '--no-fallback', '--words', '--format', 'verbose_json']));
  t.ok(words.words.length > 0, '--words alone gives words');
  t.notOk('speakers' in words, 'and no speakers');
  t.notOk('speaker' in words.segments[0]);
});

t.test('usage errors of the speaker flags', async (t) => {
  const model = await testModelPath('micro');
  await t.rejects(runTranscribeCommand(['x.wav', '--model', model, '--max-speakers', '2']), new UsageError('--max-speakers needs --diarize'));
  await t.rejects(runTranscribeCommand(['x.wav', '--model', model, '--diarize', '--max-speakers', '5']), {
    message: /--max-speakers must be an integer from 1 to 4/,
  });
});

t.test('svc-stt transcribe --patterns: the report in verbose_json; a refused pattern before any audio is read', async (t) => {
  const path = await speechWav(4);
  const model = await testModelPath('micro');
  const verbose = JSON.parse(
    await captured([path, '--model', model, '--max-tokens', '12', '--no-fallback', '--patterns', '(?i)[a-z]+,\\d+', '--format', 'verbose_json']),
  );
  t.match(verbose.patterns, { schema: 'svc-patterns-v1', requested: 2, budget_exhausted: 0 });
  t.equal(verbose.patterns.matches, verbose.patterns.results[0].count + verbose.patterns.results[1].count);
  await t.rejects(runTranscribeCommand(['missing.wav', '--model', model, '--patterns', 'a+?']), { message: /pattern 1: lazy/ });
});

t.test('svc-stt transcribe --smart-format --redact: what the service does, in verbose_json and json; a bad policy before any audio', async (t) => {
  const path = await speechWav(4);
  const model = await testModelPath('micro');
  const flags = [path, '--model', model, '--max-tokens', '12', '--no-fallback', '--smart-format', '--redact', 'identifiers,health'];
  const verbose = JSON.parse(await captured([...flags, '--format', 'verbose_json']));
  t.ok(Array.isArray(verbose.redactions), 'where (seconds), never what');
  t.type(verbose.redaction_counts, 'object');
  const json = JSON.parse(await captured([...flags, '--format', 'json']));
  t.ok('redaction_counts' in json, 'json says it too');
  const plain = JSON.parse(await captured([path, '--model', model, '--max-tokens', '12', '--no-fallback', '--format', 'json']));
  t.notOk('redactions' in plain, 'not asked: not there');
  const refused = await runTranscribeCommand(['missing.wav', '--model', model, '--redact', 'identifiers,canary']).then(
    () => null,
    (error: Error) => error,
  );
  t.ok(refused instanceof UsageError, 'a usage error, before the missing file is read');
  t.match(refused?.message, /^--redact: policies are identifiers, health, all/);
  t.notOk(refused?.message.includes('canary'), 'the name sent is not echoed');
});

t.test('a model that is not there: the path, and how to get it, before any audio is decoded', async (t) => {
  const saved = { dir: process.env.SVC_MODELS_DIR, model: process.env.SVC_MODEL };
  process.env.SVC_MODELS_DIR = t.testdir();
  t.teardown(() => {
    for (const [name, value] of [
      ['SVC_MODELS_DIR', saved.dir],
      ['SVC_MODEL', saved.model],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });
  const expected = join(t.testdir(), 'ggml-tiny.bin');
  // missing.wav does not exist either: the model is checked first.
  await t.rejects(runTranscribeCommand(['missing.wav', '--model', 'tiny']), {
    constructor: UsageError,
    message:
      `--model: model 'tiny' is not downloaded (no file ${expected}); get it with: npx svc-stt models download tiny ` +
      `(\`npx svc-stt models list\` shows what is downloaded; SVC_MODELS_DIR sets where models are)`,
  });
  process.env.SVC_MODEL = 'base.en';
  await t.rejects(runTranscribeCommand(['missing.wav']), {
    constructor: UsageError,
    message: /^SVC_MODEL: model 'base\.en' is not downloaded .*svc-stt models download base\.en/,
  });
  await t.rejects(runTranscribeCommand(['missing.wav', '--model', 'tinyy']), {
    constructor: UsageError,
    message: /'tinyy' is no model name that can be downloaded; `npx svc-stt models list` shows the names/,
  });
  await t.rejects(runTranscribeCommand(['missing.wav', '--model', 'models/mine.bin']), {
    constructor: UsageError,
    message: `--model: no model file ${resolve('models/mine.bin')}`,
  });
});
