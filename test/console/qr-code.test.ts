// The console's QR code (src/console/qr-code.ts: the `qrcode` package encodes, the console draws the
// SVG). The oracle is an independent decoder, jsQR, reading a bitmap painted from the SVG's own path:
// an otpauth:// URI comes back byte for byte, and the format bits name level M. And the SVG itself: a
// labelled image, one square per dark module, a quiet zone, no style attribute and no script.
import jsqr from 'jsqr';
import t from 'tap';

import { qrCodeSvg } from '../../src/console/qr-code.js';

// A CommonJS bundle typed as an ES module: Node's default import is the bundle, whose `default` is jsQR.
const jsQR = jsqr.default;

const OTPAUTH_TEXT =
  'otpauth://totp/svc-stt%20console:dr.lee%40clinic.example?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=svc-stt+console&algorithm=SHA1&digits=6&period=30';
/** Pixels per module in the painted bitmap. */
const SCALE = 4;

/** The SVG's dark squares (`M<x> <y>h1v1h-1z`, one per module) on a white canvas of its viewBox. */
function modulesOf(svg: string): { size: number; dark: Set<string> } {
  const size = Number(/viewBox="0 0 (\d+) \1"/.exec(svg)![1]);
  const path = /<path d="([^"]*)"/.exec(svg)![1];
  const squares = [...path.matchAll(/M(\d+) (\d+)h1v1h-1z/g)];
  if (squares.map((m) => m[0]).join('') !== path) throw new Error('the path is not only squares of one module');
  return { size, dark: new Set(squares.map(([, x, y]) => `${x},${y}`)) };
}

/** What jsQR reads from the SVG painted as an RGBA bitmap, `SCALE` pixels a module. */
function decode(svg: string) {
  const { size, dark } = modulesOf(svg);
  const width = size * SCALE;
  const pixels = new Uint8ClampedArray(width * width * 4).fill(255);
  for (let py = 0; py < width; py++) {
    for (let px = 0; px < width; px++) {
      if (!dark.has(`${Math.floor(px / SCALE)},${Math.floor(py / SCALE)}`)) continue;
      pixels.fill(0, (py * width + px) * 4, (py * width + px) * 4 + 3);
    }
  }
  return jsQR(pixels, width, width, { inversionAttempts: 'dontInvert' });
}

t.test('an otpauth:// URI round-trips: drawn, painted, and read back by an independent decoder', async (t) => {
  const read = decode(qrCodeSvg(OTPAUTH_TEXT, 'QR code of the setup link'));
  t.ok(read, 'jsQR finds a code');
  t.equal(read!.data, OTPAUTH_TEXT, 'the same URI');
  // The format information beside the top left finder (bits 0-14, unmasked with 0x5412) names the
  // error correction level: M (00), 15 % of the code can be lost.
  const { dark } = modulesOf(qrCodeSvg(OTPAUTH_TEXT, 'x'));
  const at = (x: number, y: number) => dark.has(`${x + 4},${y + 4}`);
  const read15 = [0, 1, 2, 3, 4, 5, 7, 8].map((y) => at(8, y)).concat([7, 5, 4, 3, 2, 1, 0].map((x) => at(x, 8)));
  const format = read15.reduce((n, isDark, i) => n | ((isDark ? 1 : 0) << i), 0) ^ 0x5412;
  t.equal(format >>> 13, 0b00, 'level M');
});

t.test('other texts round-trip too: short, non-ASCII, near the length of a long account name', async (t) => {
  for (const text of ['a', 'hello world', 'Émilie Müller, Zürich', 'x'.repeat(300)]) {
    t.equal(decode(qrCodeSvg(text, 'x'))?.data, text, `${text.length} characters`);
  }
});

t.test('the SVG: a labelled image, one path, a quiet zone, no style attribute and no script', async (t) => {
  const svg = qrCodeSvg('hello world', 'QR code of "the" link');
  t.match(svg, /^<svg class="qr" role="img" aria-label="QR code of &quot;the&quot; link"/);
  t.match(svg, /viewBox="0 0 29 29"/, '21 modules (version 1) and 4 either side');
  t.notMatch(svg, /style=|<script|\son[a-z]+=/);
  const { size, dark } = modulesOf(svg);
  const inQuietZone = [...dark].map((xy) => xy.split(',').map(Number)).filter(([x, y]) => Math.min(x, y) < 4 || Math.max(x, y) >= size - 4);
  t.same(inQuietZone, [], 'nothing dark in the quiet zone');
  t.equal(svg.match(/<path /g)?.length, 1, 'one path');
});
