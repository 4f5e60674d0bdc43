// Byte ranges of a sealed blob's plaintext, read without the rest of it: frames sit at fixed offsets
// (sealed-stream.ts), so a range opens only the frames it covers. What the container sniffer's first
// bytes and ffmpeg's seeks over the loopback audio source (sealed-audio-server.ts) read.
import type { BlobStore } from './blob-store.js';
import { FRAME_BYTES, openFrameAt, plainStreamBytes, SEALED_FRAME_BYTES, SEALED_STREAM_HEADER_BYTES, sealedStreamKeyVersion } from './sealed-stream.js';
import { SealingError } from './sealing-error.js';

export class SealedBlobRange {
  private constructor(
    private readonly raw: Pick<BlobStore, 'readRange'>,
    private readonly ref: string,
    private readonly aad: string,
    private readonly header: Buffer,
    private readonly key: Buffer,
    /** The plaintext's size. */
    readonly plainBytes: number,
  ) {}

  /** The sealed blob at `ref`, or null when the blob there is not sealed (stored before sealing). */
  static async open(
    raw: Pick<BlobStore, 'readRange' | 'size'>,
    ref: string,
    aad: string,
    keyOf: (version: number) => Promise<Buffer>,
  ): Promise<SealedBlobRange | null> {
    const header = await raw.readRange(ref, 0, SEALED_STREAM_HEADER_BYTES);
    const version = sealedStreamKeyVersion(header);
    if (version === null) return null;
    const plainBytes = plainStreamBytes(await raw.size(ref));
    if (plainBytes === null) throw new SealingError(`${aad}: the sealed blob is cut short`);
    return new SealedBlobRange(raw, ref, aad, header, await keyOf(version), plainBytes);
  }

  /** `length` bytes of plaintext at `offset` (fewer at the end, none past it); holds the frames they span. */
  async read(offset: number, length: number): Promise<Buffer> {
    const end = Math.min(offset + length, this.plainBytes);
    if (end <= offset) return Buffer.alloc(0);
    const first = Math.floor(offset / FRAME_BYTES);
    const last = Math.floor((end - 1) / FRAME_BYTES);
    const lastOfBlob = this.frameCount() - 1;
    const sealed = await this.raw.readRange(this.ref, SEALED_STREAM_HEADER_BYTES + first * SEALED_FRAME_BYTES, (last - first + 1) * SEALED_FRAME_BYTES);
    const plain: Buffer[] = [];
    for (let index = first; index <= last; index++) {
      const at = (index - first) * SEALED_FRAME_BYTES;
      plain.push(openFrameAt(this.key, this.header, this.aad, index, sealed.subarray(at, at + SEALED_FRAME_BYTES), index === lastOfBlob));
    }
    const all = Buffer.concat(plain);
    return all.subarray(offset - first * FRAME_BYTES, end - first * FRAME_BYTES);
  }

  /** Frames of the blob: an empty or frame-aligned plaintext still ends with one (possibly empty) last frame. */
  private frameCount(): number {
    return Math.max(1, Math.ceil(this.plainBytes / FRAME_BYTES));
  }
}
