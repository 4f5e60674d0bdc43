// svc-stt models [list] | download NAME | make-test
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { downloadModel } from '../models/download.js';
import { makeTestModel, ARCHITECTURES } from '../models/make-test-model.js';
import { loadManifest } from '../models/manifest.js';
import { modelsDir } from '../models/model-paths.js';
import { ModelFileError, readVadModelHeader } from '../models/vad-model-header.js';
import { VAD_MODEL_ENV, vadModelPath } from '../models/vad-model-path.js';
import { ProgressBar } from './progress-bar.js';
import { UsageError } from './usage-error.js';

export async function runModelsCommand(argv: string[]): Promise<void> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === 'list') return listModels();
  if (sub === 'download') return download(rest);
  if (sub === 'make-test') return makeTest(rest);
  throw new UsageError('usage: svc-stt models [list] | download NAME | make-test --arch A --seed N --out FILE');
}

async function listModels(): Promise<void> {
  const manifest = await loadManifest();
  for (const entry of manifest.models) {
    const size = entry.sizeBytes ? `${(entry.sizeBytes / 1e6).toFixed(0)} MB` : '? MB';
    const check = entry.sha256 ? 'sha256' : entry.sha1 ? 'sha1' : 'unverified';
    process.stdout.write(`${entry.name.padEnd(24)} ${size.padStart(8)}  ${check}\n`);
  }
  await listVadModel();
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
  if (!name) throw new UsageError('usage: svc-stt models download NAME [--dir DIR] [--no-verify]');
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
