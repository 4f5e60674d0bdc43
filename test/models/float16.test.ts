import t from 'tap';

import { float16BitsToFloat32, float32ToFloat16Bits } from '../../src/models/float16.js';

t.test('exact values and specials', async (t) => {
  const cases: Array<[number, number]> = [
    [0, 0x0000],
    [-0, 0x8000],
    [1, 0x3c00],
    [-2, 0xc000],
    [0.5, 0x3800],
    [65504, 0x7bff], // largest half
    [65520, 0x7c00], // rounds up to infinity
    [Infinity, 0x7c00],
    [-Infinity, 0xfc00],
    [2 ** -14, 0x0400], // smallest normal
    [2 ** -24, 0x0001], // smallest subnormal
    [2 ** -25, 0x0000], // a tie between 0 and the smallest subnormal: to even (0)
    [1.5 * 2 ** -25, 0x0001],
    [0.1, 0x2e66],
    [0.02, 0x251f],
  ];
  for (const [value, bits] of cases) t.equal(float32ToFloat16Bits(value), bits, `${value}`);
  t.equal(float32ToFloat16Bits(NaN) & 0x7c00, 0x7c00);
  t.ok(float32ToFloat16Bits(NaN) & 0x3ff, 'NaN keeps a mantissa bit');
});

t.test('round to nearest, ties to even', async (t) => {
  // 1 + 2^-11 lies halfway between 1 and the next half (1 + 2^-10): ties go to the even mantissa.
  t.equal(float32ToFloat16Bits(1 + 2 ** -11), 0x3c00);
  t.equal(float32ToFloat16Bits(1 + 3 * 2 ** -11), 0x3c02);
  t.equal(float32ToFloat16Bits(1 + 2 ** -11 + 2 ** -20), 0x3c01);
});

t.test('every half survives a round trip', async (t) => {
  let bad = 0;
  for (let bits = 0; bits < 0x10000; bits++) {
    const value = float16BitsToFloat32(bits);
    if (Number.isNaN(value)) continue;
    if (float32ToFloat16Bits(value) !== bits) bad++;
  }
  t.equal(bad, 0);
});
