// Validates a whisper.cpp model file before whisper.cpp loads it. whisper_model_load trusts the file:
// an unknown ftype or tensor type, a mel filter count that disagrees with n_mels, dimensions that a
// quantized type cannot hold, or a missing " " token end in abort() or undefined behaviour, and a file
// cut inside its last tensor loads "successfully" with garbage weights. So this reads the hparams,
// the filterbank and vocabulary headers, and every tensor header, and checks each against what
// whisper.cpp will allocate, without reading the weights themselves.
import { EndOfFileError, type FileCursor } from './file-cursor.js';
import { ggmlType, matrixTypeForFtype, QUANTIZATION_VERSION_FACTOR, tensorBytes } from './ggml-types.js';
import { ModelFileError } from './model-file-error.js';
import { readModelFile } from './read-model-file.js';
import {
  elementCount,
  GGML_FILE_MAGIC,
  HPARAM_FIELDS,
  isMultilingual,
  MEL_FFT_BINS,
  type TensorSpec,
  tensorType,
  type WhisperHparams,
  whisperTensors,
} from './whisper-layout.js';

export { ModelFileError, type ModelFileErrorCode } from './model-file-error.js';

export type ModelArchGuess = 'micro' | 'tiny' | 'base' | 'small' | 'medium' | 'large' | 'unknown';

export interface ModelHeader {
  /** From the encoder's depth and width; large-v3-turbo (32 encoder, 4 decoder layers) is 'large'. */
  arch: ModelArchGuess;
  multilingual: boolean;
  nVocab: number;
  nAudioCtx: number;
  nAudioState: number;
  nAudioHead: number;
  nAudioLayer: number;
  nTextCtx: number;
  nTextHead: number;
  nTextLayer: number;
  nMels: number;
  /** ggml file type without the quantization version: 0 f32, 1 f16, 8 q5_0, 9 q5_1, 7 q8_0, ... */
  ftype: number;
  /** Type of the weight matrices, e.g. 'f16', 'q5_0'. */
  weightType: string;
  quantizationVersion: number;
  tensorCount: number;
  fileSize: number;
}

const MAX_TOKEN_BYTES = 4096;
const MAX_TENSOR_NAME_BYTES = 256;

export function readModelHeader(path: string): Promise<ModelHeader> {
  return readModelFile(path, parseModel);
}

type Fail = (code: 'model_invalid' | 'model_truncated', message: string) => ModelFileError;

async function parseModel(cursor: FileCursor, fail: Fail): Promise<ModelHeader> {
  if (cursor.fileSize < 4) throw fail('model_invalid', cursor.fileSize === 0 ? 'the file is empty' : 'too small to be a model file');
  const magic = await cursor.uint32('the magic number');
  if (magic !== GGML_FILE_MAGIC) {
    const hint = magic === 0x46554747 ? ' (a GGUF file: whisper.cpp models use the older ggml format)' : '';
    throw fail('model_invalid', `not a whisper.cpp ggml model: bad magic 0x${magic.toString(16).padStart(8, '0')}${hint}`);
  }

  const h = {} as WhisperHparams;
  for (const field of HPARAM_FIELDS) h[field] = await cursor.int32('the hyperparameters');
  const problem = hparamsProblem(h);
  if (problem) throw fail('model_invalid', problem);
  const ftype = h.ftype % QUANTIZATION_VERSION_FACTOR;
  const weightType = matrixTypeForFtype(ftype)!;

  const nMel = await cursor.int32('the mel filterbank');
  const nFft = await cursor.int32('the mel filterbank');
  if (nMel !== h.nMels || nFft !== MEL_FFT_BINS) {
    throw fail('model_invalid', `mel filterbank is ${nMel}x${nFft}, expected ${h.nMels}x${MEL_FFT_BINS}`);
  }
  cursor.skip(nMel * nFft * 4, 'the mel filterbank');

  await checkVocabulary(cursor, h, fail);

  const specs = whisperTensors(h);
  const expected = new Map<string, { spec: TensorSpec; bytes: number; typeId: number }>();
  let neededBytes = 0;
  for (const spec of specs) {
    const type = tensorType(spec.role, ftype)!;
    const bytes = tensorBytes(type, spec.ne[0], elementCount(spec.ne));
    // whisper.cpp would hit a ggml assertion allocating this tensor: rows must fill whole blocks.
    if (bytes === undefined) throw fail('model_invalid', `tensor ${spec.name} has rows of ${spec.ne[0]} values, which ${type.name} cannot store`);
    expected.set(spec.name, { spec, bytes, typeId: type.id });
    neededBytes += 12 + 4 * spec.ne.length + Buffer.byteLength(spec.name) + bytes;
  }
  if (cursor.remaining < neededBytes) {
    throw fail(
      'model_truncated',
      `truncated: ${cursor.fileSize} bytes, but the hyperparameters (${describe(h, weightType.name)}) need ${cursor.position + neededBytes}`,
    );
  }

  const seen = new Set<string>();
  while (cursor.remaining > 0) {
    if (cursor.remaining < 12) throw fail('model_invalid', `${cursor.remaining} unexpected bytes after the last tensor`);
    const nDims = await cursor.int32('a tensor header');
    const nameLength = await cursor.int32('a tensor header');
    const typeId = await cursor.int32('a tensor header');
    if (nDims < 1 || nDims > 4 || nameLength < 1 || nameLength > MAX_TENSOR_NAME_BYTES) {
      throw fail('model_invalid', `malformed tensor header at byte ${cursor.position - 12}`);
    }
    const ne: number[] = [];
    for (let i = 0; i < nDims; i++) ne.push(await cursor.int32('a tensor header'));
    const name = (await cursor.bytes(nameLength, 'a tensor name')).toString('utf8');
    const entry = expected.get(name);
    if (!entry) throw fail('model_invalid', `unexpected tensor '${name}' for this architecture`);
    if (seen.has(name)) throw fail('model_invalid', `tensor '${name}' appears twice`);
    seen.add(name);
    if (padded(ne).join() !== padded(entry.spec.ne).join()) {
      throw fail('model_invalid', `tensor '${name}' has shape [${ne}], expected [${entry.spec.ne}]`);
    }
    if (typeId !== entry.typeId) {
      const stored = ggmlType(typeId)?.name ?? `unknown type ${typeId}`;
      throw fail('model_invalid', `tensor '${name}' is stored as ${stored}, expected ${ggmlType(entry.typeId)!.name}`);
    }
    if (cursor.remaining < entry.bytes) {
      throw fail('model_truncated', `truncated: tensor '${name}' needs ${entry.bytes} bytes, the file has ${cursor.remaining} left`);
    }
    cursor.skip(entry.bytes, `tensor '${name}'`);
  }
  if (seen.size !== expected.size) {
    const missing = specs.find((s) => !seen.has(s.name))!.name;
    throw fail('model_truncated', `truncated: the file ends after ${seen.size} of ${expected.size} tensors (first missing: '${missing}')`);
  }

  return {
    arch: guessArch(h),
    multilingual: isMultilingual(h.nVocab),
    nVocab: h.nVocab,
    nAudioCtx: h.nAudioCtx,
    nAudioState: h.nAudioState,
    nAudioHead: h.nAudioHead,
    nAudioLayer: h.nAudioLayer,
    nTextCtx: h.nTextCtx,
    nTextHead: h.nTextHead,
    nTextLayer: h.nTextLayer,
    nMels: h.nMels,
    ftype,
    weightType: weightType.name,
    quantizationVersion: Math.floor(h.ftype / QUANTIZATION_VERSION_FACTOR),
    tensorCount: seen.size,
    fileSize: cursor.fileSize,
  };
}

/** The ranges of every published whisper model, and the invariants whisper.cpp assumes without checking. */
function hparamsProblem(h: WhisperHparams): string | undefined {
  const inRange = (value: number, lo: number, hi: number) => Number.isInteger(value) && value >= lo && value <= hi;
  // 51864: English-only; 51865: multilingual (99 languages); 51866: large-v3 (100 languages).
  // whisper.cpp names languages beyond its table with a null pointer, so larger values crash it.
  if (!inRange(h.nVocab, 51864, 51866)) return `n_vocab ${h.nVocab} is not a whisper vocabulary size (51864-51866)`;
  if (!inRange(h.nAudioCtx, 1, 1500)) return `n_audio_ctx ${h.nAudioCtx} is outside 1-1500`;
  if (!inRange(h.nTextCtx, 8, 448)) return `n_text_ctx ${h.nTextCtx} is outside 8-448`;
  if (!inRange(h.nAudioState, 1, 4096)) return `n_audio_state ${h.nAudioState} is outside 1-4096`;
  if (h.nTextState !== h.nAudioState) return `n_text_state ${h.nTextState} differs from n_audio_state ${h.nAudioState}`;
  if (!inRange(h.nAudioHead, 1, 64) || h.nAudioState % h.nAudioHead !== 0) return `n_audio_head ${h.nAudioHead} does not divide n_audio_state ${h.nAudioState}`;
  if (!inRange(h.nTextHead, 1, 64) || h.nTextState % h.nTextHead !== 0) return `n_text_head ${h.nTextHead} does not divide n_text_state ${h.nTextState}`;
  if (!inRange(h.nAudioLayer, 1, 64)) return `n_audio_layer ${h.nAudioLayer} is outside 1-64`;
  if (!inRange(h.nTextLayer, 1, 64)) return `n_text_layer ${h.nTextLayer} is outside 1-64`;
  if (h.nMels !== 80 && h.nMels !== 128) return `n_mels ${h.nMels} is neither 80 nor 128`;
  const quantizationVersion = Math.floor(h.ftype / QUANTIZATION_VERSION_FACTOR);
  if (h.ftype < 0 || quantizationVersion > 2 || !matrixTypeForFtype(h.ftype % QUANTIZATION_VERSION_FACTOR)) {
    return `unsupported ftype ${h.ftype}`;
  }
  return undefined;
}

async function checkVocabulary(cursor: FileCursor, h: WhisperHparams, fail: Fail): Promise<void> {
  const count = await cursor.int32('the vocabulary');
  if (count < 1 || count > h.nVocab) throw fail('model_invalid', `vocabulary of ${count} tokens for n_vocab ${h.nVocab}`);
  // Real vocabularies take about 0.5 MB: parse them from one buffer, reading more only if needed.
  for (let span = 1 << 20; ; span *= 4) {
    const bytes = await cursor.peek(span);
    const end = scanVocabulary(bytes, count, fail);
    if (end !== undefined) {
      cursor.skip(end, 'the vocabulary');
      return;
    }
    if (bytes.length === cursor.remaining) throw new EndOfFileError('the vocabulary', cursor.fileSize, 1);
  }
}

/** The byte length of `count` length-prefixed tokens at the start of `bytes`, or undefined if they run past it. */
function scanVocabulary(bytes: Buffer, count: number, fail: Fail): number | undefined {
  let offset = 0;
  let hasSpace = false;
  for (let i = 0; i < count; i++) {
    if (offset + 4 > bytes.length) return undefined;
    const length = bytes.readUInt32LE(offset);
    offset += 4;
    if (length > MAX_TOKEN_BYTES) throw fail('model_invalid', `vocabulary token ${i} claims ${length} bytes`);
    if (offset + length > bytes.length) return undefined;
    if (length === 1 && bytes[offset] === 0x20) hasSpace = true;
    offset += length;
  }
  // whisper.cpp looks the " " token up unconditionally when decoding starts (suppress_blank).
  if (!hasSpace) throw fail('model_invalid', 'the vocabulary has no " " token');
  return offset;
}

function padded(ne: number[]): number[] {
  return [...ne, 1, 1, 1].slice(0, 4);
}

function describe(h: WhisperHparams, weightType: string): string {
  return `${h.nAudioLayer}+${h.nTextLayer} layers, width ${h.nAudioState}, ${weightType}`;
}

function guessArch(h: WhisperHparams): ModelArchGuess {
  const key = `${h.nAudioLayer}/${h.nAudioState}`;
  const known: Record<string, ModelArchGuess> = {
    '1/64': 'micro',
    '4/384': 'tiny',
    '6/512': 'base',
    '12/768': 'small',
    '24/1024': 'medium',
    '32/1280': 'large',
  };
  return known[key] ?? 'unknown';
}
