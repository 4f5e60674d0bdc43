// bench word-alignment: what DTW word alignment (SVC_WORD_ALIGNMENT=dtw) costs a transcription with
// word timestamps, against token timestamps (the default), alternating runs on one file. DTW's cost
// is twofold: whisper.cpp computes it only without flash attention (the engine turns that off), and
// the DTW itself over the alignment heads' cross-attention. The third column separates the two: token
// timestamps with flash attention off.
//   npm run bench -- word-alignment [--rounds 5] [--threads 2] [--arch tiny] [--seconds 30] [--max-tokens 40]
import { decodeAudio } from '../src/audio/index.js';
import { Engine } from '../src/engine/engine.js';
import { vadModelPath } from '../src/models/vad-model-path.js';
import { transcribePcm } from '../src/pipeline/transcribe-pcm.js';
import { speechWav } from '../test/helpers/audio-fixtures.js';
import { testModelPath } from '../test/helpers/test-models.js';
import { flag, median, printResult, printTable, round } from './lib-report.js';

export async function run(args: string[]): Promise<void> {
  const rounds = Number(flag(args, 'rounds', '5'));
  const threads = Number(flag(args, 'threads', '2'));
  const arch = flag(args, 'arch', 'tiny') as 'tiny';
  const seconds = Number(flag(args, 'seconds', '30'));
  const maxTokens = Number(flag(args, 'max-tokens', '40'));
  const model = await testModelPath(arch);
  const pcm = await decodeAudio(await speechWav(seconds), { maxSeconds: 7200, timeoutMs: 120_000 });
  const common = { model, workers: 1, threadsPerWorker: threads, vadModel: vadModelPath() };
  const engines = {
    tokens: await Engine.open(common),
    dtw: await Engine.open({ ...common, wordAlignment: 'dtw' }),
    tokensNoFlash: await Engine.open({ ...common, load: { flashAttn: false } }),
  };
  const times: Record<keyof typeof engines, number[]> = { tokens: [], dtw: [], tokensNoFlash: [] };
  const decoding = { beamSize: 1, temperatureFallback: false, maxTokens };
  try {
    if (engines.dtw.wordAlignment !== 'dtw') throw new Error(`the ${arch} model has no alignment heads`);
    for (let i = 0; i < rounds; i++) {
      for (const name of Object.keys(engines) as Array<keyof typeof engines>) {
        const t0 = performance.now();
        await transcribePcm(engines[name], pcm, { language: 'en', wordTimestamps: true, decoding });
        times[name].push(performance.now() - t0);
      }
    }
  } finally {
    await Promise.all(Object.values(engines).map((e) => e.close()));
  }
  const ratio = median(times.dtw) / median(times.tokens);
  const flashShare = median(times.tokensNoFlash) / median(times.tokens);
  printTable(
    ['run', 'tokens ms', 'dtw ms', 'tokens, no flash attn ms'],
    times.tokens.map((x, i) => [i + 1, round(x, 0), round(times.dtw[i], 0), round(times.tokensNoFlash[i], 0)]),
  );
  console.log(`\n${arch} model, ${seconds} s of speech, ${threads} threads, greedy, no fallback, max tokens ${maxTokens || 'none'}, word timestamps on`);
  console.log(`median dtw / tokens: ${round(ratio)}; of which flash attention off: ${round(flashShare)}`);
  printResult('word-alignment', {
    ratio: round(ratio),
    no_flash_attn_ratio: round(flashShare),
    tokens_ms: round(median(times.tokens), 0),
    dtw_ms: round(median(times.dtw), 0),
    arch,
    seconds,
    threads,
    rounds,
  });
}
