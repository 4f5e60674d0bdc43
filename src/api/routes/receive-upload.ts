// Streams a multipart direct upload to durable storage: the single `file` part goes to the blob
// store's upload file while its bytes are counted and hashed; other parts are collected as text
// fields (each at most once, each whole). Enforces the size cap (@fastify/multipart truncates
// silently, so the flags are checked), an RFC 2046 boundary, and the upload monitor. A failed upload (refused, cut off,
// or a storage fault) leaves no file behind.
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { rm } from 'node:fs/promises';
import { Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

import type { FastifyRequest } from 'fastify';

import type { BlobStore } from '../../store/blob-store.js';
import type { ApiError } from '../api-error.js';
import { API_REFUSALS } from '../api-refusals.js';
import { multipartBoundary } from '../multipart-boundary.js';
import { type UploadLimits, UploadMonitor } from './upload-monitor.js';

export interface ReceivedUpload {
  path: string;
  bytes: number;
  sha256: string;
  filename: string;
  declaredType: string;
  fields: Record<string, string>;
}

/** The longest form field value the route reads (busboy's fieldSize). */
const MAX_FIELD_BYTES = 1024 * 1024;

export async function receiveUpload(
  request: FastifyRequest,
  blobs: Pick<BlobStore, 'createUploadStream'>,
  targetPath: string,
  limits: UploadLimits & { maxBytes: number; largerFileAdvice?: string },
): Promise<ReceivedUpload> {
  if (!request.isMultipart()) throw API_REFUSALS.notMultipart();
  // Refused before busboy sees it (it throws a plain Error, a 500, on boundaries over 256 characters).
  if (multipartBoundary(request.headers['content-type']) === null) {
    throw API_REFUSALS.badBoundary();
  }
  // A declared length above the cap is refused before a byte is stored.
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limits.maxBytes + 1024 * 1024) throw API_REFUSALS.tooLarge(limits.maxBytes, limits.largerFileAdvice);

  const fields: Record<string, string> = {};
  const arrays: Record<string, string[]> = {};
  // Held in an object so TypeScript does not narrow it across the async reader below.
  const received: { file: Omit<ReceivedUpload, 'fields'> | null } = { file: null };
  const parts = request.parts({ limits: { fileSize: limits.maxBytes, files: 1, fields: 32, fieldSize: MAX_FIELD_BYTES, parts: 40 } });
  let currentFile: { destroy(error?: Error): void } | null = null;
  let target: Writable | null = null;
  let rejectStalled: (error: ApiError) => void = () => {};
  const stalled = new Promise<never>((_, reject) => {
    rejectStalled = reject;
  });
  stalled.catch(() => {});
  const monitor = new UploadMonitor(request.raw, limits, (error) => {
    // Stop writing the file and answer now; the connection closes after the response because the
    // rest of the body is never read.
    currentFile?.destroy(error);
    request.raw.unpipe();
    rejectStalled(error);
  });
  try {
    await Promise.race([stalled, readParts()]);
  } catch (error) {
    // A file stream destroyed before its open completed still creates the file: wait for it to close,
    // or the removal could run first and leave the partial file behind.
    const stream = target as Writable | null;
    if (stream && !stream.closed) {
      stream.destroy();
      await once(stream, 'close').catch(() => {});
    }
    await rm(targetPath, { force: true });
    throw error;
  } finally {
    monitor.stop();
  }

  async function readParts(): Promise<void> {
    for await (const part of parts) {
      if (part.type === 'file') {
        if (part.fieldname !== 'file' || received.file) {
          part.file.resume();
          throw API_REFUSALS.notOneFile();
        }
        currentFile = part.file as unknown as { destroy(error?: Error): void };
        const hash = createHash('sha256');
        let bytes = 0;
        const tap = new Transform({
          transform(chunk: Buffer, _enc, done) {
            bytes += chunk.length;
            hash.update(chunk);
            done(null, chunk);
          },
        });
        target = blobs.createUploadStream(targetPath);
        await pipeline(part.file, tap, target);
        if (part.file.truncated) throw API_REFUSALS.tooLarge(limits.maxBytes, limits.largerFileAdvice);
        received.file = { path: targetPath, bytes, sha256: hash.digest('hex'), filename: part.filename ?? '', declaredType: part.mimetype ?? '' };
        currentFile = null;
      } else {
        // busboy cuts a value at fieldSize and says so (and would a name); acting on the cut value
        // would serve a request the client did not send. 400 rather than 422 for a known field: the
        // value was never read whole, so the refusal is of the form (like too many fields), not of
        // the field's content.
        if (part.valueTruncated || part.fieldnameTruncated) throw API_REFUSALS.fieldTooLong(MAX_FIELD_BYTES);
        // Taking the first or the last of two values would be a silent guess at what the client meant.
        const value = typeof part.value === 'string' ? part.value : String(part.value);
        // OpenAI's array fields (`name[]`) repeat by design: their values are kept as one JSON array.
        if (part.fieldname.endsWith('[]')) {
          arrays[part.fieldname] = [...(arrays[part.fieldname] ?? []), value];
          fields[part.fieldname] = JSON.stringify(arrays[part.fieldname]);
          continue;
        }
        if (Object.hasOwn(fields, part.fieldname)) throw API_REFUSALS.repeatedField();
        fields[part.fieldname] = value;
      }
    }
  }
  const file = received.file;
  if (!file) throw API_REFUSALS.missingFile();
  if (file.bytes === 0) {
    await rm(targetPath, { force: true });
    throw API_REFUSALS.emptyFile();
  }
  return { ...file, fields };
}
