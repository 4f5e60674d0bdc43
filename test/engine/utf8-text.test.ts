import t from 'tap';

import { decodeTokenBytes, Utf8Assembler } from '../../src/engine/utf8-text.js';

t.test('joins a character split across tokens and credits the completing token', async (t) => {
  const bytes = Buffer.from('café ü 日本', 'utf8');
  const a = new Utf8Assembler();
  const parts = [...bytes].map((b) => a.push(new Uint8Array([b])));
  t.equal(parts.join(''), 'café ü 日本');
  // 'é' is two bytes: the first gives nothing, the second gives the letter.
  const eStart = Buffer.from('caf').length;
  t.equal(parts[eStart], '');
  t.equal(parts[eStart + 1], 'é');
});

t.test('drops invalid bytes instead of emitting U+FFFD', async (t) => {
  const out = decodeTokenBytes(new Uint8Array([0x61, 0x80, 0xff, 0xc3, 0x62, 0xe6, 0x97, 0xa5]));
  t.equal(out, 'ab日');
  t.notOk(out.includes('\uFFFD'));
});

t.test('rejects overlong and surrogate encodings', async (t) => {
  t.equal(decodeTokenBytes(new Uint8Array([0xc0, 0xaf, 0xe0, 0x80, 0xaf, 0xed, 0xa0, 0x80, 0x7a])), 'z');
  t.equal(decodeTokenBytes(new Uint8Array([0xf0, 0x9f, 0x98, 0x80])), '😀');
});

t.test('an unfinished sequence at the end is dropped on flush', async (t) => {
  const a = new Utf8Assembler();
  t.equal(a.push(new Uint8Array([0x41, 0xe6, 0x97])), 'A');
  a.flush();
  t.equal(a.push(new Uint8Array([0xa5, 0x42])), 'B');
});
