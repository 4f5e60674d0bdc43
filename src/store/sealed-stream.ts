// Sealing of blobs (audio, results) as a stream, never whole in memory: a header (magic, data key
// version, an 8-byte random nonce prefix), then frames of up to 64 KiB of plaintext, each AES-256-GCM
// with its own tag. A frame's nonce is the prefix and its counter; its additional data is the header,
// the counter, whether it is the last frame, and the object's identity. So frames cannot be
// reordered, dropped, moved to another object, or cut off at a frame boundary (the last frame left
// was not sealed as the last) without the open failing.
//
// The writer keeps up to one frame back, so the last frame (0 to 64 KiB) is only sealed at the end.
import { createCipheriv, createDecipheriv, createSecretKey, type KeyObject, randomBytes } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';

import { SealingError } from './sealing-error.js';

const MAGIC = Buffer.from('SSS1', 'latin1');
const PREFIX_BYTES = 8;
export const SEALED_STREAM_HEADER_BYTES = MAGIC.length + 4 + PREFIX_BYTES;
export const FRAME_BYTES = 64 * 1024;
const TAG_BYTES = 16;
const STREAM_BUFFER_BYTES = 1024 * 1024;
/** A whole frame as stored: its plaintext's size and its tag. */
export const SEALED_FRAME_BYTES = FRAME_BYTES + TAG_BYTES;

/** The data key version a sealed stream's first bytes name; null when they are not a sealed stream's header. */
export function sealedStreamKeyVersion(head: Buffer): number | null {
  if (head.length < SEALED_STREAM_HEADER_BYTES || !head.subarray(0, MAGIC.length).equals(MAGIC)) return null;
  return head.readUInt32BE(MAGIC.length);
}

/** Plaintext in, sealed bytes out. */
export function sealStream(dataKey: Buffer, keyVersion: number, aad: string): Transform {
  const header = Buffer.alloc(SEALED_STREAM_HEADER_BYTES);
  MAGIC.copy(header);
  header.writeUInt32BE(keyVersion, MAGIC.length);
  randomBytes(PREFIX_BYTES).copy(header, MAGIC.length + 4);
  const frames = new FrameCipher(dataKey, header, aad);
  const pending = new ByteQueue();
  let started = false;
  return new Transform({
    // Room for whole frames on both sides, so sealing runs ahead of the writes (one frame at a time stalled it).
    readableHighWaterMark: STREAM_BUFFER_BYTES,
    writableHighWaterMark: STREAM_BUFFER_BYTES,
    transform(chunk: Buffer, _encoding, done: TransformCallback) {
      if (!started) {
        this.push(header);
        started = true;
      }
      pending.add(chunk);
      // Strictly more than a frame: the frame sealed now is certainly not the last one.
      while (pending.bytes > FRAME_BYTES) for (const part of frames.seal(pending.take(FRAME_BYTES), false)) this.push(part);
      done();
    },
    flush(done: TransformCallback) {
      if (!started) this.push(header);
      for (const part of frames.seal(pending.take(pending.bytes), true)) this.push(part);
      done();
    },
  });
}

/**
 * Chunks waiting to be sealed; taking a frame copies only when it spans chunks, into one scratch
 * buffer (a frame is sealed at once, so it is free again by the next take: no allocation per frame).
 */
class ByteQueue {
  private chunks: Buffer[] = [];
  private readonly scratch = Buffer.allocUnsafe(FRAME_BYTES);
  bytes = 0;

  add(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.chunks.push(chunk);
    this.bytes += chunk.length;
  }

  /** The next `length` (at most FRAME_BYTES) bytes, valid until the next take. */
  take(length: number): Buffer {
    this.bytes -= length;
    const first = this.chunks[0];
    if (first !== undefined && first.length >= length) {
      if (first.length === length) this.chunks.shift();
      else this.chunks[0] = first.subarray(length);
      return first.subarray(0, length);
    }
    const out = this.scratch.subarray(0, length);
    let filled = 0;
    while (filled < length) {
      const next = this.chunks[0]!;
      const used = Math.min(next.length, length - filled);
      next.copy(out, filled, 0, used);
      filled += used;
      if (used === next.length) this.chunks.shift();
      else this.chunks[0] = next.subarray(used);
    }
    return out;
  }
}

/**
 * Sealed bytes in, plaintext out. `keyOf` gives the data key of the version the header names. Errors
 * the stream with SealingError on any mismatch, a missing last frame included. With `plainPassesThrough`,
 * bytes that do not start with a sealed header come out as they are (content stored before sealing).
 */
export function openStream(keyOf: (keyVersion: number) => Promise<Buffer>, aad: string, { plainPassesThrough = false } = {}): Transform {
  let buffered: Buffer = Buffer.alloc(0);
  let frames: FrameCipher | null = null;
  let plain = false;
  const openFrames = function (this: Transform, final: boolean): void {
    if (plain) {
      if (buffered.length > 0) this.push(buffered);
      buffered = Buffer.alloc(0);
      return;
    }
    const sealedFrame = FRAME_BYTES + TAG_BYTES;
    // A whole frame with more bytes after it is not the last; what remains at the end is.
    while (frames && buffered.length > sealedFrame) {
      this.push(frames.open(buffered.subarray(0, sealedFrame), false));
      buffered = buffered.subarray(sealedFrame);
    }
    if (final) {
      if (!frames && plainPassesThrough) {
        plain = true;
        return openFrames.call(this, false);
      }
      if (!frames) throw new SealingError(`${aad}: not a sealed stream (no header)`);
      this.push(frames.open(buffered, true));
      buffered = Buffer.alloc(0);
    }
  };
  return new Transform({
    transform(chunk: Buffer, _encoding, done: TransformCallback) {
      buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
      if (frames === null && !plain && buffered.length >= SEALED_STREAM_HEADER_BYTES) {
        const header = Buffer.from(buffered.subarray(0, SEALED_STREAM_HEADER_BYTES));
        const version = sealedStreamKeyVersion(header);
        if (version === null && plainPassesThrough) {
          plain = true;
          openFrames.call(this, false);
          return done();
        }
        if (version === null) return done(new SealingError(`${aad}: not a sealed stream`));
        buffered = buffered.subarray(SEALED_STREAM_HEADER_BYTES);
        keyOf(version).then(
          (key) => {
            frames = new FrameCipher(key, header, aad);
            try {
              openFrames.call(this, false);
              done();
            } catch (error) {
              done(error as Error);
            }
          },
          (error: unknown) => done(error as Error),
        );
        return;
      }
      try {
        openFrames.call(this, false);
        done();
      } catch (error) {
        done(error as Error);
      }
    },
    flush(done: TransformCallback) {
      try {
        openFrames.call(this, true);
        done();
      } catch (error) {
        done(error as Error);
      }
    },
  });
}

/** The plaintext size of a sealed stream of `sealedBytes` (the inverse of sealedStreamBytes); null when no sealed stream has that size. */
export function plainStreamBytes(sealedBytes: number): number | null {
  const body = sealedBytes - SEALED_STREAM_HEADER_BYTES;
  if (body < TAG_BYTES) return null;
  const whole = Math.floor(body / SEALED_FRAME_BYTES);
  const rest = body % SEALED_FRAME_BYTES;
  if (rest === 0) return whole * FRAME_BYTES; // the last frame is a full one
  return rest < TAG_BYTES ? null : whole * FRAME_BYTES + rest - TAG_BYTES;
}

/**
 * Opens frame `index` of a sealed stream on its own (a byte range read without the frames before it):
 * `sealed` is that frame's bytes, at SEALED_STREAM_HEADER_BYTES + index * SEALED_FRAME_BYTES.
 */
export function openFrameAt(dataKey: Buffer, header: Buffer, aad: string, index: number, sealed: Buffer, last: boolean): Buffer {
  return new FrameCipher(dataKey, header, aad, index).open(sealed, last);
}

/** The sealed size of `plainBytes` of content: header, frames, one tag a frame (the last may be empty). */
export function sealedStreamBytes(plainBytes: number): number {
  const frames = Math.max(1, Math.ceil(plainBytes / FRAME_BYTES));
  return SEALED_STREAM_HEADER_BYTES + plainBytes + frames * TAG_BYTES;
}

class FrameCipher {
  private readonly aad: Buffer;
  /** Made once: a raw key given to createCipheriv is turned into a key object for every frame. */
  private readonly key: KeyObject;

  constructor(
    key: Buffer,
    private readonly header: Buffer,
    aad: string,
    private counter = 0,
  ) {
    this.key = createSecretKey(key);
    this.aad = Buffer.from(aad, 'utf8');
  }

  /** The sealed frame: its ciphertext, then its tag (pushed as they are, not copied together). */
  seal(plain: Buffer, last: boolean): Buffer[] {
    const cipher = createCipheriv('aes-256-gcm', this.key, this.nonce(), { authTagLength: TAG_BYTES });
    cipher.setAAD(this.frameAad(last));
    this.counter++;
    const sealed = cipher.update(plain);
    cipher.final(); // GCM: no bytes held back
    return [sealed, cipher.getAuthTag()];
  }

  open(sealed: Buffer, last: boolean): Buffer {
    if (sealed.length < TAG_BYTES) throw new SealingError(`${this.aad.toString('utf8')}: the sealed stream is cut short`);
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, this.nonce(), { authTagLength: TAG_BYTES });
      decipher.setAAD(this.frameAad(last));
      decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
      const plain = Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - TAG_BYTES)), decipher.final()]);
      this.counter++;
      return plain;
    } catch (error) {
      throw new SealingError(`${this.aad.toString('utf8')}: frame ${this.counter} does not open (changed, reordered, cut short, moved, or another key)`, {
        cause: error,
      });
    }
  }

  private nonce(): Buffer {
    const nonce = Buffer.alloc(12);
    this.header.copy(nonce, 0, MAGIC.length + 4);
    nonce.writeUInt32BE(this.counter, PREFIX_BYTES);
    return nonce;
  }

  private frameAad(last: boolean): Buffer {
    const position = Buffer.alloc(5);
    position.writeUInt32BE(this.counter, 0);
    position[4] = last ? 1 : 0;
    return Buffer.concat([this.header, position, this.aad]);
  }
}
