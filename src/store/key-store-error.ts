// What a KeyStore throws for a bad administrative request; the CLI prints the message as is.
export type KeyStoreErrorCode = 'invalid_argument' | 'not_found';

export class KeyStoreError extends Error {
  constructor(
    readonly code: KeyStoreErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'KeyStoreError';
  }
}

export function isKeyStoreError(error: unknown): error is KeyStoreError {
  return error instanceof KeyStoreError;
}
