// The ggml tensor types a whisper.cpp model file can hold, and how a file's `ftype` maps to the type
// of its large matrices. Numbers follow ggml's enums (ggml.h, ggml 0.15): a file stores them raw, so
// they cannot be renumbered.

export interface GgmlType {
  readonly id: number;
  readonly name: string;
  /** Elements per block (1 for plain floats). */
  readonly blockSize: number;
  /** Bytes per block. */
  readonly blockBytes: number;
}

const types: readonly GgmlType[] = [
  { id: 0, name: 'f32', blockSize: 1, blockBytes: 4 },
  { id: 1, name: 'f16', blockSize: 1, blockBytes: 2 },
  { id: 2, name: 'q4_0', blockSize: 32, blockBytes: 18 },
  { id: 3, name: 'q4_1', blockSize: 32, blockBytes: 20 },
  { id: 6, name: 'q5_0', blockSize: 32, blockBytes: 22 },
  { id: 7, name: 'q5_1', blockSize: 32, blockBytes: 24 },
  { id: 8, name: 'q8_0', blockSize: 32, blockBytes: 34 },
  { id: 10, name: 'q2_K', blockSize: 256, blockBytes: 84 },
  { id: 11, name: 'q3_K', blockSize: 256, blockBytes: 110 },
  { id: 12, name: 'q4_K', blockSize: 256, blockBytes: 144 },
  { id: 13, name: 'q5_K', blockSize: 256, blockBytes: 176 },
  { id: 14, name: 'q6_K', blockSize: 256, blockBytes: 210 },
  { id: 30, name: 'bf16', blockSize: 1, blockBytes: 2 },
];

const typesById = new Map(types.map((t) => [t.id, t]));

export const GGML_F32 = typesById.get(0)!;
export const GGML_F16 = typesById.get(1)!;

/** Only the types whisper.cpp files are known to use; anything else is treated as invalid. */
export function ggmlType(id: number): GgmlType | undefined {
  return typesById.get(id);
}

/**
 * A file's ftype (after removing the quantization version) -> the type of its 2-D weight matrices.
 * ggml_ftype_to_ggml_type() aborts the process on any other value, so this list is also the
 * whitelist that keeps such a file away from whisper.cpp.
 */
const matrixTypeByFtype = new Map<number, number>([
  [0, 0], // all f32
  [1, 1], // mostly f16
  [2, 2], // q4_0
  [3, 3], // q4_1
  [7, 8], // q8_0
  [8, 6], // q5_0
  [9, 7], // q5_1
  [10, 10], // q2_K
  [11, 11], // q3_K
  [12, 12], // q4_K
  [13, 13], // q5_K
  [14, 14], // q6_K
  [24, 30], // bf16
]);

/** ggml stores `quantization version * 1000 + ftype` in the ftype field of quantized files. */
export const QUANTIZATION_VERSION_FACTOR = 1000;

export function matrixTypeForFtype(ftype: number): GgmlType | undefined {
  const id = matrixTypeByFtype.get(ftype);
  return id === undefined ? undefined : typesById.get(id);
}

/** Bytes of a tensor of `elements` values whose rows are `rowLength` long; undefined if rows do not fill whole blocks. */
export function tensorBytes(type: GgmlType, rowLength: number, elements: number): number | undefined {
  if (rowLength % type.blockSize !== 0) return undefined;
  return (elements / type.blockSize) * type.blockBytes;
}
