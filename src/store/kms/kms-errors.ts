// How AWS KMS's failures become this layer's own errors (nothing above the store sees an SDK error):
//   no answer (refused, reset, DNS, timeout), 5xx,  -> KeyServiceUnavailableError: a 503 with Retry-After
//     throttling, KMS's own dependency timeouts         at the edge, and a job waits and retries
//   access denied, a disabled key or one pending    -> KeyServiceUnavailableError too: the service cannot
//     deletion, credentials refused or missing          use its key, nothing about the request is wrong,
//                                                       and the operator's fix (a grant, enabling the key)
//                                                       lets the waiting work go on (as S3's 403 does)
//   a ciphertext that does not open (changed,       -> SealingError: the stored row is damaged or moved,
//     another context or key), a key that no longer     or the key is gone for good; a server error
//     exists, anything else
// Messages carry the KMS error's name and the key id, never key material.
import { NETWORK_ERROR_CODES } from '../network-failure.js';
import { SealingError } from '../sealing-error.js';
import { StoreUnavailableError } from '../store-unavailable-error.js';

/** KMS cannot be used right now (see above); `cause` carries the SDK's error for the logs. */
export class KeyServiceUnavailableError extends StoreUnavailableError {
  constructor(message: string, options: { cause: unknown }) {
    super('key service', options);
    this.message = message;
    this.name = 'KeyServiceUnavailableError';
  }
}

const UNAVAILABLE_NAMES = new Set([
  'AccessDeniedException',
  'DisabledException',
  'KMSInvalidStateException',
  'KeyUnavailableException',
  'DependencyTimeoutException',
  'KMSInternalException',
  'ThrottlingException',
  'LimitExceededException',
  'UnrecognizedClientException',
  'InvalidSignatureException',
  'ExpiredTokenException',
  'CredentialsProviderError',
  'TimeoutError',
]);

interface SdkErrorShape {
  name?: string;
  code?: string;
  $metadata?: { httpStatusCode?: number };
}

/** The SDK's failure of `operation` on `keyId` as this layer's error. */
export function keyServiceError(error: unknown, operation: string, keyId: string, context: string): Error {
  const shape = (typeof error === 'object' && error !== null ? error : {}) as SdkErrorShape;
  const status = shape.$metadata?.httpStatusCode;
  const what = [shape.name, shape.code, status === undefined ? undefined : `HTTP ${status}`].filter(Boolean).join(' ') || 'unknown error';
  const unavailable =
    UNAVAILABLE_NAMES.has(shape.name ?? '') ||
    (typeof shape.code === 'string' && NETWORK_ERROR_CODES.has(shape.code)) ||
    (status !== undefined && (status === 429 || status >= 500)) ||
    // An SDK error without an HTTP status never got an answer from KMS.
    (shape.$metadata !== undefined && status === undefined);
  const message = `KMS ${operation} of data key ${context} under ${keyId} failed: ${what}`;
  return unavailable ? new KeyServiceUnavailableError(message, { cause: error }) : new SealingError(message, { cause: error });
}
