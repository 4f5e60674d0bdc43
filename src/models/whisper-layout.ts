// The layout of a whisper.cpp model file (the legacy "ggml" container that whisper_model_load reads):
//   magic, 11 int32 hparams, mel filterbank (n_mel, n_fft, n_mel*n_fft f32), vocabulary (count, then
//   length-prefixed byte strings), then tensors until EOF, each: n_dims, name length, type, dims
//   (innermost first), name, data. All little-endian.
// Shared by the test-model writer and the header validator, so both agree on what a file must hold.
import { GGML_F16, GGML_F32, type GgmlType, matrixTypeForFtype } from './ggml-types.js';

export const GGML_FILE_MAGIC = 0x67676d6c; // "ggml"

/** whisper.cpp computes spectrograms with n_fft = 400, i.e. 201 frequency bins per mel filter. */
export const MEL_FFT_BINS = 201;

export interface WhisperHparams {
  nVocab: number;
  nAudioCtx: number;
  nAudioState: number;
  nAudioHead: number;
  nAudioLayer: number;
  nTextCtx: number;
  nTextState: number;
  nTextHead: number;
  nTextLayer: number;
  nMels: number;
  /** As stored: may carry a quantization version times 1000. */
  ftype: number;
}

/** Field order of the hparams block. */
export const HPARAM_FIELDS = [
  'nVocab',
  'nAudioCtx',
  'nAudioState',
  'nAudioHead',
  'nAudioLayer',
  'nTextCtx',
  'nTextState',
  'nTextHead',
  'nTextLayer',
  'nMels',
  'ftype',
] as const satisfies ReadonlyArray<keyof WhisperHparams>;

/** whisper.cpp: a vocabulary of at least 51865 entries is multilingual. */
export function isMultilingual(nVocab: number): boolean {
  return nVocab >= 51865;
}

/**
 * Text tokens stored in a file: the ids below <|endoftext|>. whisper.cpp itself names every id from
 * there up to n_vocab (end/start of text, languages, tasks, timestamps), so files do not store them.
 */
export function storedTextTokenCount(nVocab: number): number {
  return isMultilingual(nVocab) ? 50257 : 50256;
}

/**
 * How whisper.cpp allocates a tensor: 'f32' always f32 (norms, biases, positional embeddings),
 * 'conv' f16 unless the whole file is f32, 'matrix' the file's weight type (f16 or quantized).
 */
export type TensorRole = 'f32' | 'conv' | 'matrix';

export interface TensorSpec {
  name: string;
  /** Dimensions innermost first, as the file stores them. */
  ne: number[];
  role: TensorRole;
}

export function tensorType(role: TensorRole, ftype: number): GgmlType | undefined {
  if (role === 'f32') return GGML_F32;
  const matrix = matrixTypeForFtype(ftype);
  if (!matrix) return undefined;
  if (role === 'conv') return matrix === GGML_F32 ? GGML_F32 : GGML_F16;
  return matrix;
}

export function elementCount(ne: readonly number[]): number {
  return ne.reduce((a, b) => a * b, 1);
}

/** Every tensor whisper.cpp expects for these hparams (it rejects a file that lacks one or adds one). */
export function whisperTensors(h: WhisperHparams): TensorSpec[] {
  const specs: TensorSpec[] = [];
  const add = (name: string, ne: number[], role: TensorRole) => specs.push({ name, ne, role });
  const linear = (prefix: string, nIn: number, nOut: number, bias: boolean) => {
    add(`${prefix}.weight`, [nIn, nOut], 'matrix');
    if (bias) add(`${prefix}.bias`, [nOut], 'f32');
  };
  const norm = (prefix: string, n: number) => {
    add(`${prefix}.weight`, [n], 'f32');
    add(`${prefix}.bias`, [n], 'f32');
  };
  const attention = (prefix: string, n: number) => {
    linear(`${prefix}.query`, n, n, true);
    linear(`${prefix}.key`, n, n, false); // whisper's key projection has no bias
    linear(`${prefix}.value`, n, n, true);
    linear(`${prefix}.out`, n, n, true);
  };
  const mlp = (prefix: string, n: number) => {
    norm(`${prefix}.mlp_ln`, n);
    linear(`${prefix}.mlp.0`, n, 4 * n, true);
    linear(`${prefix}.mlp.2`, 4 * n, n, true);
  };

  const a = h.nAudioState;
  add('encoder.positional_embedding', [a, h.nAudioCtx], 'f32');
  add('encoder.conv1.weight', [3, h.nMels, a], 'conv');
  add('encoder.conv1.bias', [1, a], 'f32');
  add('encoder.conv2.weight', [3, a, a], 'conv');
  add('encoder.conv2.bias', [1, a], 'f32');
  for (let i = 0; i < h.nAudioLayer; i++) {
    const block = `encoder.blocks.${i}`;
    norm(`${block}.attn_ln`, a);
    attention(`${block}.attn`, a);
    mlp(block, a);
  }
  norm('encoder.ln_post', a);

  const t = h.nTextState;
  add('decoder.positional_embedding', [t, h.nTextCtx], 'f32');
  add('decoder.token_embedding.weight', [t, h.nVocab], 'matrix');
  for (let i = 0; i < h.nTextLayer; i++) {
    const block = `decoder.blocks.${i}`;
    norm(`${block}.attn_ln`, t);
    attention(`${block}.attn`, t);
    norm(`${block}.cross_attn_ln`, t);
    attention(`${block}.cross_attn`, t);
    mlp(block, t);
  }
  norm('decoder.ln', t);
  return specs;
}
