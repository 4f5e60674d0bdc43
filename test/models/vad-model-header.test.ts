// The check the service runs before whisper.cpp loads a VAD model: real files pass; a missing, cut or
// foreign file becomes a typed error that says what is wrong, never a crash or a silently empty model.
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

import tap from 'tap';

import { mulberry32 } from '../../src/models/seeded-random.js';
import { readVadModelHeader } from '../../src/models/vad-model-header.js';
import { caseFolder, expectModelFileError, withInt32 } from '../helpers/model-file-cases.js';
import { SILERO_ORACLES_MISSING, sileroOracles, VAD_MODEL_UNDER_TEST } from '../helpers/silero-oracles.js';

const { dir, fileWith } = await caseFolder(tap, 'svc-vad-header-');
// whisper.cpp's official v6 file where the oracles are, else the install's conversion (the same layout).
const official = await readFile(VAD_MODEL_UNDER_TEST.path);
const officialHeader = await readVadModelHeader(VAD_MODEL_UNDER_TEST.path);

const rejects = (t: Pick<typeof tap, 'type' | 'equal' | 'match'>, path: string, code: string, message?: RegExp) =>
  expectModelFileError(t, readVadModelHeader, path, code, message);

/** Byte offset of the int32 after the version: window size, then context size, encoder layers, ... */
const HPARAMS_AT = 8 + 'silero-16k'.length + 3 * 4;

tap.test('accepts the official files and tells where each tensor lies', async (t) => {
  t.match(officialHeader, {
    modelType: 'silero-16k',
    version: VAD_MODEL_UNDER_TEST.version,
    windowSamples: 512,
    contextSamples: 64,
    fileSize: official.length,
  });
  t.equal(officialHeader.tensors.length, 15);
  t.match(officialHeader.tensors[0], { name: '_model.encoder.0.reparam_conv.weight', ne: [3, 129, 128], type: 'f16', bytes: 3 * 129 * 128 * 2 });
  t.match(officialHeader.tensors.at(-1), { name: '_model.stft.forward_basis_buffer', ne: [256, 1, 258], type: 'f16' });
  const last = officialHeader.tensors.at(-1)!;
  t.equal(last.offset + last.bytes, official.length, 'the last tensor ends the file');
  if (SILERO_ORACLES_MISSING) t.comment(SILERO_ORACLES_MISSING);
  else t.match(await readVadModelHeader(sileroOracles.officialGgmlV5()), { version: '5.1.2' });
});

tap.test('missing files and directories', async (t) => {
  await rejects(t, join(dir, 'no-such-model.bin'), 'model_not_found');
  await rejects(t, join(dir, 'no-such-dir', 'model.bin'), 'model_not_found');
  const sub = join(dir, 'a-directory');
  await mkdir(sub);
  await rejects(t, sub, 'model_not_found', /not a regular file/);
});

tap.test('truncated files', async (t) => {
  const second = officialHeader.tensors[1];
  // Cut inside the last tensor's data: whisper.cpp would load the rest as garbage weights.
  await rejects(t, await fileWith(official.subarray(0, official.length - 1)), 'model_truncated', /stft\.forward_basis_buffer/);
  // Cut exactly after a tensor: whisper.cpp would refuse only because not all tensors were loaded.
  await rejects(t, await fileWith(official.subarray(0, second.offset + second.bytes)), 'model_truncated', /after 2 of 15 tensors/);
  // Cut right after the hyperparameters: whisper.cpp would accept it as an "empty model for testing".
  await rejects(t, await fileWith(official.subarray(0, officialHeader.tensors[0].offset - 60)), 'model_truncated', /after 0 of 15 tensors/);
  await rejects(t, await fileWith(official.subarray(0, 30)), 'model_truncated', /the version|hyperparameters/);
});

tap.test('random bytes and foreign files', async (t) => {
  const random = mulberry32(7);
  const noise = Buffer.from(Array.from({ length: official.length }, () => Math.floor(random() * 256)));
  await rejects(t, await fileWith(noise), 'model_invalid', /bad magic/);
  // The right magic followed by noise.
  await rejects(t, await fileWith(Buffer.concat([official.subarray(0, 4), noise])), 'model_invalid');
  await rejects(t, await fileWith(Buffer.alloc(0)), 'model_invalid', /empty/);
  await rejects(t, await fileWith(Buffer.from('gg')), 'model_invalid', /too small/);
  // A whisper speech-recognition model: its n_vocab sits where a VAD file has its type's length.
  await rejects(t, await fileWith(withInt32(official, 4, 51865)), 'model_invalid', /speech-recognition model, not a VAD model/);
  const otherType = Buffer.from(official);
  otherType.write('silero-08k', 8);
  await rejects(t, await fileWith(otherType), 'model_invalid', /model type 'silero-08k'/);
});

tap.test('a layout whisper.cpp does not build', async (t) => {
  await rejects(t, await fileWith(withInt32(official, HPARAMS_AT + 2 * 4, 3)), 'model_invalid', /encoder layers is 3, expected 4/);
  await rejects(t, await fileWith(withInt32(official, HPARAMS_AT, 256)), 'model_invalid', /window size \(samples\) is 256/);
  const first = officialHeader.tensors[0];
  // A tensor header is n_dims, name length, type, the dims, then the name, just before the data.
  const firstHeaderAt = first.offset - first.name.length - 4 * first.ne.length - 12;
  await rejects(t, await fileWith(withInt32(official, firstHeaderAt + 8, 0)), 'model_invalid', /stored as f32, expected f16/);
  await rejects(t, await fileWith(withInt32(official, firstHeaderAt + 12, 5)), 'model_invalid', /has shape \[5,129,128\]/);
  const renamed = Buffer.from(official);
  renamed.write('X', firstHeaderAt + 12 + 4 * first.ne.length);
  await rejects(t, await fileWith(renamed), 'model_invalid', /unexpected tensor 'X/);
  await rejects(t, await fileWith(Buffer.concat([official, Buffer.alloc(5)])), 'model_invalid', /5 unexpected bytes/);
  const duplicated = official.subarray(firstHeaderAt, first.offset + first.bytes);
  await rejects(t, await fileWith(Buffer.concat([official, duplicated])), 'model_invalid', /appears twice/);
});
