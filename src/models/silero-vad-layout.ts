// The layout of whisper.cpp's Silero VAD model file, as written by whisper.cpp's
// models/convert-silero-vad-to-ggml.py and read by whisper_vad_init_with_params (whisper.cpp 1.9.1):
//   magic "ggml", model type (int32 length + bytes), version (major, minor, patch), window and context
//   sizes, encoder layer count, then (in, out, kernel) per encoder layer, LSTM input and hidden sizes,
//   final conv in and out; then tensors until EOF, each: n_dims, name length, type, dims (innermost
//   first), name, data. All int32 little-endian.
// Shared by the converter and the header validator, so both agree on what a file must hold.
import { GGML_F16, GGML_F32, type GgmlType } from './ggml-types.js';

/** whisper.cpp loads only the 16 kHz half of Silero; the 8 kHz weights are left out of the file. */
export const SILERO_VAD_MODEL_TYPE = 'silero-16k';

export interface SileroVadVersion {
  major: number;
  minor: number;
  patch: number;
}

/**
 * The int32 fields after the version. whisper.cpp reads them but builds the graph for exactly these
 * values (e.g. its STFT basis is always 256x1x258), so a file with others is not loadable.
 */
export const SILERO_VAD_HPARAMS = [
  { name: 'window size (samples)', value: 512 },
  { name: 'context size (samples)', value: 64 },
  { name: 'encoder layers', value: 4 },
  ...[
    [129, 128],
    [128, 64],
    [64, 64],
    [64, 128],
  ].flatMap(([inChannels, outChannels], i) => [
    { name: `encoder ${i} input channels`, value: inChannels },
    { name: `encoder ${i} output channels`, value: outChannels },
    { name: `encoder ${i} kernel size`, value: 3 },
  ]),
  { name: 'LSTM input size', value: 128 },
  { name: 'LSTM hidden size', value: 128 },
  { name: 'final conv input channels', value: 128 },
  { name: 'final conv output channels', value: 1 },
] as const;

export interface VadTensorSpec {
  /** The PyTorch state-dict key with the `_model.` prefix, as whisper.cpp names the tensor. */
  readonly name: string;
  /** Dimensions as stored, innermost first; size-1 dimensions are squeezed away except in the STFT basis. */
  readonly ne: readonly number[];
  readonly type: GgmlType;
}

const encoderLayer = (i: number, ne: number[]): VadTensorSpec[] => [
  // Convolution weights are f16, as in whisper.cpp's converter; biases stay f32.
  { name: `_model.encoder.${i}.reparam_conv.weight`, ne, type: GGML_F16 },
  { name: `_model.encoder.${i}.reparam_conv.bias`, ne: [ne[2]], type: GGML_F32 },
];

/** In file order: the converter's order, which whisper.cpp does not require but the official files have. */
export const SILERO_VAD_TENSORS: readonly VadTensorSpec[] = [
  ...encoderLayer(0, [3, 129, 128]),
  ...encoderLayer(1, [3, 128, 64]),
  ...encoderLayer(2, [3, 64, 64]),
  ...encoderLayer(3, [3, 64, 128]),
  { name: '_model.decoder.rnn.weight_ih', ne: [128, 512], type: GGML_F32 },
  { name: '_model.decoder.rnn.weight_hh', ne: [128, 512], type: GGML_F32 },
  { name: '_model.decoder.rnn.bias_ih', ne: [512], type: GGML_F32 },
  { name: '_model.decoder.rnn.bias_hh', ne: [512], type: GGML_F32 },
  { name: '_model.decoder.decoder.2.weight', ne: [128], type: GGML_F16 },
  // A scalar: zero dimensions in the file (whisper.cpp reads it as [1, 1, 1, 1]).
  { name: '_model.decoder.decoder.2.bias', ne: [], type: GGML_F32 },
  { name: '_model.stft.forward_basis_buffer', ne: [256, 1, 258], type: GGML_F16 },
];

export function vadTensorElements(spec: VadTensorSpec): number {
  return spec.ne.reduce((product, d) => product * d, 1);
}

export function vadTensorBytes(spec: VadTensorSpec): number {
  return vadTensorElements(spec) * spec.type.blockBytes;
}
