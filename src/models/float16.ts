// IEEE 754 binary32 -> binary16 conversion with round-to-nearest-even, as ggml's own f16 weights are.

const scratch = new DataView(new ArrayBuffer(4));

export function float32ToFloat16Bits(value: number): number {
  scratch.setFloat32(0, value);
  const bits = scratch.getUint32(0);
  const sign = (bits >>> 16) & 0x8000;
  const exponent = (bits >>> 23) & 0xff;
  const mantissa = bits & 0x7fffff;

  if (exponent === 0xff) {
    // Infinity stays infinity; NaN stays a (quiet) NaN.
    return sign | 0x7c00 | (mantissa ? 0x200 : 0);
  }
  const halfExponent = exponent - 127 + 15;
  if (halfExponent >= 0x1f) return sign | 0x7c00; // too large: infinity
  if (halfExponent <= 0) {
    // Subnormal half (or zero): shift the mantissa, with its implicit 1, into place.
    if (halfExponent < -10) return sign;
    const full = mantissa | 0x800000;
    const shift = 14 - halfExponent;
    return sign | roundShift(full, shift);
  }
  // Normal half: the carry of rounding may bump the exponent, which is exactly right (up to infinity).
  return sign | ((halfExponent << 10) + roundShift(mantissa, 13));
}

/** value >> shift, rounded to nearest, ties to even. */
function roundShift(value: number, shift: number): number {
  const kept = value >>> shift;
  const rest = value & ((1 << shift) - 1);
  const half = 1 << (shift - 1);
  return rest > half || (rest === half && (kept & 1) === 1) ? kept + 1 : kept;
}

export function float16BitsToFloat32(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >>> 10) & 0x1f;
  const mantissa = bits & 0x3ff;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  if (exponent === 0x1f) return mantissa ? Number.NaN : sign * Number.POSITIVE_INFINITY;
  return sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
}
