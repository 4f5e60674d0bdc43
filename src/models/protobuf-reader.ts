// A minimal reader of the protocol buffers wire format: enough to walk an ONNX file's messages without a
// protobuf library or the .proto schema. Messages are read field by field; a caller picks the field
// numbers it knows and ignores the rest, which is how protobuf stays compatible across schema versions.

export class ProtobufError extends Error {
  override readonly name = 'ProtobufError';
}

/** The wire types of the encoding (groups, 3 and 4, are obsolete and never appear in ONNX). */
export const WireType = { varint: 0, fixed64: 1, lengthDelimited: 2, fixed32: 5 } as const;

export type ProtobufField =
  | { readonly number: number; readonly wireType: 0; readonly value: bigint }
  | { readonly number: number; readonly wireType: 1 | 2 | 5; readonly value: Uint8Array };

/** The fields of one message, in file order (a repeated field appears once per element). */
export function* messageFields(bytes: Uint8Array): Generator<ProtobufField> {
  const reader = new WireReader(bytes);
  while (!reader.atEnd) {
    const key = reader.varint();
    const number = Number(key >> 3n);
    const wireType = Number(key & 7n);
    if (number < 1) throw new ProtobufError(`field number ${number} at byte ${reader.offset}`);
    switch (wireType) {
      case WireType.varint:
        yield { number, wireType, value: reader.varint() };
        break;
      case WireType.fixed64:
        yield { number, wireType, value: reader.bytes(8) };
        break;
      case WireType.lengthDelimited:
        yield { number, wireType, value: reader.bytes(reader.length()) };
        break;
      case WireType.fixed32:
        yield { number, wireType, value: reader.bytes(4) };
        break;
      default:
        throw new ProtobufError(`unsupported wire type ${wireType} for field ${number} at byte ${reader.offset}`);
    }
  }
}

/** A varint field as a signed 64-bit value (int32 and int64 fields store negatives in ten bytes). */
export function int64Value(field: ProtobufField): number {
  if (field.wireType !== WireType.varint) throw new ProtobufError(`field ${field.number} is not a varint`);
  const value = BigInt.asIntN(64, field.value);
  if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < BigInt(Number.MIN_SAFE_INTEGER)) {
    throw new ProtobufError(`field ${field.number} holds ${value}, beyond a safe integer`);
  }
  return Number(value);
}

export function bytesValue(field: ProtobufField): Uint8Array {
  if (field.wireType !== WireType.lengthDelimited) throw new ProtobufError(`field ${field.number} is not length-delimited`);
  return field.value;
}

export function stringValue(field: ProtobufField): string {
  return new TextDecoder('utf-8', { fatal: true }).decode(bytesValue(field));
}

/**
 * A repeated 64-bit integer field, whichever way it was written: packed (one length-delimited run of
 * varints, proto3's default) or one varint per element. Appends to `into`.
 */
export function appendInt64s(field: ProtobufField, into: number[]): void {
  if (field.wireType === WireType.varint) {
    into.push(int64Value(field));
    return;
  }
  const reader = new WireReader(bytesValue(field));
  while (!reader.atEnd) into.push(int64Value({ number: field.number, wireType: WireType.varint, value: reader.varint() }));
}

/** A repeated float field, packed (a run of little-endian binary32) or one fixed32 per element. Appends to `into`. */
export function appendFloats(field: ProtobufField, into: number[]): void {
  const bytes = field.wireType === WireType.fixed32 ? field.value : bytesValue(field);
  if (bytes.length % 4 !== 0) throw new ProtobufError(`packed floats of field ${field.number} are ${bytes.length} bytes long`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let offset = 0; offset < bytes.length; offset += 4) into.push(view.getFloat32(offset, true));
}

class WireReader {
  offset = 0;

  constructor(private readonly data: Uint8Array) {}

  get atEnd(): boolean {
    return this.offset >= this.data.length;
  }

  varint(): bigint {
    let result = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      if (this.offset >= this.data.length) throw new ProtobufError('the message ends inside a varint');
      const byte = this.data[this.offset++];
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
    }
    throw new ProtobufError(`varint longer than ten bytes at byte ${this.offset}`);
  }

  length(): number {
    const length = this.varint();
    if (length > BigInt(this.data.length - this.offset)) {
      throw new ProtobufError(`a length-delimited field of ${length} bytes runs past the end of its message at byte ${this.offset}`);
    }
    return Number(length);
  }

  bytes(n: number): Uint8Array {
    if (this.offset + n > this.data.length) throw new ProtobufError(`the message ends inside a ${n}-byte field`);
    const view = this.data.subarray(this.offset, this.offset + n);
    this.offset += n;
    return view;
  }
}
