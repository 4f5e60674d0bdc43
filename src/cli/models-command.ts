// svc-stt models [list] | download NAME | make-test
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

import { downloadModel } from '../models/download.js';
import { ARCHITECTURES, makeTestModel } from '../models/make-test-model.js';
import { loadManifest } from '../models/manifest.js';
import { modelsDir } from '../models/model-paths.js';
import { ModelFileError, readVadModelHeader } from '../models/vad-model-header.js';
import { VAD_MODEL_ENV, vadModelPath } from '../models/vad-model-path.js';
import { describeModelFile, megabytes, type ModelDirectoryFile, modelDirectoryFiles } from './model-directory.js';
import { ProgressBar } from './progress-bar.js';
import { dispatch, type Subcommands } from './subcommands.js';
import { UsageError } from './usage-error.js';

export async function runModelsCommand(argv: string[]): Promise<void> {
  // Bare `svc-stt models` lists them.
  return dispatch(
    MODELS_SUBCOMMANDS,
    argv.length === 0 ? ['list'] : argv,
    process.stdout,
    'usage: npx svc-stt models [list] | download NAME | make-test --arch A --seed N --out FILE',
  );
}

export const MODELS_SUBCOMMANDS: Subcommands = { list: () => listModels(), download: (argv) => download(argv), 'make-test': (argv) => makeTest(argv) };

/**
 * The manifest's models, each marked present when its file is in the models directory, then the other
 * model files there (generated test models, files copied in by hand) and the VAD model.
 */
async function listModels(): Promise<void> {
  const manifest = await loadManifest();
  const dir = modelsDir();
  const files = await modelDirectoryFiles(dir);
  const byName = new Map(files.map((file) => [file.name, file]));
  const source = process.env.SVC_MODELS_DIR ? 'SVC_MODELS_DIR' : 'default; SVC_MODELS_DIR sets another';
  process.stdout.write(`Models directory (${source})\n  ${dir}\n\n`);
  process.stdout.write(`${'NAME'.padEnd(24)} ${'SIZE'.padStart(8)}  ${'CHECK'.padEnd(10)}  FILE\n`);
  for (const entry of manifest.models) {
    const size = entry.sizeBytes ? megabytes(entry.sizeBytes) : '? MB';
    const check = entry.sha256 ? 'sha256' : entry.sha1 ? 'sha1' : 'unverified';
    const file = byName.get(entry.file);
    byName.delete(entry.file);
    process.stdout.write(`${entry.name.padEnd(24)} ${size.padStart(8)}  ${check.padEnd(10)}  ${presence(entry.sizeBytes, file)}\n`);
  }
  process.stdout.write('get one: npx svc-stt models download NAME; use one: --model NAME or SVC_MODEL=NAME\n');
  if (byName.size > 0) {
    process.stdout.write('\nOther model files there\n');
    for (const file of byName.values()) {
      process.stdout.write(`  ${file.name.padEnd(32)} ${megabytes(file.sizeBytes).padStart(8)}  ${await describeModelFile(file.path)}\n`);
    }
  }
  await listVadModel();
}

/** Whether a manifest model's file is there; a size other than the published one is worth a warning. */
function presence(publishedBytes: number | undefined, file: ModelDirectoryFile | undefined): string {
  if (!file) return '-';
  if (publishedBytes !== undefined && file.sizeBytes !== publishedBytes) return `present, ${megabytes(file.sizeBytes)}: not the published file`;
  return 'present';
}

/** The speech detection model the service would use: where, whether it is there, which release. */
async function listVadModel(): Promise<void> {
  const path = vadModelPath();
  const source = process.env[VAD_MODEL_ENV] ? VAD_MODEL_ENV : 'installed default';
  let state: string;
  try {
    const header = await readVadModelHeader(path);
    state = `present, Silero VAD ${header.version}`;
  } catch (error) {
    if (!(error instanceof ModelFileError)) throw error;
    state = error.code === 'model_not_found' ? 'missing (made at install: `npm rebuild svc-stt`)' : `unusable: ${error.message}`;
  }
  process.stdout.write(`\nVAD model (${source})\n  ${path}\n  ${state}\n`);
}

async function download(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { dir: { type: 'string' }, 'no-verify': { type: 'boolean', default: false } },
  });
  const name = positionals[0];
  if (!name) throw new UsageError('usage: npx svc-stt models download NAME [--dir DIR] [--no-verify]');
  const dir = resolve(values.dir ?? modelsDir());
  const bar = new ProgressBar(`ggml-${name}.bin`);
  const path = await downloadModel(name, {
    dir,
    verify: !values['no-verify'],
    onProgress: ({ receivedBytes, totalBytes }) => {
      if (totalBytes) bar.update(receivedBytes / totalBytes, `${(receivedBytes / 1e6).toFixed(1)}/${(totalBytes / 1e6).toFixed(1)} MB`);
    },
  });
  bar.done();
  process.stdout.write(`${path}\n`);
}

async function makeTest(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { arch: { type: 'string' }, seed: { type: 'string', default: '1' }, out: { type: 'string' } },
  });
  const arch = values.arch as keyof typeof ARCHITECTURES | undefined;
  if (!arch || !(arch in ARCHITECTURES)) throw new UsageError(`--arch must be one of ${Object.keys(ARCHITECTURES).join(', ')}`);
  const seed = Number(values.seed);
  if (!Number.isInteger(seed) || seed < 0) throw new UsageError('--seed must be a non-negative integer');
  const out = resolve(values.out ?? join(modelsDir(), `ggml-test-${arch}-seed${seed}.bin`));
  await makeTestModel({ arch, seed, out });
  process.stdout.write(`${out}\n`);
}
