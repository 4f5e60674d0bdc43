// The addon against whisper.cpp's own CLI, built from the same source with the same flags: same model,
// same PCM, greedy decoding without fallback. Tokens, their probabilities and times, segment times
// and text must be identical, and language detection must agree.
import t from 'tap';

import { decodeAudio } from '../../src/audio/index.js';
import { loadNativeAddon, type NativeModel } from '../../src/engine/native-addon.js';
import { jfkWav, speechWav } from '../helpers/audio-fixtures.js';
import { testModelPath } from '../helpers/test-models.js';
import { mergeLikeCli, runWhisperCli } from '../helpers/whisper-cli.js';

const addon = loadNativeAddon();
const THREADS = 2;

const cases: Array<{ name: string; arch: 'micro' | 'tiny'; audio: () => Promise<string>; windows: number }> = [
  { name: 'jfk.mp3 from the pinned source, micro model', arch: 'micro', audio: jfkWav, windows: 1 },
  { name: 'espeak-ng speech (20 s), micro model', arch: 'micro', audio: () => speechWav(20), windows: 1 },
  { name: 'espeak-ng speech (12 s), tiny model', arch: 'tiny', audio: () => speechWav(12), windows: 1 },
  { name: 'espeak-ng speech (45 s, two windows), micro model', arch: 'micro', audio: () => speechWav(45), windows: 2 },
];

for (const c of cases) {
  t.test(`transcribe matches whisper-cli: ${c.name}`, async (t) => {
    const modelPath = await testModelPath(c.arch);
    const wav = await c.audio();
    const pcm = await decodeAudio(wav, { maxSeconds: 600, timeoutMs: 60_000 });
    const model: NativeModel = await addon.loadModel(modelPath);
    t.teardown(() => model.release());

    const ours = await addon.transcribe(model, pcm, {
      threads: THREADS,
      language: 'en',
      strategy: 'greedy',
      temperatureInc: 0,
      tokenTimestamps: true,
    });
    const cli = await runWhisperCli({ model: modelPath, wav, threads: THREADS, language: 'en', timings: true });

    t.ok(cli.segments.length > 0, 'the oracle produced segments');
    // The work counted: an encoder run per window, and a decoder step per logits sampled, which is
    // whisper's single-token decoder runs plus each window's prompt pass (whisper prints at least 1).
    t.equal(ours.timings.encoderRuns, c.windows, 'an encoder run per window');
    t.equal(ours.timings.encoderRuns, cli.runs!.encode, 'encoder runs as whisper counts them');
    t.equal(Math.max(1, ours.timings.decoderSteps - ours.timings.encoderRuns), cli.runs!.decode, 'decoder steps as whisper counts them');
    t.equal(ours.segments.length, cli.segments.length, 'same number of segments');
    for (let i = 0; i < cli.segments.length; i++) {
      const a = ours.segments[i];
      const b = cli.segments[i];
      t.same([Math.round(a.t0 * 1000), Math.round(a.t1 * 1000)], [b.offsets.from, b.offsets.to], `segment ${i} times`);
      t.ok(Buffer.from(a.bytes).equals(b.text), `segment ${i} text bytes`);
      const merged = mergeLikeCli(a.tokens.map((tok) => ({ ...tok, t0: Math.round(tok.t0 * 100), t1: Math.round(tok.t1 * 100) })));
      t.same(
        merged.map((m) => m.id),
        b.tokens.map((x) => x.id),
        `segment ${i} token ids`,
      );
      t.ok(
        merged.every((m, j) => m.text.equals(b.tokens[j].text)),
        `segment ${i} token bytes`,
      );
      t.same(
        merged.map((m) => Number(m.p.toPrecision(6))),
        b.tokens.map((x) => x.p),
        `segment ${i} token probabilities`,
      );
      t.same(
        merged.map((m) => [m.t0 * 10, m.t1 * 10]),
        b.tokens.map((x) => [x.offsets?.from, x.offsets?.to]),
        `segment ${i} token times`,
      );
    }
  });
}

t.test('detectLanguage matches whisper-cli -l auto', async (t) => {
  const modelPath = await testModelPath('tiny');
  const wav = await speechWav(12);
  const pcm = await decodeAudio(wav, { maxSeconds: 600, timeoutMs: 60_000 });
  const model = await addon.loadModel(modelPath);
  t.teardown(() => model.release());
  const ours = await addon.detectLanguage(model, pcm, { threads: THREADS });
  // -d 10: the CLI stops after 10 ms of decoding; the detection pass runs first regardless.
  const cli = await runWhisperCli({ model: modelPath, wav, threads: THREADS, language: 'auto', extraArgs: ['-d', '10'] });
  t.ok(cli.detected, 'the CLI reported a detected language');
  t.equal(ours.language, cli.detected!.language);
  t.equal(Number(ours.probabilities[ours.language].toFixed(6)), cli.detected!.p);
  const total = Object.values(ours.probabilities).reduce((a, b) => a + b, 0);
  t.ok(Math.abs(total - 1) < 1e-3, 'probabilities over all languages sum to 1');

  const viaTranscribe = await addon.transcribe(model, pcm, { threads: THREADS, language: 'auto', maxTokens: 4, temperatureInc: 0 });
  t.equal(viaTranscribe.language, cli.detected!.language, "transcribe with language 'auto' detects the same language");
  t.equal(Number(viaTranscribe.languageProbability!.toFixed(6)), cli.detected!.p);
});
