// Sequential writes to a file through two alternating chunk buffers: the caller fills one buffer while
// the other is being written, so generating hundreds of megabytes overlaps with disk I/O yet never
// holds more than two chunks in memory.
import type { FileHandle } from 'node:fs/promises';

export class ChunkedFileWriter {
  private readonly buffers: [Buffer, Buffer];
  private current = 0;
  private used = 0;
  private pending: Promise<unknown> = Promise.resolve();
  private written = 0;

  constructor(
    private readonly handle: FileHandle,
    chunkBytes = 4 * 1024 * 1024,
  ) {
    this.buffers = [Buffer.allocUnsafe(chunkBytes), Buffer.allocUnsafe(chunkBytes)];
  }

  /** Bytes handed to write() so far. */
  get position(): number {
    return this.written;
  }

  async write(bytes: Uint8Array): Promise<void> {
    let offset = 0;
    while (offset < bytes.length) {
      const buffer = this.buffers[this.current];
      const n = Math.min(bytes.length - offset, buffer.length - this.used);
      buffer.set(bytes.subarray(offset, offset + n), this.used);
      this.used += n;
      offset += n;
      this.written += n;
      if (this.used === buffer.length) await this.flushCurrent();
    }
  }

  async int32(...values: number[]): Promise<void> {
    const bytes = Buffer.allocUnsafe(4 * values.length);
    values.forEach((v, i) => bytes.writeInt32LE(v, 4 * i));
    await this.write(bytes);
  }

  /** Writes what is buffered and waits for every write to finish. */
  async finish(): Promise<void> {
    await this.flushCurrent();
    await this.pending;
  }

  private async flushCurrent(): Promise<void> {
    if (this.used === 0) return;
    const buffer = this.buffers[this.current];
    const length = this.used;
    // At most one write in flight: wait for it before its buffer could be refilled.
    await this.pending;
    this.pending = writeFully(this.handle, buffer, length);
    // Its failure is reported by the next flush or finish(); until then it is not "unhandled".
    this.pending.catch(() => {});
    this.current = 1 - this.current;
    this.used = 0;
  }
}

async function writeFully(handle: FileHandle, buffer: Buffer, length: number): Promise<void> {
  let offset = 0;
  while (offset < length) {
    const { bytesWritten } = await handle.write(buffer, offset, length - offset);
    offset += bytesWritten;
  }
}
