// Where ffmpeg reads sealed job audio: an HTTP server on 127.0.0.1 in the process, started on first
// use, that serves the plaintext of one blob per unguessable URL (a random token, valid as long as a
// presigned URL would be), answering Range requests by opening only the frames they cover, a batch
// at a time as the reader takes them. ffmpeg keeps seeking (`-ss`, an MP4 index at the end) as it does
// over a presigned S3 URL, and no process holds a recording whole. It never keeps the process alive,
// and SealedBlobStore.close stops it.
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { AudioSource } from './blob-store.js';
import type { SealedBlobRange } from './sealed-blob-range.js';

const DEFAULT_SECONDS = 15 * 60;
/** Plaintext read per batch while a response streams (16 frames). */
const BATCH_BYTES = 1024 * 1024;

interface Grant {
  range: SealedBlobRange;
  expiresAtMs: number;
}

export class SealedAudioServer {
  private readonly grants = new Map<string, Grant>();
  private readonly server: Server;
  private readonly listening: Promise<void>;

  constructor() {
    this.server = createServer((request, response) => void this.answer(request, response));
    this.server.unref();
    this.server.listen(0, '127.0.0.1');
    this.listening = once(this.server, 'listening').then(() => undefined);
  }

  /** A URL serving `range`'s plaintext for `seconds`. */
  async serve(range: SealedBlobRange, label: string, seconds = DEFAULT_SECONDS): Promise<AudioSource> {
    await this.listening;
    const now = Date.now();
    for (const [token, grant] of this.grants) if (grant.expiresAtMs <= now) this.grants.delete(token);
    const token = randomBytes(24).toString('base64url');
    this.grants.set(token, { range, expiresAtMs: now + seconds * 1000 });
    const { port } = this.server.address() as AddressInfo;
    return { kind: 'url', url: `http://127.0.0.1:${port}/${token}`, label: `sealed:${label}` };
  }

  close(): void {
    this.grants.clear();
    this.server.close();
    this.server.closeAllConnections();
  }

  private async answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const grant = this.grants.get((request.url ?? '').slice(1));
    if (!grant || grant.expiresAtMs <= Date.now()) return void response.writeHead(404).end();
    if (request.method !== 'GET' && request.method !== 'HEAD') return void response.writeHead(405, { allow: 'GET, HEAD' }).end();
    const size = grant.range.plainBytes;
    const asked = byteRange(request.headers.range, size);
    if (asked === 'unsatisfiable') return void response.writeHead(416, { 'content-range': `bytes */${size}` }).end();
    const [start, end] = asked ?? [0, size - 1];
    response.writeHead(asked ? 206 : 200, {
      'accept-ranges': 'bytes',
      'content-type': 'application/octet-stream',
      'content-length': String(Math.max(0, end - start + 1)),
      ...(asked ? { 'content-range': `bytes ${start}-${end}/${size}` } : {}),
    });
    if (request.method === 'HEAD') return void response.end();
    try {
      for (let at = start; at <= end && !response.destroyed; at += BATCH_BYTES) {
        const bytes = await grant.range.read(at, Math.min(BATCH_BYTES, end - at + 1));
        if (!response.write(bytes) && !response.destroyed) await Promise.race([once(response, 'drain'), once(response, 'close')]);
      }
      response.end();
    } catch {
      // Damaged or unreadable: cut the response short, so ffmpeg fails rather than reads a partial file as whole.
      response.destroy();
    }
  }
}

/** A single `bytes=a-b`, `bytes=a-` or `bytes=-n` range within `size`; null when none was asked. */
function byteRange(header: string | undefined, size: number): [number, number] | 'unsatisfiable' | null {
  const match = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  if (!match || (match[1] === '' && match[2] === '')) return null;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    return suffix === 0 || size === 0 ? 'unsatisfiable' : [Math.max(0, size - suffix), size - 1];
  }
  const start = Number(match[1]);
  const end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  return start >= size || end < start ? 'unsatisfiable' : [start, end];
}
