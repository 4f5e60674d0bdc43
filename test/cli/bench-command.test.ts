// `svc-stt bench`: the table then one JSON line (the last line, always; alone with --json), on given
// audio and on speech it makes itself with espeak-ng; the pool shapes it compares; its usage errors.
// Times are only checked to be positive: timed bounds belong to bench/, never to tests.
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import t from 'tap';

import { runBenchCommand } from '../../src/cli/bench-command.js';
import { benchPoolShapes } from '../../src/cli/bench-pool-shapes.js';
import { ESPEAK_MISSING_MESSAGE, syntheticSpeech } from '../../src/cli/synthetic-speech.js';
import { UsageError } from '../../src/cli/usage-error.js';
import { speechWav } from '../helpers/audio-fixtures.js';
import { capturedStdout } from '../helpers/captured-stdout.js';
import { testModelPath } from '../helpers/test-models.js';

const ROOT = resolve(fileURLToPath(import.meta.url), '..', '..', '..');

function cli(args: string[]) {
  // Without tap's NODE_OPTIONS (its process tracking), which only slows the child down.
  const { NODE_OPTIONS, SVC_MODEL, ...env } = process.env;
  const result = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli/run.ts'), ...args], { cwd: ROOT, env, encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const SHAPE_FIELDS = ['workers', 'threads', 'default', 'load_ms', 'wall_s', 'rtf', 'audio_s_per_wall_s', 'peak_rss_mib'];

t.test('bench on an audio file: what was measured, a table, then the JSON line last', async (t) => {
  const model = await testModelPath('micro');
  const audio = await speechWav(4);
  const result = cli(['bench', '--model', model, '--audio', audio, '--workers', '1', '--threads', '1', '--max-tokens', '4']);
  t.equal(result.code, 0, result.stderr);
  t.equal(result.stderr, '', 'no progress bar when stderr is not a terminal');
  const lines = result.stdout.trimEnd().split('\n');
  const summary = JSON.parse(lines.at(-1)!);
  t.match(summary, {
    bench: 'cli',
    model,
    model_arch: 'micro',
    model_weights: 'f16',
    audio: [audio],
    clip_seconds: [4],
    calls: 2,
    audio_seconds: 8,
    max_tokens: 4,
    decoding: 'greedy, no temperature fallback',
  });
  t.ok(summary.cores >= 1);
  t.same(summary.devices, ['CPU'], 'the compute devices (a CUDA build that finds a GPU names it first)');
  t.equal(summary.shapes.length, 1, 'the one shape asked for');
  const [shape] = summary.shapes;
  t.same(Object.keys(shape), SHAPE_FIELDS);
  t.match(shape, { workers: 1, threads: 1 });
  for (const field of ['load_ms', 'wall_s', 'rtf', 'audio_s_per_wall_s', 'peak_rss_mib']) t.ok(shape[field] > 0, `${field} ${shape[field]} > 0`);

  const header = lines.findIndex((line) => /workers x threads +load ms +wall s +real-time factor +audio s per wall s +peak RSS MiB/.test(line));
  t.ok(header > 0, 'a table');
  t.match(lines[header + 2], /^\s+(\* )?1 x 1 +\d+ +[\d.]+ +[\d.]+ +[\d.]+ +[\d.]+$/, 'a row for the shape');
  t.match(result.stdout, /at most 4 tokens per segment/, 'says that texts are capped');
  t.match(result.stdout, new RegExp(`audio +${audio.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(4\\.0 s\\)`));
});

t.test('bench without --audio speaks its own; --json prints the JSON line alone', async (t) => {
  const model = await testModelPath('micro');
  const out = await capturedStdout(() =>
    runBenchCommand(['--model', model, '--seconds', '3', '--workers', '1', '--max-tokens', '2', '--calls', '1', '--json']),
  );
  t.match(out, /^\{[^\n]*\}\n$/, 'one line');
  const summary = JSON.parse(out);
  t.match(summary, { audio: 'generated', clip_seconds: [3], calls: 1, audio_seconds: 3, max_tokens: 2 });
  t.equal(summary.shapes[0].workers, 1);
  t.ok(summary.shapes[0].threads >= 1, 'threads share out the cores --workers leaves');
  t.ok(summary.shapes[0].audio_s_per_wall_s > 0);
});

t.test('generated speech: the length asked for, not silence; without espeak-ng, how to get it', async (t) => {
  const pcm = await syntheticSpeech(2.5);
  t.equal(pcm.length, 40_000);
  t.ok(pcm.reduce((peak, x) => Math.max(peak, Math.abs(x)), 0) > 0.05, 'speech, not silence');

  const path = process.env.PATH;
  t.teardown(() => {
    process.env.PATH = path;
  });
  process.env.PATH = t.testdir();
  await t.rejects(syntheticSpeech(2), new UsageError(ESPEAK_MISSING_MESSAGE));
  t.match(ESPEAK_MISSING_MESSAGE, /install .*espeak-ng.* or pass --audio FILE/);
});

t.test('the shapes compared: both ends of the trade-off and the default, or the one asked for', async (t) => {
  const shape = (workers: number, threadsPerWorker: number, isDefault: boolean) => ({ workers, threadsPerWorker, isDefault });
  t.same(benchPoolShapes(2, {}), [shape(1, 2, false), shape(2, 1, true)]);
  t.same(benchPoolShapes(16, {}), [shape(1, 16, false), shape(16, 1, false), shape(8, 2, true)], 'past 8 cores the default is neither end');
  t.same(benchPoolShapes(1, {}), [shape(1, 1, true)], 'one core, one shape');
  t.same(benchPoolShapes(4, { workers: 2 }), [shape(2, 2, false)], '--workers alone: the cores left go to threads');
  t.same(benchPoolShapes(4, { threads: 4 }), [shape(1, 4, false)]);
  t.same(benchPoolShapes(2, { workers: 2, threads: 1 }), [shape(2, 1, true)]);
  t.same(
    benchPoolShapes(16, {}, true),
    [shape(1, 16, false), shape(2, 8, false), shape(4, 4, true), shape(8, 2, false)],
    'on a GPU: 1, 2, 4 and 8 concurrent calls, the default 4',
  );
  t.same(benchPoolShapes(16, { workers: 4 }, true), [shape(4, 4, true)]);
});

t.test('usage errors exit 2, before any audio is made or model loaded', async (t) => {
  const bad = cli(['bench', '--workers', '0']);
  t.equal(bad.code, 2);
  t.match(bad.stderr, /^svc-stt: --workers must be an integer from 1 to 256\n$/);
  const unknown = cli(['bench', '--worker', '2']);
  t.equal(unknown.code, 2, 'an unknown option is a usage error too');
  t.match(unknown.stderr, /Unknown option '--worker'/);

  const model = await testModelPath('micro');
  const usage = async (args: string[], message: RegExp) => t.rejects(runBenchCommand(['--model', model, ...args]), { constructor: UsageError, message });
  await usage(['--threads', '1.5'], /--threads must be an integer/);
  await usage(['--max-tokens', '0'], /--max-tokens must be an integer from 1 to 448/);
  await usage(['--calls', 'x'], /--calls must be an integer/);
  await usage(['--seconds', '0'], /--seconds must be a number from 1 to 3600/);
  await usage(['--audio', 'a.wav', '--seconds', '5'], /--seconds is the length of the generated speech/);
  await usage(['--audio', join(t.testdir(), 'missing.wav')], /--audio: no file .*missing\.wav/);
  await t.rejects(runBenchCommand(['--model', join(t.testdir(), 'nope.bin')]), { constructor: UsageError, message: /--model: no model file .*nope\.bin/ });
});
