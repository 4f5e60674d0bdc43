// QR codes (ISO/IEC 18004) drawn by the console itself, as inline SVG: the TOTP setup link as a code
// a phone's authenticator app scans, with no third-party origin and no dependency. Byte mode, error
// correction level M (15 %), versions 1-10 (up to 213 bytes: an otpauth:// URI needs about 130),
// the mask of the lowest penalty score. The construction follows the standard's steps in order:
// data bits, Reed-Solomon blocks interleaved, function patterns, the zigzag placement, mask, format
// and version information.
import { escapeHtml as e } from './console-http.js';

const MAX_VERSION = 10;
/** Level M's error correction codewords per block and number of blocks, by version (index 0 unused). */
const ECC_PER_BLOCK = [0, 10, 16, 26, 18, 24, 16, 18, 22, 22, 26];
const BLOCKS = [0, 1, 1, 1, 2, 2, 4, 4, 4, 5, 5];
/** Level M's two format bits. */
const LEVEL_M = 0b00;
const QUIET_ZONE = 4;

/** The modules of the QR code of `text` (UTF-8): rows of booleans, true for dark. */
export function qrMatrix(text: string, forcedMask: number | null = null): boolean[][] {
  const data = Buffer.from(text, 'utf8');
  const version = smallestVersion(data.length);
  const codewords = interleaved(dataCodewords(data, version), version);
  const grid = new QrGrid(version);
  grid.drawFunctionPatterns();
  grid.drawCodewords(codewords);
  let best = forcedMask ?? 0;
  if (forcedMask === null) {
    let lowest = Infinity;
    for (let mask = 0; mask < 8; mask++) {
      grid.applyMask(mask);
      grid.drawFormatBits(mask);
      const score = penalty(grid.modules);
      if (score < lowest) [lowest, best] = [score, mask];
      grid.applyMask(mask); // XOR again: undone
    }
  }
  grid.applyMask(best);
  grid.drawFormatBits(best);
  return grid.modules;
}

/** The QR code of `text` as an inline SVG image named `label` (a white quiet zone of 4 modules around it). */
export function qrCodeSvg(text: string, label: string): string {
  const modules = qrMatrix(text);
  const size = modules.length + 2 * QUIET_ZONE;
  let path = '';
  modules.forEach((row, y) =>
    row.forEach((dark, x) => {
      if (dark) path += `M${x + QUIET_ZONE} ${y + QUIET_ZONE}h1v1h-1z`;
    }),
  );
  return (
    `<svg class="qr" role="img" aria-label="${e(label)}" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${size} ${size}" shape-rendering="crispEdges">` +
    `<rect width="${size}" height="${size}" fill="#fff"/><path d="${path}" fill="#000"/></svg>`
  );
}

function smallestVersion(bytes: number): number {
  for (let version = 1; version <= MAX_VERSION; version++) {
    const countBits = version < 10 ? 8 : 16;
    if (4 + countBits + 8 * bytes <= 8 * dataCapacity(version)) return version;
  }
  throw new Error(`too long for a QR code of version ${MAX_VERSION} at level M: ${bytes} bytes`);
}

/** Modules left for data and error correction once the function patterns are drawn. */
function rawDataModules(version: number): number {
  let modules = (16 * version + 128) * version + 64;
  if (version >= 2) {
    const align = Math.floor(version / 7) + 2;
    modules -= (25 * align - 10) * align - 55;
    if (version >= 7) modules -= 36;
  }
  return modules;
}

function dataCapacity(version: number): number {
  return Math.floor(rawDataModules(version) / 8) - ECC_PER_BLOCK[version] * BLOCKS[version];
}

/** Mode, count, the bytes, the terminator, then the pad bytes 0xEC 0x11 up to the capacity. */
function dataCodewords(data: Buffer, version: number): number[] {
  const bits: number[] = [];
  const put = (value: number, length: number) => {
    for (let i = length - 1; i >= 0; i--) bits.push((value >>> i) & 1);
  };
  put(0b0100, 4);
  put(data.length, version < 10 ? 8 : 16);
  for (const byte of data) put(byte, 8);
  const capacityBits = 8 * dataCapacity(version);
  put(0, Math.min(4, capacityBits - bits.length));
  put(0, (8 - (bits.length % 8)) % 8);
  const codewords: number[] = [];
  for (let i = 0; i < bits.length; i += 8) codewords.push(bits.slice(i, i + 8).reduce((byte, bit) => (byte << 1) | bit, 0));
  for (let pad = 0xec; codewords.length < capacityBits / 8; pad ^= 0xec ^ 0x11) codewords.push(pad);
  return codewords;
}

/** The data split into blocks (the short ones first), each with its Reed-Solomon codewords, interleaved. */
function interleaved(data: number[], version: number): number[] {
  const blockCount = BLOCKS[version];
  const eccLength = ECC_PER_BLOCK[version];
  const raw = Math.floor(rawDataModules(version) / 8);
  const shortBlocks = blockCount - (raw % blockCount);
  const shortLength = Math.floor(raw / blockCount);
  const divisor = reedSolomonDivisor(eccLength);
  const blocks: number[][] = [];
  for (let i = 0, at = 0; i < blockCount; i++) {
    const block = data.slice(at, at + shortLength - eccLength + (i < shortBlocks ? 0 : 1));
    at += block.length;
    const ecc = reedSolomonRemainder(block, divisor);
    if (i < shortBlocks) block.push(0); // a placeholder, skipped below, so every block has one length
    blocks.push([...block, ...ecc]);
  }
  const out: number[] = [];
  for (let i = 0; i < blocks[0].length; i++) {
    blocks.forEach((block, j) => {
      if (i !== shortLength - eccLength || j >= shortBlocks) out.push(block[i]);
    });
  }
  return out;
}

/** Multiplication in GF(2^8) modulo x^8 + x^4 + x^3 + x^2 + 1. */
function gfMultiply(x: number, y: number): number {
  let z = 0;
  for (let i = 7; i >= 0; i--) {
    z = (z << 1) ^ ((z >>> 7) * 0x11d);
    z ^= ((y >>> i) & 1) * x;
  }
  return z;
}

/** The generator polynomial of `degree` (its coefficients, the leading 1 left out). */
function reedSolomonDivisor(degree: number): number[] {
  const result = new Array<number>(degree).fill(0);
  result[degree - 1] = 1;
  let root = 1;
  for (let i = 0; i < degree; i++) {
    for (let j = 0; j < degree; j++) {
      result[j] = gfMultiply(result[j], root);
      if (j + 1 < degree) result[j] ^= result[j + 1];
    }
    root = gfMultiply(root, 0x02);
  }
  return result;
}

function reedSolomonRemainder(data: number[], divisor: number[]): number[] {
  const result = divisor.map(() => 0);
  for (const byte of data) {
    const factor = byte ^ result.shift()!;
    result.push(0);
    divisor.forEach((coefficient, i) => (result[i] ^= gfMultiply(coefficient, factor)));
  }
  return result;
}

class QrGrid {
  readonly size: number;
  readonly modules: boolean[][];
  /** Modules of the function patterns: never data, never masked. */
  private readonly reserved: boolean[][];

  constructor(private readonly version: number) {
    this.size = version * 4 + 17;
    this.modules = Array.from({ length: this.size }, () => new Array<boolean>(this.size).fill(false));
    this.reserved = Array.from({ length: this.size }, () => new Array<boolean>(this.size).fill(false));
  }

  drawFunctionPatterns(): void {
    const last = this.size - 1;
    for (let i = 0; i < this.size; i++) {
      this.set(6, i, i % 2 === 0);
      this.set(i, 6, i % 2 === 0);
    }
    for (const [x, y] of [
      [3, 3],
      [this.size - 4, 3],
      [3, this.size - 4],
    ])
      this.drawSquares(x, y, 4, (d) => d !== 2 && d !== 4);
    const positions = this.alignmentPositions();
    for (const [i, x] of positions.entries()) {
      for (const [j, y] of positions.entries()) {
        const nearFinder = (i === 0 && j === 0) || (i === 0 && j === positions.length - 1) || (i === positions.length - 1 && j === 0);
        if (!nearFinder) this.drawSquares(x, y, 2, (d) => d !== 1);
      }
    }
    this.drawFormatBits(0); // reserves the format areas; drawn again with the chosen mask
    this.set(8, last - 7, true); // the dark module
    if (this.version >= 7) this.drawVersionBits();
  }

  /** The zigzag: two-module columns from the right, up then down, skipping the vertical timing column. */
  drawCodewords(codewords: number[]): void {
    let bit = 0;
    for (let right = this.size - 1; right >= 1; right -= 2) {
      if (right === 6) right = 5;
      for (let vertical = 0; vertical < this.size; vertical++) {
        for (let j = 0; j < 2; j++) {
          const x = right - j;
          const upward = ((right + 1) & 2) === 0;
          const y = upward ? this.size - 1 - vertical : vertical;
          if (this.reserved[y][x] || bit >= codewords.length * 8) continue;
          this.modules[y][x] = ((codewords[bit >>> 3] >>> (7 - (bit & 7))) & 1) === 1;
          bit++;
        }
      }
    }
  }

  /** XORs the mask over the data modules (applying it twice undoes it). */
  applyMask(mask: number): void {
    for (let y = 0; y < this.size; y++) {
      for (let x = 0; x < this.size; x++) {
        if (!this.reserved[y][x] && maskBit(mask, x, y)) this.modules[y][x] = !this.modules[y][x];
      }
    }
  }

  /** Level and mask, BCH(15,5)-protected and XORed with 0x5412, in both of their places. */
  drawFormatBits(mask: number): void {
    const data = (LEVEL_M << 3) | mask;
    let remainder = data;
    for (let i = 0; i < 10; i++) remainder = (remainder << 1) ^ ((remainder >>> 9) * 0x537);
    const bits = ((data << 10) | remainder) ^ 0x5412;
    const bitAt = (i: number) => ((bits >>> i) & 1) === 1;
    for (let i = 0; i <= 5; i++) this.set(8, i, bitAt(i));
    this.set(8, 7, bitAt(6));
    this.set(8, 8, bitAt(7));
    this.set(7, 8, bitAt(8));
    for (let i = 9; i < 15; i++) this.set(14 - i, 8, bitAt(i));
    for (let i = 0; i < 8; i++) this.set(this.size - 1 - i, 8, bitAt(i));
    for (let i = 8; i < 15; i++) this.set(8, this.size - 15 + i, bitAt(i));
  }

  /** Versions 7 and up: the version, BCH(18,6)-protected, in two 6x3 blocks. */
  private drawVersionBits(): void {
    let remainder = this.version;
    for (let i = 0; i < 12; i++) remainder = (remainder << 1) ^ ((remainder >>> 11) * 0x1f25);
    const bits = (this.version << 12) | remainder;
    for (let i = 0; i < 18; i++) {
      const dark = ((bits >>> i) & 1) === 1;
      const a = this.size - 11 + (i % 3);
      const b = Math.floor(i / 3);
      this.set(a, b, dark);
      this.set(b, a, dark);
    }
  }

  private alignmentPositions(): number[] {
    if (this.version === 1) return [];
    const count = Math.floor(this.version / 7) + 2;
    const step = Math.ceil((this.version * 4 + 4) / (count * 2 - 2)) * 2;
    const positions = [6];
    for (let at = this.size - 7; positions.length < count; at -= step) positions.splice(1, 0, at);
    return positions;
  }

  /** Concentric squares around (cx, cy) out to `radius`, dark where `dark(distance)`. */
  private drawSquares(cx: number, cy: number, radius: number, dark: (distance: number) => boolean): void {
    for (let dy = -radius; dy <= radius; dy++) {
      for (let dx = -radius; dx <= radius; dx++) {
        const x = cx + dx;
        const y = cy + dy;
        if (x >= 0 && x < this.size && y >= 0 && y < this.size) this.set(x, y, dark(Math.max(Math.abs(dx), Math.abs(dy))));
      }
    }
  }

  private set(x: number, y: number, dark: boolean): void {
    this.modules[y][x] = dark;
    this.reserved[y][x] = true;
  }
}

function maskBit(mask: number, x: number, y: number): boolean {
  switch (mask) {
    case 0:
      return (x + y) % 2 === 0;
    case 1:
      return y % 2 === 0;
    case 2:
      return x % 3 === 0;
    case 3:
      return (x + y) % 3 === 0;
    case 4:
      return (Math.floor(x / 3) + Math.floor(y / 2)) % 2 === 0;
    case 5:
      return ((x * y) % 2) + ((x * y) % 3) === 0;
    case 6:
      return (((x * y) % 2) + ((x * y) % 3)) % 2 === 0;
    default:
      return (((x + y) % 2) + ((x * y) % 3)) % 2 === 0;
  }
}

/** The standard's penalty score (runs of five or more, 2x2 blocks, finder-like patterns, dark/light balance): lower scans better. */
function penalty(modules: boolean[][]): number {
  const size = modules.length;
  const column = (x: number) => modules.map((row) => row[x]);
  const lines = [...modules, ...Array.from({ length: size }, (_, x) => column(x))];
  let score = 0;
  for (const line of lines) {
    let run = 1;
    for (let i = 1; i <= size; i++) {
      if (i < size && line[i] === line[i - 1]) run++;
      else {
        if (run >= 5) score += run - 2;
        run = 1;
      }
    }
    // 1:1:3:1:1 dark-light ratio with four light modules on one side (the quiet zone counts as light).
    const padded = [...new Array<boolean>(4).fill(false), ...line, ...new Array<boolean>(4).fill(false)].map((dark) => (dark ? '1' : '0')).join('');
    for (let at = padded.indexOf('1011101'); at >= 0; at = padded.indexOf('1011101', at + 1)) {
      if (padded.slice(at - 4, at) === '0000' || padded.slice(at + 7, at + 11) === '0000') score += 40;
    }
  }
  for (let y = 0; y + 1 < size; y++) {
    for (let x = 0; x + 1 < size; x++) {
      const c = modules[y][x];
      if (modules[y][x + 1] === c && modules[y + 1][x] === c && modules[y + 1][x + 1] === c) score += 3;
    }
  }
  const dark = modules.reduce((n, row) => n + row.filter(Boolean).length, 0);
  const total = size * size;
  score += Math.max(0, Math.ceil(Math.abs(dark * 20 - total * 10) / total) - 1) * 10;
  return score;
}
