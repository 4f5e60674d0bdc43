// svc-stt bench — how fast this machine transcribes with a given model: for each pool shape, the model's
// load time, the real-time factor of one recording, the pool's throughput and the peak memory. A table
// for people, then one JSON line for scripts (the last line, always; alone with --json). The developers'
// suite (`npm run bench`, bench/) measures the project's bars and is not shipped; this is for operators.
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';

import { loadNativeAddon } from '../engine/native-addon.js';
import { readModelHeader } from '../models/model-header.js';
import { benchClips } from './bench-audio.js';
import { type BenchPoolShape, benchPoolShapes } from './bench-pool-shapes.js';
import { benchSummary, humanBenchReport } from './bench-report.js';
import { existingModelFile, modelArgument } from './model-file-argument.js';
import { boundedNumber, optionalInteger } from './numeric-options.js';
import { measurePoolShape, type PoolShapeThroughput } from './pool-shape-throughput.js';
import { ProgressBar } from './progress-bar.js';
import { UsageError } from './usage-error.js';

export const BENCH_USAGE =
  'usage: npx svc-stt bench [--model PATH|NAME] [--audio FILE ...] [--seconds N] [--workers N] [--threads N] [--calls N] [--max-tokens N] [--json]';

/** Half a minute is one whisper window: every call encodes a full window, as most real calls do. */
const DEFAULT_GENERATED_SECONDS = 30;
/** Enough to time decoding too; a cap at all because random-weight test models never stop by themselves. */
const DEFAULT_MAX_TOKENS = 32;
/** whisper's text context: no segment decodes more tokens than this. */
const MAX_TOKENS_LIMIT = 448;

export async function runBenchCommand(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    // Files may follow --audio without repeating it: `--audio a.wav b.wav`.
    allowPositionals: true,
    options: {
      model: { type: 'string' },
      audio: { type: 'string', multiple: true },
      seconds: { type: 'string' },
      workers: { type: 'string' },
      threads: { type: 'string' },
      calls: { type: 'string' },
      'max-tokens': { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const files = [...(values.audio ?? []), ...positionals];
  if (values.seconds !== undefined && files.length > 0) throw new UsageError('--seconds is the length of the generated speech: with --audio the files set it');
  const seconds = values.seconds === undefined ? DEFAULT_GENERATED_SECONDS : boundedNumber(values.seconds, '--seconds', 1, 3600, false);
  const workers = optionalInteger(values.workers, '--workers', 1, 256);
  const threads = optionalInteger(values.threads, '--threads', 1, 256);
  const maxTokens = optionalInteger(values['max-tokens'], '--max-tokens', 1, MAX_TOKENS_LIMIT) ?? DEFAULT_MAX_TOKENS;
  const askedCalls = optionalInteger(values.calls, '--calls', 1, 10_000);
  const modelArg = modelArgument(values.model);
  const model = await existingModelFile(modelArg.value, modelArg.from);
  // A damaged or foreign file fails here, in one line, before any audio is made or decoded.
  const header = await readModelHeader(model);

  const cores = availableParallelism();
  const system = loadNativeAddon().systemInfo();
  const shapes = benchPoolShapes(cores, { workers, threads }, system.gpu);
  const clips = await benchClips(files, seconds);
  // Two rounds per worker of the widest shape by default: the batch keeps every worker busy, and each
  // shape gets the same calls, so their figures compare.
  const calls = askedCalls ?? Math.max(clips.length, 2 * Math.max(...shapes.map((s) => s.workers)));
  const batch = Array.from({ length: calls }, (_, i) => clips[i % clips.length].pcm);

  const results = await measureShapes(model, shapes, batch, maxTokens);
  const summary = benchSummary({ model, header, files, clips, calls, maxTokens, cores, devices: system.devices }, results);
  if (!values.json) process.stdout.write(`${humanBenchReport(summary, clips)}\n`);
  process.stdout.write(`${JSON.stringify(summary)}\n`);
}

async function measureShapes(model: string, shapes: BenchPoolShape[], batch: Float32Array[], maxTokens: number) {
  const bar = new ProgressBar('bench');
  const total = shapes.length * batch.length;
  let finished = 0;
  const results: Array<{ shape: BenchPoolShape; result: PoolShapeThroughput }> = [];
  try {
    for (const shape of shapes) {
      const name = `${shape.workers} x ${shape.threadsPerWorker}`;
      let done = 0;
      bar.update(finished / total, `${name}: loading the model`.padEnd(32));
      const result = await measurePoolShape({
        model,
        shape,
        batch,
        maxTokens,
        onLoaded: () => bar.update(finished / total, `${name}: warming up`.padEnd(32)),
        onCallDone: () => bar.update(++finished / total, `${name}: ${++done}/${batch.length} calls`.padEnd(32)),
      });
      results.push({ shape, result });
    }
  } finally {
    bar.done();
  }
  return results;
}
