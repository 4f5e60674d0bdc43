// An object's bytes as a Readable returned synchronously (BlobStore.openResult's shape, like
// fs.createReadStream): the GET starts at the first read, the body keeps the reader's pace
// (backpressure pauses it), failures arrive as the stream's error (already the store's own error
// types), and destroying the stream aborts the request.
import { Readable } from 'node:stream';

/** Starts the request; resolves with the body, or rejects with the error the stream should carry. */
export type OpenObjectBody = (signal: AbortSignal) => Promise<Readable>;

export class ObjectReadStream extends Readable {
  private body: Readable | null = null;
  private started = false;
  private readonly abort = new AbortController();

  constructor(
    private readonly open: OpenObjectBody,
    /** Turns a body's mid-transfer failure into the store's error. */
    private readonly mapError: (error: unknown) => unknown,
  ) {
    super();
  }

  override _read(): void {
    if (this.started) {
      this.body?.resume();
      return;
    }
    this.started = true;
    this.open(this.abort.signal).then(
      (body) => {
        if (this.destroyed) {
          body.destroy();
          return;
        }
        this.body = body;
        body.on('data', (chunk: Buffer) => {
          if (!this.push(chunk)) body.pause();
        });
        body.once('end', () => this.push(null));
        body.once('error', (error) => this.destroy(asError(this.mapError(error))));
      },
      (error: unknown) => this.destroy(asError(error)),
    );
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.abort.abort();
    this.body?.destroy();
    callback(error);
  }
}

function asError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}
