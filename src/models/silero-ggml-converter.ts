// Converts Silero VAD's ONNX release into whisper.cpp's ggml VAD file, the way whisper.cpp's own
// models/convert-silero-vad-to-ggml.py converts the PyTorch checkpoint, without torch or onnx.
// The ONNX export wraps two models in an `If` on the sample rate; whisper.cpp runs only the 16 kHz one,
// so the converter takes the one subgraph whose Constants have exactly the 16 kHz shapes. The ONNX
// file carries no version, so the caller states it (the npm carrier's pin knows it).
import { float32ToFloat16Bits } from './float16.js';
import { GGML_F16 } from './ggml-types.js';
import { graphWeights, type OnnxTensor, readOnnxGraph } from './onnx-model.js';
import { SILERO_VAD_HPARAMS, SILERO_VAD_MODEL_TYPE, SILERO_VAD_TENSORS, type SileroVadVersion, type VadTensorSpec } from './silero-vad-layout.js';
import { GGML_FILE_MAGIC } from './whisper-layout.js';

export class SileroConversionError extends Error {
  override readonly name = 'SileroConversionError';
}

/** The ggml file for the 16 kHz model in `onnx` (the bytes of a Silero VAD .onnx file). */
export function convertSileroOnnxToGgml(onnx: Uint8Array, version: SileroVadVersion): Buffer {
  const tensors = sixteenKilohertzTensors(onnx);
  const parts: Buffer[] = [header(version)];
  for (const spec of SILERO_VAD_TENSORS) parts.push(tensorRecord(spec, tensors.get(spec.name)!));
  return Buffer.concat(parts);
}

export function parseSileroVersion(text: string): SileroVadVersion {
  const match = /^(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (!match) throw new SileroConversionError(`'${text}' is not a MAJOR.MINOR.PATCH version`);
  return { major: Number(match[1]), minor: Number(match[2]), patch: Number(match[3]) };
}

function header(version: SileroVadVersion): Buffer {
  const type = Buffer.from(SILERO_VAD_MODEL_TYPE, 'utf8');
  const ints = [version.major, version.minor, version.patch, ...SILERO_VAD_HPARAMS.map((h) => h.value)];
  const bytes = Buffer.alloc(8 + type.length + 4 * ints.length);
  bytes.writeUInt32LE(GGML_FILE_MAGIC, 0);
  bytes.writeInt32LE(type.length, 4);
  type.copy(bytes, 8);
  ints.forEach((value, i) => bytes.writeInt32LE(value, 8 + type.length + 4 * i));
  return bytes;
}

function tensorRecord(spec: VadTensorSpec, tensor: OnnxTensor): Buffer {
  const name = Buffer.from(spec.name, 'utf8');
  const head = Buffer.alloc(12 + 4 * spec.ne.length);
  head.writeInt32LE(spec.ne.length, 0);
  head.writeInt32LE(name.length, 4);
  head.writeInt32LE(spec.type.id, 8);
  spec.ne.forEach((d, i) => head.writeInt32LE(d, 12 + 4 * i));
  // ggml's dimensions are the ONNX ones reversed, so the row-major values are already in ggml's order.
  return Buffer.concat([head, name, tensorData(spec, tensor.floats())]);
}

function tensorData(spec: VadTensorSpec, values: Float32Array): Buffer {
  const data = Buffer.alloc(values.length * spec.type.blockBytes);
  if (spec.type === GGML_F16) values.forEach((value, i) => data.writeUInt16LE(float32ToFloat16Bits(value), 2 * i));
  else values.forEach((value, i) => data.writeFloatLE(value, 4 * i));
  return data;
}

const STFT_BASIS = '_model.stft.forward_basis_buffer';

/**
 * ggml dimensions of an ONNX tensor as the Python converter derives them from the PyTorch one: size-1
 * dimensions squeezed away (the STFT basis keeps its 3 dimensions), then reversed.
 */
function ggmlDims(spec: VadTensorSpec, onnxDims: readonly number[]): number[] {
  const kept = spec.name === STFT_BASIS ? [...onnxDims] : onnxDims.filter((d) => d !== 1);
  return kept.reverse();
}

/** The 16 kHz weights by ggml tensor name, from the one graph scope that holds all of them. */
function sixteenKilohertzTensors(onnx: Uint8Array): Map<string, OnnxTensor> {
  const scopes = new Map<string, Map<string, OnnxTensor>>();
  const mismatches: string[] = [];
  for (const { tensor, scope } of graphWeights(readOnnxGraph(onnx))) {
    const spec = SILERO_VAD_TENSORS.find((s) => namesTensor(tensor.name, s));
    if (!spec) continue;
    const dims = ggmlDims(spec, tensor.dims);
    // The 8 kHz model has tensors of the same names and other shapes.
    if (dims.join() !== spec.ne.join()) {
      mismatches.push(`${tensor.name} [${tensor.dims}]`);
      continue;
    }
    const found = scopes.get(scope) ?? new Map<string, OnnxTensor>();
    if (found.has(spec.name)) throw new SileroConversionError(`two tensors for ${spec.name} in graph scope '${scope}'`);
    found.set(spec.name, tensor);
    scopes.set(scope, found);
  }
  const complete = [...scopes.entries()].filter(([, found]) => found.size === SILERO_VAD_TENSORS.length);
  if (complete.length === 1) return complete[0][1];
  if (complete.length > 1) {
    const names = complete.map(([scope]) => `'${scope}'`).join(', ');
    throw new SileroConversionError(`several graph scopes hold a full 16 kHz Silero model: ${names}`);
  }
  const best = [...scopes.values()].sort((a, b) => b.size - a.size)[0];
  if (!best) throw new SileroConversionError('not a Silero VAD model: none of its tensors has the 16 kHz shape');
  const missing = SILERO_VAD_TENSORS.filter((s) => !best.has(s.name)).map((s) => s.name);
  const shapes = mismatches.length ? `; tensors of other shapes: ${mismatches.join(', ')}` : '';
  throw new SileroConversionError(`not a Silero VAD model with 16 kHz weights: missing ${missing.join(', ')}${shapes}`);
}

/**
 * torch.onnx names a Constant after the state-dict key (without `_model.`), prefixed by the inlined
 * scope, e.g. `If_0_then_branch__Inline_0__encoder.0.reparam_conv.weight`.
 */
function namesTensor(onnxName: string, spec: VadTensorSpec): boolean {
  const key = spec.name.replace(/^_model\./, '');
  return onnxName === key || onnxName.endsWith(`__${key}`) || onnxName.endsWith(`/${key}`);
}
