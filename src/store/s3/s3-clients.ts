// The S3 API clients of one store: one for the service's own requests (and the presigned GET URLs
// workers' ffmpeg reads, inside the service's network), and one that signs what browsers use
// (upload forms) with the public address when it differs — a signature covers the host, so a form
// signed for the internal name fails elsewhere.
import { S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';

import type { S3BlobStoreSettings } from './s3-settings.js';

/** Connecting takes milliseconds on a working network; longer means the address is wrong or down. */
const CONNECTION_TIMEOUT_MS = 5_000;
/**
 * A socket idle this long fails the request. It also bounds a result download whose client stopped
 * reading (the GetObject body is paused meanwhile); the API's own unread-output guard acts sooner.
 */
const SOCKET_IDLE_TIMEOUT_MS = 60_000;

/**
 * The SDK logs through `console` by default (e.g. "An error was encountered in a non-retryable
 * streaming request"), which would break the service's JSON logs. The store reports every failure
 * as a typed error with its cause, so these lines carry nothing more.
 */
const QUIET_LOGGER = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };

export interface S3Clients {
  /** The service's own requests and workers' audio URLs (internal endpoint). */
  api: S3Client;
  /** Signs upload forms for browsers (public endpoint, or `api` itself). */
  signer: S3Client;
  destroy(): void;
}

export function createS3Clients(settings: S3BlobStoreSettings): S3Clients {
  const config = (endpoint: string | undefined): S3ClientConfig => ({
    region: settings.region,
    ...(endpoint === undefined ? {} : { endpoint }),
    forcePathStyle: settings.forcePathStyle,
    ...(settings.credentials ? { credentials: settings.credentials } : {}),
    // The SDK's default (WHEN_SUPPORTED) sends a streamed PutObject body aws-chunked with a trailing
    // CRC32; S3-compatible servers that do not know that encoding store the chunk framing as the
    // object's bytes (seen with s3rver: a WAV began "1000;chunk-signature..."). Checksums are sent
    // and checked only where the API requires them; the upload's Content-Length still guards it.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    requestHandler: { connectionTimeout: CONNECTION_TIMEOUT_MS, socketTimeout: SOCKET_IDLE_TIMEOUT_MS },
    logger: QUIET_LOGGER,
  });
  const api = new S3Client(config(settings.endpoint));
  const signer = settings.publicEndpoint === undefined || settings.publicEndpoint === settings.endpoint ? api : new S3Client(config(settings.publicEndpoint));
  return {
    api,
    signer,
    destroy() {
      api.destroy();
      if (signer !== api) signer.destroy();
    },
  };
}
