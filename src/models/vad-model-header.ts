// Validates a whisper.cpp Silero VAD model file before whisper.cpp loads it. whisper_vad_init_with_params
// trusts the file: it sizes its encoder arrays from the file but always builds four layers, reads
// tensor data past the end of a cut file without noticing, and accepts a file with no tensors at all
// as an "empty model for testing". So this reads the header and every tensor header, checks each
// against the layout whisper.cpp builds, and tells where each tensor's data lies.
import { type FileCursor } from './file-cursor.js';
import { ggmlType } from './ggml-types.js';
import { type ModelFileFail, readModelFile } from './read-model-file.js';
import { SILERO_VAD_HPARAMS, SILERO_VAD_MODEL_TYPE, SILERO_VAD_TENSORS, vadTensorBytes, type VadTensorSpec } from './silero-vad-layout.js';
import { GGML_FILE_MAGIC } from './whisper-layout.js';

export { ModelFileError, type ModelFileErrorCode } from './model-file-error.js';

export interface VadTensorEntry {
  readonly name: string;
  /** Dimensions as stored, innermost first. */
  readonly ne: readonly number[];
  /** ggml type name: 'f32' or 'f16'. */
  readonly type: string;
  /** Byte offset of the tensor's data in the file. */
  readonly offset: number;
  readonly bytes: number;
}

export interface VadModelHeader {
  /** 'silero-16k'. */
  modelType: string;
  /** Silero's release, e.g. '6.2.1'. */
  version: string;
  windowSamples: number;
  contextSamples: number;
  /** In file order. */
  tensors: VadTensorEntry[];
  fileSize: number;
}

const MAX_MODEL_TYPE_BYTES = 64;
const MAX_TENSOR_NAME_BYTES = 256;
const MAX_GGML_DIMS = 4;
/** n_vocab of whisper's speech-recognition models, which sits where a VAD file has its type's length. */
const WHISPER_VOCABULARY_SIZES = [51864, 51865, 51866];

export function readVadModelHeader(path: string): Promise<VadModelHeader> {
  return readModelFile(path, parseVadModel);
}

async function parseVadModel(cursor: FileCursor, fail: ModelFileFail): Promise<VadModelHeader> {
  if (cursor.fileSize < 4) throw fail('model_invalid', cursor.fileSize === 0 ? 'the file is empty' : 'too small to be a VAD model file');
  const magic = await cursor.uint32('the magic number');
  if (magic !== GGML_FILE_MAGIC) {
    throw fail('model_invalid', `not a whisper.cpp ggml VAD model: bad magic 0x${magic.toString(16).padStart(8, '0')}`);
  }

  const typeLength = await cursor.int32('the model type');
  if (WHISPER_VOCABULARY_SIZES.includes(typeLength)) {
    throw fail('model_invalid', 'a whisper speech-recognition model, not a VAD model');
  }
  if (typeLength < 1 || typeLength > MAX_MODEL_TYPE_BYTES) throw fail('model_invalid', `model type of ${typeLength} bytes`);
  const modelType = (await cursor.bytes(typeLength, 'the model type')).toString('utf8');
  if (modelType !== SILERO_VAD_MODEL_TYPE) {
    throw fail('model_invalid', `VAD model type '${modelType}', expected '${SILERO_VAD_MODEL_TYPE}'`);
  }

  const version: number[] = [];
  for (let i = 0; i < 3; i++) version.push(await cursor.int32('the version'));
  if (version.some((part) => part < 0 || part > 9999)) throw fail('model_invalid', `malformed version ${version.join('.')}`);

  const hparams: number[] = [];
  for (const expected of SILERO_VAD_HPARAMS) {
    const value = await cursor.int32('the hyperparameters');
    if (value !== expected.value) throw fail('model_invalid', `${expected.name} is ${value}, expected ${expected.value}`);
    hparams.push(value);
  }

  const [windowSamples, contextSamples] = hparams;
  const tensors = await readTensorHeaders(cursor, fail);
  return {
    modelType,
    version: version.join('.'),
    windowSamples,
    contextSamples,
    tensors,
    fileSize: cursor.fileSize,
  };
}

async function readTensorHeaders(cursor: FileCursor, fail: ModelFileFail): Promise<VadTensorEntry[]> {
  const specs = new Map(SILERO_VAD_TENSORS.map((spec) => [spec.name, spec]));
  const tensors: VadTensorEntry[] = [];
  while (cursor.remaining > 0) {
    if (cursor.remaining < 12) throw fail('model_invalid', `${cursor.remaining} unexpected bytes after the last tensor`);
    const nDims = await cursor.int32('a tensor header');
    const nameLength = await cursor.int32('a tensor header');
    const typeId = await cursor.int32('a tensor header');
    if (nDims < 0 || nDims > MAX_GGML_DIMS || nameLength < 1 || nameLength > MAX_TENSOR_NAME_BYTES) {
      throw fail('model_invalid', `malformed tensor header at byte ${cursor.position - 12}`);
    }
    const ne: number[] = [];
    for (let i = 0; i < nDims; i++) ne.push(await cursor.int32('a tensor header'));
    const name = (await cursor.bytes(nameLength, 'a tensor name')).toString('utf8');
    const spec = specs.get(name);
    if (!spec) throw fail('model_invalid', `unexpected tensor '${name}' for a Silero VAD model`);
    if (tensors.some((t) => t.name === name)) throw fail('model_invalid', `tensor '${name}' appears twice`);
    checkTensor(spec, ne, typeId, fail);
    const bytes = vadTensorBytes(spec);
    if (cursor.remaining < bytes) {
      throw fail('model_truncated', `truncated: tensor '${name}' needs ${bytes} bytes, the file has ${cursor.remaining} left`);
    }
    tensors.push({ name, ne, type: spec.type.name, offset: cursor.position, bytes });
    cursor.skip(bytes, `tensor '${name}'`);
  }
  if (tensors.length !== specs.size) {
    const missing = SILERO_VAD_TENSORS.find((s) => !tensors.some((t) => t.name === s.name))!.name;
    throw fail('model_truncated', `truncated: the file ends after ${tensors.length} of ${specs.size} tensors (first missing: '${missing}')`);
  }
  return tensors;
}

function checkTensor(spec: VadTensorSpec, ne: number[], typeId: number, fail: ModelFileFail): void {
  // whisper.cpp treats missing trailing dimensions as 1 (the scalar bias is stored with none).
  if (padded(ne).join() !== padded(spec.ne).join()) {
    throw fail('model_invalid', `tensor '${spec.name}' has shape [${ne}], expected [${spec.ne}]`);
  }
  if (typeId !== spec.type.id) {
    const stored = ggmlType(typeId)?.name ?? `unknown type ${typeId}`;
    throw fail('model_invalid', `tensor '${spec.name}' is stored as ${stored}, expected ${spec.type.name}`);
  }
}

function padded(ne: readonly number[]): number[] {
  return [...ne, 1, 1, 1, 1].slice(0, MAX_GGML_DIMS);
}
