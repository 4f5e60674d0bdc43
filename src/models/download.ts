// Downloads a model named in the manifest: resumable (a .part file and an HTTP Range request), hashed
// while streaming, verified against the manifest's published checksum, and renamed into place only
// once verified, so the models directory never holds a partial or unverified ggml-NAME.bin.
import { createHash, type Hash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { type FileHandle, mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

import { findManifestEntry, loadManifest, type ManifestEntry, type ModelManifest } from './manifest.js';

export interface DownloadProgress {
  /** Bytes of the file on disk so far, including bytes from an earlier, resumed attempt. */
  receivedBytes: number;
  /** The file's full size, when the server or the manifest tells it. */
  totalBytes?: number;
}

export interface DownloadOptions {
  /** Directory that receives ggml-NAME.bin (created if missing). */
  dir: string;
  onProgress?: (progress: DownloadProgress) => void;
  /** Refuse a model without a published checksum, and check the one it has (default true). */
  verify?: boolean;
  fetchImpl?: typeof fetch;
  /** Defaults to models/manifest.json. */
  manifest?: ModelManifest;
  /** Fetch from this base URL instead of the manifest's host (a mirror): BASE/ggml-NAME.bin. */
  baseUrl?: string;
  /** Give up when no data arrives for this long (default 60 s). */
  idleTimeoutMs?: number;
  signal?: AbortSignal;
}

export type ModelDownloadErrorCode = 'unknown_model' | 'unverifiable' | 'unreachable' | 'http_error' | 'interrupted' | 'size_mismatch' | 'checksum_mismatch';

export class ModelDownloadError extends Error {
  override readonly name = 'ModelDownloadError';

  constructor(
    readonly code: ModelDownloadErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

const OFFLINE_HINT = 'download the file elsewhere and pass its path with SVC_MODEL';

/** Downloads (or resumes) model `name` into options.dir and returns the final path. */
export async function downloadModel(name: string, options: DownloadOptions): Promise<string> {
  const manifest = options.manifest ?? (await loadManifest());
  const entry = findManifestEntry(manifest, name);
  if (!entry) {
    throw new ModelDownloadError('unknown_model', `unknown model '${name}'; known models: ${manifest.models.map((m) => m.name).join(', ')}`);
  }
  const verify = options.verify ?? true;
  const expected = expectedDigest(entry);
  if (verify && !expected) {
    throw new ModelDownloadError('unverifiable', `no published checksum is known for '${name}'; pass --no-verify to download it unverified`);
  }

  await mkdir(options.dir, { recursive: true });
  const finalPath = join(options.dir, entry.file);
  const partPath = `${finalPath}.part`;
  const url = options.baseUrl ? `${options.baseUrl.replace(/\/+$/, '')}/${entry.file}` : entry.url;

  if (await alreadyDownloaded(finalPath, entry, verify ? expected : undefined, options)) return finalPath;
  const digest = await transferToPart(url, partPath, entry, expected?.algorithm ?? 'sha256', options);

  if (entry.sizeBytes !== undefined && digest.size !== entry.sizeBytes) {
    await rm(partPath, { force: true });
    throw new ModelDownloadError(
      'size_mismatch',
      `${entry.file}: received ${digest.size} bytes, the manifest says ${entry.sizeBytes}; the partial file was removed`,
    );
  }
  if (verify && expected && digest.hex !== expected.hex) {
    // A resumed file with a bad prefix can never verify: start from zero next time.
    await rm(partPath, { force: true });
    throw new ModelDownloadError(
      'checksum_mismatch',
      `${entry.file}: ${expected.algorithm} is ${digest.hex}, expected ${expected.hex}; the download was removed`,
    );
  }
  await rename(partPath, finalPath);
  return finalPath;
}

/** A final file exists only after a verified (or explicitly unverified) download; re-check it cheaply. */
async function alreadyDownloaded(finalPath: string, entry: ManifestEntry, expected: ExpectedDigest | undefined, options: DownloadOptions): Promise<boolean> {
  const size = await fileSize(finalPath);
  if (size === 0 || (entry.sizeBytes !== undefined && size !== entry.sizeBytes)) return false;
  if (expected) {
    const hash = createHash(expected.algorithm);
    await hashFile(finalPath, hash);
    if (hash.digest('hex') !== expected.hex) return false; // replaced, atomically, by a fresh download
  }
  options.onProgress?.({ receivedBytes: size, totalBytes: size });
  return true;
}

interface ExpectedDigest {
  algorithm: 'sha256' | 'sha1';
  hex: string;
}

function expectedDigest(entry: ManifestEntry): ExpectedDigest | undefined {
  if (entry.sha256) return { algorithm: 'sha256', hex: entry.sha256 };
  if (entry.sha1) return { algorithm: 'sha1', hex: entry.sha1 };
  return undefined;
}

/**
 * Brings the .part file to the full file and returns its digest. Resumes from the bytes already in
 * the .part file; if the server ignores the Range request (200), starts over.
 */
async function transferToPart(
  url: string,
  partPath: string,
  entry: ManifestEntry,
  algorithm: 'sha256' | 'sha1',
  options: DownloadOptions,
): Promise<{ size: number; hex: string }> {
  let offset = await fileSize(partPath);
  if (entry.sizeBytes !== undefined && offset > entry.sizeBytes) {
    await rm(partPath, { force: true });
    offset = 0;
  }
  const hash = createHash(algorithm);
  if (offset > 0) await hashFile(partPath, hash);
  // A .part as big as the published file is a download that ended before its rename: just verify it.
  if (entry.sizeBytes !== undefined && offset === entry.sizeBytes) {
    options.onProgress?.({ receivedBytes: offset, totalBytes: entry.sizeBytes });
    return { size: offset, hex: hash.digest('hex') };
  }

  const idle = new IdleTimeout(options.idleTimeoutMs ?? 60_000, options.signal);
  try {
    const response = await request(url, offset, options.fetchImpl ?? fetch, idle.signal);
    let totalBytes = entry.sizeBytes;
    let resetHash = false;
    if (offset > 0 && response.status === 206) {
      const range = parseContentRange(response.headers.get('content-range'));
      if (!range || range.start !== offset) {
        await response.body?.cancel();
        throw new ModelDownloadError(
          'http_error',
          `${url}: the server answered the resume request with the wrong range (${response.headers.get('content-range')})`,
        );
      }
      totalBytes ??= range.total;
    } else if (response.status === 200) {
      resetHash = offset > 0; // the server ignored the Range header: the body is the whole file
      offset = 0;
      totalBytes ??= contentLength(response);
    } else if (response.status === 416 && offset > 0) {
      // Nothing past our offset: the .part is complete or stale. Start over on the next call.
      await response.body?.cancel();
      await rm(partPath, { force: true });
      throw new ModelDownloadError(
        'http_error',
        `${url}: the server has no bytes past ${offset} (HTTP 416); the partial file was removed, run the download again`,
      );
    } else {
      await response.body?.cancel();
      throw new ModelDownloadError('http_error', `${url}: HTTP ${response.status} ${response.statusText}`.trim());
    }

    const streamHash = resetHash ? createHash(algorithm) : hash;
    const file = await open(partPath, offset === 0 ? 'w' : 'a');
    let received = offset;
    try {
      options.onProgress?.({ receivedBytes: received, totalBytes });
      if (!response.body) throw new ModelDownloadError('interrupted', `${url}: the response has no body`);
      for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
        idle.reset();
        await writeAll(file, chunk);
        streamHash.update(chunk);
        received += chunk.length;
        options.onProgress?.({ receivedBytes: received, totalBytes });
      }
      await file.sync();
    } catch (error) {
      if (error instanceof ModelDownloadError) throw error;
      // Keep the .part: the next call resumes from what is on disk.
      throw new ModelDownloadError(
        'interrupted',
        `download of ${url} interrupted after ${received}${totalBytes ? ` of ${totalBytes}` : ''} bytes (${describeCause(error, idle)}); ` +
          'run the same download again to resume',
        { cause: error },
      );
    } finally {
      await file.close();
    }
    if (totalBytes !== undefined && received < totalBytes) {
      throw new ModelDownloadError('interrupted', `download of ${url} ended after ${received} of ${totalBytes} bytes; run the same download again to resume`);
    }
    return { size: received, hex: streamHash.digest('hex') };
  } finally {
    idle.clear();
  }
}

async function request(url: string, offset: number, fetchImpl: typeof fetch, signal: AbortSignal): Promise<Response> {
  try {
    return await fetchImpl(url, {
      headers: offset > 0 ? { range: `bytes=${offset}-` } : {},
      redirect: 'follow',
      signal,
    });
  } catch (error) {
    const host = safeHost(url);
    throw new ModelDownloadError('unreachable', `cannot reach ${host}: ${describeCause(error)}; ${OFFLINE_HINT}`, { cause: error });
  }
}

/** Aborts a transfer that goes quiet; an outer signal (the caller's) aborts it too. */
class IdleTimeout {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  timedOut = false;

  constructor(
    readonly ms: number,
    outer?: AbortSignal,
  ) {
    outer?.addEventListener('abort', () => this.controller.abort(outer.reason), { once: true });
    this.reset();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  reset(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.controller.abort(new Error(`no data for ${this.ms / 1000} s`));
    }, this.ms);
  }

  clear(): void {
    clearTimeout(this.timer);
  }
}

function describeCause(error: unknown, idle?: IdleTimeout): string {
  if (idle?.timedOut) return `no data for ${idle.ms / 1000} s`;
  // undici's "fetch failed" hides the system error (ENOTFOUND, ECONNREFUSED, ...) in `cause`.
  const cause = (error as { cause?: unknown })?.cause ?? error;
  const code = (cause as { code?: string })?.code;
  const message = (cause as Error)?.message ?? String(cause);
  return code && !message.includes(code) ? `${code} ${message}` : message;
}

function parseContentRange(header: string | null): { start: number; total?: number } | undefined {
  const match = /^bytes (\d+)-\d+\/(\d+|\*)$/.exec(header?.trim() ?? '');
  if (!match) return undefined;
  return { start: Number(match[1]), total: match[2] === '*' ? undefined : Number(match[2]) };
}

function contentLength(response: Response): number | undefined {
  const value = Number(response.headers.get('content-length'));
  return Number.isSafeInteger(value) && value > 0 ? value : undefined;
}

function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

async function fileSize(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
}

async function hashFile(path: string, hash: Hash): Promise<void> {
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
}

async function writeAll(file: FileHandle, chunk: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < chunk.length) {
    const { bytesWritten } = await file.write(chunk, offset, chunk.length - offset);
    offset += bytesWritten;
  }
}
