// Deterministic pseudo-random numbers for generated test models: the same seed gives the same bytes on
// every machine and Node version (integer arithmetic only, no Math.random, no platform floats).
import { float32ToFloat16Bits } from './float16.js';

export type Random32 = () => number;

/** mulberry32 (Tommy Ettinger's 32-bit generator): fast, good enough for weights and token picks. */
export function mulberry32(seed: number): Random32 {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}

/**
 * A 32-bit seed for one named stream (e.g. one tensor), so each tensor's values depend only on the
 * model seed and its name, not on the order tensors are written in. FNV-1a over the name, then mixed.
 */
export function streamSeed(seed: number, name: string): number {
  let h = (0x811c9dc5 ^ Math.imul(seed >>> 0, 0x9e3779b1)) >>> 0;
  for (let i = 0; i < name.length; i++) {
    h = Math.imul(h ^ name.charCodeAt(i), 0x01000193) >>> 0;
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

/** Uniform integer in [0, n). */
export function randomBelow(random: Random32, n: number): number {
  return Math.floor((random() / 0x1_0000_0000) * n);
}

// The sum of the four bytes of one 32-bit draw is Irwin-Hall(4) distributed: bell-shaped, mean 510,
// standard deviation sqrt(4 * (256^2 - 1) / 12). A table from that sum to f16 bits makes a
// normal-ish f16 value cost one draw and one lookup, which keeps a 490 MB model fast to write.
const BYTE_SUM_MEAN = 510;
const BYTE_SUM_STD = Math.sqrt((4 * (256 * 256 - 1)) / 12);

export class NormalFloat16Table {
  private readonly bits = new Uint16Array(1021);

  constructor(readonly std: number) {
    for (let s = 0; s < this.bits.length; s++) {
      this.bits[s] = float32ToFloat16Bits(((s - BYTE_SUM_MEAN) / BYTE_SUM_STD) * std);
    }
  }

  fill(target: Uint16Array, random: Random32, count = target.length): void {
    const bits = this.bits;
    for (let i = 0; i < count; i++) {
      const x = random();
      target[i] = bits[(x & 0xff) + ((x >>> 8) & 0xff) + ((x >>> 16) & 0xff) + (x >>> 24)];
    }
  }
}

/** Normal-ish f32 values with the given standard deviation (for the few f32 tensors that are random). */
export function fillNormalFloat32(target: Float32Array, random: Random32, std: number): void {
  for (let i = 0; i < target.length; i++) {
    const x = random();
    const sum = (x & 0xff) + ((x >>> 8) & 0xff) + ((x >>> 16) & 0xff) + (x >>> 24);
    target[i] = ((sum - BYTE_SUM_MEAN) / BYTE_SUM_STD) * std;
  }
}
