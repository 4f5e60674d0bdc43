// Forward reading of a binary file through a small window, with positional reads: parsing a model's
// header and walking its tensor headers touches a few hundred kilobytes of a file of gigabytes.
import type { FileHandle } from 'node:fs/promises';

export class EndOfFileError extends Error {
  constructor(
    readonly what: string,
    readonly position: number,
    readonly needed: number,
  ) {
    super(`file ends while reading ${what}`);
  }
}

export class FileCursor {
  private window = Buffer.alloc(0);
  private windowStart = 0;
  position = 0;

  constructor(
    private readonly handle: FileHandle,
    readonly fileSize: number,
    private readonly windowBytes = 64 * 1024,
  ) {}

  get remaining(): number {
    return this.fileSize - this.position;
  }

  async int32(what: string): Promise<number> {
    return (await this.bytes(4, what)).readInt32LE(0);
  }

  async uint32(what: string): Promise<number> {
    return (await this.bytes(4, what)).readUInt32LE(0);
  }

  /** The next n bytes (a view valid until the next read). */
  async bytes(n: number, what: string): Promise<Buffer> {
    if (n > this.remaining) throw new EndOfFileError(what, this.position, n);
    const offset = this.position - this.windowStart;
    if (offset < 0 || offset + n > this.window.length) await this.fill(n);
    const start = this.position - this.windowStart;
    this.position += n;
    return this.window.subarray(start, start + n);
  }

  /** Up to n bytes from the current position, without advancing (fewer only at the end of the file). */
  async peek(n: number): Promise<Buffer> {
    const length = Math.min(n, this.remaining);
    const offset = this.position - this.windowStart;
    if (offset < 0 || offset + length > this.window.length) await this.fill(length);
    const start = this.position - this.windowStart;
    return this.window.subarray(start, start + length);
  }

  skip(n: number, what: string): void {
    if (n > this.remaining) throw new EndOfFileError(what, this.position, n);
    this.position += n;
  }

  private async fill(atLeast: number): Promise<void> {
    const length = Math.min(Math.max(atLeast, this.windowBytes), this.remaining);
    const window = Buffer.allocUnsafe(length);
    let done = 0;
    while (done < length) {
      const { bytesRead } = await this.handle.read(window, done, length - done, this.position + done);
      if (bytesRead === 0) throw new EndOfFileError('data (the file shrank while being read)', this.position + done, length - done);
      done += bytesRead;
    }
    this.window = window;
    this.windowStart = this.position;
  }
}
