// Generates whisper.cpp model files with the real architectures and seeded random weights. They load
// and run through exactly the code real weights do, so speed and memory are real while the words are
// not: the models for tests and benchmarks on machines that cannot reach a model hub.
import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { endianness } from 'node:os';
import { dirname } from 'node:path';

import { ChunkedFileWriter } from './chunked-file-writer.js';
import { melFilterbank } from './mel-filterbank.js';
import { fillNormalFloat32, mulberry32, NormalFloat16Table, streamSeed } from './seeded-random.js';
import { testVocabulary } from './test-vocabulary.js';
import {
  elementCount,
  GGML_FILE_MAGIC,
  HPARAM_FIELDS,
  MEL_FFT_BINS,
  storedTextTokenCount,
  type TensorSpec,
  tensorType,
  type WhisperHparams,
  whisperTensors,
} from './whisper-layout.js';

export type TestArchitecture = 'micro' | 'tiny' | 'base' | 'small';

const shared = { nVocab: 51865, nAudioCtx: 1500, nTextCtx: 448, nMels: 80, ftype: 1 } as const;

/** OpenAI's model dimensions for tiny, base and small (multilingual), and a one-layer micro for unit tests. */
export const ARCHITECTURES: Readonly<Record<TestArchitecture, Readonly<WhisperHparams>>> = {
  // One head of width 64: the same head size as every real model, so attention runs real shapes.
  micro: { ...shared, nAudioState: 64, nAudioHead: 1, nAudioLayer: 1, nTextState: 64, nTextHead: 1, nTextLayer: 1 },
  tiny: { ...shared, nAudioState: 384, nAudioHead: 6, nAudioLayer: 4, nTextState: 384, nTextHead: 6, nTextLayer: 4 },
  base: { ...shared, nAudioState: 512, nAudioHead: 8, nAudioLayer: 6, nTextState: 512, nTextHead: 8, nTextLayer: 6 },
  small: { ...shared, nAudioState: 768, nAudioHead: 12, nAudioLayer: 12, nTextState: 768, nTextHead: 12, nTextLayer: 12 },
};

export interface MakeTestModelOptions {
  arch: TestArchitecture;
  /** 0 to 2^32 - 1; the same seed and arch give a byte-identical file. */
  seed: number;
  /** Output path; written to a temporary file beside it and renamed into place when complete. */
  out: string;
}

/** GPT-2-style initialisation scale; layer norms keep activations bounded whatever the width. */
const WEIGHT_STD = 0.02;
const SLICE_ELEMENTS = 1 << 20;

export async function makeTestModel(options: MakeTestModelOptions): Promise<void> {
  const hparams = ARCHITECTURES[options.arch];
  if (!hparams) throw new RangeError(`unknown test architecture '${options.arch}'`);
  if (!Number.isInteger(options.seed) || options.seed < 0 || options.seed > 0xffff_ffff) {
    throw new RangeError('seed must be an integer from 0 to 4294967295');
  }
  // Typed arrays are written as they sit in memory, and the format is little-endian.
  if (endianness() !== 'LE') throw new Error('generating test models needs a little-endian machine');

  await mkdir(dirname(options.out), { recursive: true });
  const temporary = `${options.out}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  const handle = await open(temporary, 'wx');
  try {
    const writer = new ChunkedFileWriter(handle);
    await writeHeader(writer, hparams);
    const table = new NormalFloat16Table(WEIGHT_STD);
    for (const spec of whisperTensors(hparams)) {
      await writeTensor(writer, spec, hparams, options.seed, table);
    }
    await writer.finish();
    await handle.close();
    // Atomic: readers (and a concurrent generator of the same file) see no file or a whole one.
    await rename(temporary, options.out);
  } catch (error) {
    await handle.close().catch(() => {});
    await rm(temporary, { force: true });
    throw error;
  }
}

async function writeHeader(writer: ChunkedFileWriter, h: WhisperHparams): Promise<void> {
  await writer.int32(GGML_FILE_MAGIC | 0, ...HPARAM_FIELDS.map((field) => h[field]));
  await writer.int32(h.nMels, MEL_FFT_BINS);
  await writer.write(asBytes(melFilterbank(h.nMels)));
  const tokens = testVocabulary(storedTextTokenCount(h.nVocab));
  await writer.int32(tokens.length);
  const lengths = tokens.map((token) => {
    const length = Buffer.allocUnsafe(4);
    length.writeUInt32LE(token.length);
    return length;
  });
  await writer.write(Buffer.concat(tokens.flatMap((token, i) => [lengths[i], token])));
}

async function writeTensor(writer: ChunkedFileWriter, spec: TensorSpec, h: WhisperHparams, seed: number, table: NormalFloat16Table): Promise<void> {
  const type = tensorType(spec.role, h.ftype)!;
  const name = Buffer.from(spec.name);
  await writer.int32(spec.ne.length, name.length, type.id, ...spec.ne);
  await writer.write(name);

  const count = elementCount(spec.ne);
  const random = mulberry32(streamSeed(seed, spec.name));
  if (type.name === 'f16') {
    const slice = new Uint16Array(Math.min(count, SLICE_ELEMENTS));
    for (let done = 0; done < count; done += slice.length) {
      const n = Math.min(slice.length, count - done);
      table.fill(slice, random, n);
      await writer.write(asBytes(slice.subarray(0, n)));
    }
    return;
  }
  await writer.write(asBytes(float32Values(spec, random)));
}

/** The f32 tensors: all small (at most n_ctx x n_state), so each is built whole. */
function float32Values(spec: TensorSpec, random: () => number): Float32Array {
  const values = new Float32Array(elementCount(spec.ne));
  if (spec.name === 'encoder.positional_embedding') return sinusoids(spec.ne[1], spec.ne[0]);
  if (spec.name === 'decoder.positional_embedding') fillNormalFloat32(values, random, WEIGHT_STD);
  else if (spec.name.endsWith('ln.weight') || spec.name.endsWith('ln_post.weight')) values.fill(1);
  // Everything else is a bias: zero.
  return values;
}

/** Whisper's fixed encoder position encoding: sin then cos over geometric timescales 1..10000. */
function sinusoids(length: number, channels: number): Float32Array {
  const half = channels / 2;
  const logIncrement = Math.log(10000) / (half - 1);
  const values = new Float32Array(length * channels);
  for (let t = 0; t < length; t++) {
    for (let i = 0; i < half; i++) {
      const angle = t * Math.exp(-logIncrement * i);
      values[t * channels + i] = Math.sin(angle);
      values[t * channels + half + i] = Math.cos(angle);
    }
  }
  return values;
}

function asBytes(view: ArrayBufferView): Uint8Array {
  return new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
}
