// The console's QR encoder (src/console/qr-code.ts): every module of two codes against ones made by an
// independent encoder (node-qrcode 1.5.4, byte mode, level M, the same mask; decoded by jsQR as well when
// they were recorded), the structure of a code (finders, timing, format information naming level M and
// the mask chosen), the smallest version that holds the text, and the SVG (no style attribute, no script).
import t from 'tap';
import { qrCodeSvg, qrMatrix } from '../../src/console/qr-code.js';

const HELLO = [
  '1fdb7f',
  '105f41',
  '17435d',
  '175d5d',
  '174e5d',
  '104f41',
  '1fd57f',
  '001f00',
  '16e74b',
  '0dabfd',
  '0376a3',
  '0fa62a',
  '02f9c1',
  '001e74',
  '1fdff0',
  '1050af',
  '17490c',
  '17544e',
  '175924',
  '1046f1',
  '1fd6e4',
];
const OTPAUTH_TEXT =
  'otpauth://totp/svc-stt%20console:dr.lee%40clinic.example?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=svc-stt+console&algorithm=SHA1&digits=6&period=30';
const OTPAUTH = [
  '1fce567e452c7f',
  '1057777a8e3641',
  '175fd9d277325d',
  '1759c2efd5755d',
  '174cbcff53045d',
  '1043b291054441',
  '1fd5555555557f',
  '001399d1028800',
  '1054101f7789ce',
  '04330076cfe7fa',
  '1b7f79ac70c370',
  '091aaefb4ad08b',
  '13438e5b5f97d8',
  '1bab67e87b9e29',
  '0063719ccc126c',
  '1820e6bf78ad4d',
  '01787b916f093a',
  '1d0869fbdd8ea3',
  '1650b305af9fe1',
  '0c000c59502b3a',
  '03e6cc7525a97d',
  '1b114771fe7ddd',
  '144bfd1925a1f8',
  '03023c29f9d9a9',
  '1df7d07fb419f1',
  '0d1a45f1e09b19',
  '135ea17526c550',
  '1d1ea5317c191c',
  '05f3e63fcb0bfd',
  '17b11127688e19',
  '126b5e623792d5',
  '06a35656a71bfa',
  '02ff542f2b6027',
  '02bfa737beee72',
  '1bdc915d7fa338',
  '0b3849be42bd51',
  '0bd595f41517e1',
  '12859dc4f3be39',
  '17cb1399325e32',
  '1c2fccfdcc9a0e',
  '184386baeb554e',
  '00090caaf8ded2',
  '1bea857631ca79',
  '0c12b44a1f1639',
  '02799fbfc5edf6',
  '00102431dff514',
  '1fc00155a5cd52',
  '1047ce51420d19',
  '1747b03f455dfb',
  '1744643b5a9ffa',
  '1740c99d3a707b',
  '104aa58f69c3e5',
  '1fdd9a7ec34fd4',
];

const hexRows = (modules: boolean[][]) =>
  modules.map((row) =>
    BigInt(`0b${row.map((dark) => (dark ? '1' : '0')).join('')}`)
      .toString(16)
      .padStart(Math.ceil(row.length / 4), '0'),
  );

t.test('every module as an independent encoder made it (version 1, and version 9 with its version information)', async (t) => {
  t.same(hexRows(qrMatrix('hello world', 3)), HELLO, "'hello world', mask 3");
  t.same(hexRows(qrMatrix(OTPAUTH_TEXT, 5)), OTPAUTH, 'an otpauth:// URI, mask 5');
});

t.test('structure: finder patterns, timing, the format bits of level M and the chosen mask; the smallest version', async (t) => {
  const modules = qrMatrix(OTPAUTH_TEXT);
  const size = modules.length;
  t.equal(size, 53, 'version 9 holds the 153 bytes at level M');
  const finder = ['1111111', '1000001', '1011101', '1011101', '1011101', '1000001', '1111111'];
  const square = (x0: number, y0: number) =>
    modules.slice(y0, y0 + 7).map((row) =>
      row
        .slice(x0, x0 + 7)
        .map((d) => (d ? '1' : '0'))
        .join(''),
    );
  t.same(square(0, 0), finder, 'top left finder');
  t.same(square(size - 7, 0), finder, 'top right finder');
  t.same(square(0, size - 7), finder, 'bottom left finder');
  t.ok(
    modules[6].slice(8, size - 8).every((dark, i) => dark === (i % 2 === 0)),
    'the timing row alternates',
  );
  // The format information around the top left finder (bits 0-14), unmasked, says level M (00) and a mask 0-7.
  const read = [0, 1, 2, 3, 4, 5, 7, 8].map((y) => modules[y][8]).concat([7, 5, 4, 3, 2, 1, 0].map((x) => modules[8][x]));
  const bits = read.reduce((n, dark, i) => n | ((dark ? 1 : 0) << i), 0) ^ 0x5412;
  t.equal(bits >>> 13, 0b00, 'level M');
  const mask = (bits >>> 10) & 7;
  t.same(hexRows(qrMatrix(OTPAUTH_TEXT, mask)), hexRows(modules), `the mask the format bits name (${mask}) is the one applied`);
  t.equal(qrMatrix('a').length, 21, 'a short text: version 1');
  t.equal(qrMatrix('x'.repeat(213)).length, 57, '213 bytes: version 10');
  t.throws(() => qrMatrix('x'.repeat(214)), /too long/);
});

t.test('the SVG: a labelled image, one path, a quiet zone, no style attribute and no script', async (t) => {
  const svg = qrCodeSvg('hello world', 'QR code of "the" link');
  t.match(svg, /^<svg class="qr" role="img" aria-label="QR code of &quot;the&quot; link"/);
  t.match(svg, /viewBox="0 0 29 29"/, '21 modules and 4 either side');
  t.notMatch(svg, /style=|<script|\son[a-z]+=/);
  const dark = qrMatrix('hello world').reduce((n, row) => n + row.filter(Boolean).length, 0);
  t.equal(svg.match(/h1v1h-1z/g)?.length, dark, 'one square per dark module');
});
