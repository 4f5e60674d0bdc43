// The wire-format reader under the ONNX reader, on hand-encoded messages: both encodings of repeated
// fields that ONNX writers use, negative int64s, and malformed input as a typed error.
import tap from 'tap';

import { appendFloats, appendInt64s, int64Value, messageFields, ProtobufError, stringValue } from '../../src/models/protobuf-reader.js';

const fields = (bytes: number[]) => [...messageFields(Uint8Array.from(bytes))];

tap.test('varints, strings and negative int64s', async (t) => {
  // field 1 varint 300; field 2 "hi"; field 3 varint -1 (ten bytes, two's complement).
  const [a, b, c] = fields([0x08, 0xac, 0x02, 0x12, 0x02, 0x68, 0x69, 0x18, ...Array(9).fill(0xff), 0x01]);
  t.equal(int64Value(a), 300);
  t.equal(stringValue(b), 'hi');
  t.equal(int64Value(c), -1);
  t.throws(() => stringValue(a), ProtobufError, 'a varint is not a string');
});

tap.test('repeated int64s, packed or one per element', async (t) => {
  const dims: number[] = [];
  // packed: field 1, 3 bytes: 258, 1 ; then unpacked: field 1 varint 256.
  for (const field of fields([0x0a, 0x03, 0x82, 0x02, 0x01, 0x08, 0x80, 0x02])) appendInt64s(field, dims);
  t.same(dims, [258, 1, 256]);
});

tap.test('repeated floats, packed or fixed32 per element', async (t) => {
  const values: number[] = [];
  const one = [0x00, 0x00, 0x80, 0x3f];
  const minusTwo = [0x00, 0x00, 0x00, 0xc0];
  for (const field of fields([0x22, 0x08, ...one, ...minusTwo, 0x25, ...one])) appendFloats(field, values);
  t.same(values, [1, -2, 1]);
});

tap.test('malformed messages', async (t) => {
  t.throws(() => fields([0x08]), ProtobufError, 'ends inside a varint');
  t.throws(() => fields([0x12, 0x05, 0x68]), ProtobufError, 'a length past the end');
  t.throws(() => fields([0x1d, 0x00, 0x00]), ProtobufError, 'a cut fixed32');
  t.throws(() => fields([0x0b]), ProtobufError, 'the obsolete group wire type');
  t.throws(() => fields([0x00, 0x00]), ProtobufError, 'field number 0');
  t.throws(() => fields([0x08, ...Array(10).fill(0xff), 0x01]), ProtobufError, 'a varint of eleven bytes');
  t.throws(() => appendFloats(fields([0x22, 0x03, 0, 0, 0])[0], []), ProtobufError, 'packed floats of 3 bytes');
});
