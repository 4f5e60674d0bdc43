// A storage fault at the blob store boundary: a write stream that really writes the first
// `afterBytes` bytes to the real stream (so a partial file exists on disk) and then fails with
// `error`, the way a disk that fills up mid-upload does. Closing it closes the real stream first.
import { Writable } from 'node:stream';

export function failingWriteStream(real: Writable & { closed: boolean }, afterBytes: number, error: () => Error): Writable {
  let written = 0;
  return new Writable({
    write(chunk: Buffer, _enc, done) {
      const room = afterBytes - written;
      written += chunk.length;
      if (room < chunk.length) return real.write(chunk.subarray(0, Math.max(0, room)), () => done(error()));
      real.write(chunk, done);
    },
    final(done) {
      real.end(done);
    },
    destroy(cause, done) {
      if (real.closed) return done(cause);
      real.once('close', () => done(cause));
      real.destroy();
    },
  });
}

/** An errno-style error, as node:fs raises them. */
export function systemError(code: 'ENOSPC' | 'EACCES'): NodeJS.ErrnoException {
  return Object.assign(new Error(code === 'ENOSPC' ? 'no space left on device' : 'permission denied'), { code, errno: code === 'ENOSPC' ? -28 : -13 });
}
