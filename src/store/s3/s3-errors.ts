// How the S3 API's failures become the blob store's own errors (the routes and the job runner never
// see an SDK error):
//   404 NoSuchKey / NotFound          -> BlobNotFoundError (code ENOENT, as a missing file on disk)
//   404 NoSuchBucket                  -> BlobStoreUnavailableError (storage is misconfigured, not a blob missing)
//   401, 403 (credentials, policy,    -> BlobStoreUnavailableError (the service cannot use its storage;
//     clock skew)                         nothing about the request is wrong)
//   408, 429, 5xx (SlowDown, 503...)  -> BlobStoreUnavailableError (after the SDK's own retries)
//   no HTTP answer (refused, reset,   -> BlobStoreUnavailableError
//     DNS, socket timeout)
//   no credentials (the default       -> BlobStoreUnavailableError
//     chain found none, a role endpoint down)
//   anything else (a 4xx for a        -> unchanged: a bug in how we call S3, for the logs
//     request we got wrong)
// 412 (a condition failed) and 416 (a range past the end) are answers, handled where they are asked.
import { BlobNotFoundError, BlobStoreUnavailableError } from '../blob-store.js';
import { NETWORK_ERROR_CODES } from '../network-failure.js';

interface SdkErrorShape {
  name?: string;
  code?: string;
  $metadata?: { httpStatusCode?: number };
}

export function httpStatusOf(error: unknown): number | undefined {
  return (error as SdkErrorShape | null)?.$metadata?.httpStatusCode;
}

export function isNotFound(error: unknown): boolean {
  return httpStatusOf(error) === 404 && (error as SdkErrorShape).name !== 'NoSuchBucket';
}

/** The SDK's failure as the store's error; `ref` names the blob for a not-found. */
export function storageError(error: unknown, ref: string): unknown {
  if (isNotFound(error)) return new BlobNotFoundError(ref, { cause: error });
  if (isUnavailability(error)) return new BlobStoreUnavailableError(`object storage failed: ${describe(error)}`, { cause: error });
  return error;
}

function isUnavailability(error: unknown): boolean {
  const shape = error as SdkErrorShape | null;
  if (shape === null || typeof shape !== 'object') return false;
  const status = httpStatusOf(error);
  if (status !== undefined) return status === 401 || status === 403 || status === 404 || status === 408 || status === 429 || status >= 500;
  if (shape.name === 'TimeoutError' || shape.name === 'CredentialsProviderError') return true;
  if (typeof shape.code === 'string' && NETWORK_ERROR_CODES.has(shape.code)) return true;
  // An SDK error without an HTTP status never got an answer from the server.
  return shape.$metadata !== undefined;
}

/** A short, secret-free account for the message (error names and status codes only). */
function describe(error: unknown): string {
  const shape = error as SdkErrorShape;
  const status = httpStatusOf(error);
  return [shape.name, shape.code, status === undefined ? undefined : `HTTP ${status}`].filter(Boolean).join(' ') || 'unknown error';
}
