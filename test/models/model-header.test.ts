// The pre-flight check the engine runs before whisper.cpp sees a file: it must accept real layouts and
// turn every malformed file into a typed error instead of a crash.
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

import tap from 'tap';

import { ARCHITECTURES } from '../../src/models/make-test-model.js';
import { readModelHeader } from '../../src/models/model-header.js';
import { mulberry32 } from '../../src/models/seeded-random.js';
import { whisperTensors } from '../../src/models/whisper-layout.js';
import { caseFolder, expectModelFileError, withInt32 } from '../helpers/model-file-cases.js';
import { testModelPath } from '../helpers/test-models.js';

const { dir, fileWith } = await caseFolder(tap, 'svc-model-header-');
const micro = await readFile(await testModelPath('micro'));

/** Byte offset of hparam i (0 = n_vocab ... 10 = ftype). */
const hparamAt = (i: number) => 4 + 4 * i;

/** Offset of the first tensor header: after hparams, the 80x201 filterbank and the vocabulary. */
function firstTensorAt(bytes: Buffer): number {
  let at = 4 + 11 * 4 + 8 + 80 * 201 * 4;
  const count = bytes.readInt32LE(at);
  at += 4;
  for (let i = 0; i < count; i++) at += 4 + bytes.readUInt32LE(at);
  return at;
}

const rejects = (t: Pick<typeof tap, 'type' | 'equal' | 'match'>, path: string, code: string, message?: RegExp) =>
  expectModelFileError(t, readModelHeader, path, code, message);

tap.test('accepts generated models and reports their shape', async (t) => {
  const header = await readModelHeader(await testModelPath('micro'));
  t.match(header, {
    arch: 'micro',
    multilingual: true,
    nVocab: 51865,
    nAudioState: 64,
    nAudioLayer: 1,
    nTextLayer: 1,
    nMels: 80,
    ftype: 1,
    fileSize: micro.length,
    tensorCount: 50,
  });
  const tiny = await readModelHeader(await testModelPath('tiny'));
  t.match(tiny, { arch: 'tiny', nAudioState: 384, nAudioHead: 6, nAudioLayer: 4, nTextLayer: 4, weightType: 'f16', tensorCount: 167 });
});

tap.test('missing files and directories', async (t) => {
  await rejects(t, join(dir, 'no-such-model.bin'), 'model_not_found');
  const sub = join(dir, 'a-directory.bin');
  await mkdir(sub);
  await rejects(t, sub, 'model_not_found', /not a regular file/);
});

tap.test('empty file, random bytes, wrong magic', async (t) => {
  await rejects(t, await fileWith(new Uint8Array(0)), 'model_invalid', /empty/);
  const random = mulberry32(42);
  const noise = new Uint8Array(1 << 20).map(() => random() & 0xff);
  await rejects(t, await fileWith(noise), 'model_invalid', /bad magic/);
  const gguf = Buffer.from(micro);
  gguf.write('GGUF', 0, 'latin1');
  await rejects(t, await fileWith(gguf), 'model_invalid', /GGUF/);
});

tap.test('truncated files, wherever they end', async (t) => {
  await rejects(t, await fileWith(micro.subarray(0, 3)), 'model_invalid', /too small/);
  await rejects(t, await fileWith(micro.subarray(0, 20)), 'model_truncated', /hyperparameters/);
  await rejects(t, await fileWith(micro.subarray(0, 100_000)), 'model_truncated');
  await rejects(t, await fileWith(micro.subarray(0, micro.length >> 1)), 'model_truncated');
  await rejects(t, await fileWith(micro.subarray(0, micro.length - 1)), 'model_truncated');
  // Cut exactly between two tensors: only the declared sizes show that a tensor is missing.
  const specs = whisperTensors(ARCHITECTURES.micro);
  const last = specs[specs.length - 1];
  const lastBytes = 12 + 4 * last.ne.length + last.name.length + 4 * last.ne.reduce((a, b) => a * b);
  await rejects(t, await fileWith(micro.subarray(0, micro.length - lastBytes)), 'model_truncated', new RegExp(`need ${micro.length}$`));
});

tap.test('hyperparameters whisper.cpp would trust blindly', async (t) => {
  await rejects(t, await fileWith(withInt32(micro, hparamAt(10), 5)), 'model_invalid', /ftype/);
  await rejects(t, await fileWith(withInt32(micro, hparamAt(10), 4)), 'model_invalid', /ftype/); // Q4_1_SOME_F16 aborts in ggml
  await rejects(t, await fileWith(withInt32(micro, hparamAt(3), 3)), 'model_invalid', /n_audio_head/);
  await rejects(t, await fileWith(withInt32(micro, hparamAt(0), 60000)), 'model_invalid', /n_vocab/);
  await rejects(t, await fileWith(withInt32(micro, hparamAt(9), 81)), 'model_invalid', /n_mels/);
  await rejects(t, await fileWith(withInt32(micro, hparamAt(6), 128)), 'model_invalid', /n_text_state/);
  // q4_K stores rows in blocks of 256 values: a 64-wide model cannot be q4_K (ggml would assert).
  await rejects(t, await fileWith(withInt32(micro, hparamAt(10), 12)), 'model_invalid', /cannot store/);
});

tap.test('tensor headers that do not match the architecture', async (t) => {
  const at = firstTensorAt(micro);
  t.equal(micro.subarray(at + 12 + 8, at + 12 + 8 + 28).toString(), 'encoder.positional_embedding');
  await rejects(t, await fileWith(withInt32(micro, at + 8, 1)), 'model_invalid', /stored as f16, expected f32/);
  await rejects(t, await fileWith(withInt32(micro, at + 12, 63)), 'model_invalid', /shape/);
  await rejects(t, await fileWith(withInt32(micro, at, 7)), 'model_invalid', /malformed tensor header/);
  const renamed = Buffer.from(micro);
  renamed.write('X', at + 12 + 8, 'latin1');
  await rejects(t, await fileWith(renamed), 'model_invalid', /unexpected tensor/);
  await rejects(t, await fileWith(Buffer.concat([micro, Buffer.alloc(5)])), 'model_invalid', /after the last tensor/);
  await rejects(t, await fileWith(Buffer.concat([micro, Buffer.alloc(64)])), 'model_invalid');
});

tap.test('a vocabulary without the " " token', async (t) => {
  // Replace the single-byte token " " with "~" (leaving a duplicate, which whisper.cpp tolerates).
  const copy = Buffer.from(micro);
  let at = 4 + 11 * 4 + 8 + 80 * 201 * 4 + 4;
  for (let i = 0; i < 256; i++) {
    if (copy.readUInt32LE(at) === 1 && copy[at + 4] === 0x20) copy[at + 4] = 0x7e;
    at += 4 + copy.readUInt32LE(at);
  }
  await rejects(t, await fileWith(copy), 'model_invalid', /" " token/);
});
