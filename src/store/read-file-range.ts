// Reads part of a local file: the blob stores' readRange for what is on disk.
import { open } from 'node:fs/promises';

/** `length` bytes at `offset` (fewer at the end, none past it); a missing file fails with ENOENT. */
export async function readFileRange(path: string, offset: number, length: number): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, offset);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}
