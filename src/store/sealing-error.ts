// Content at rest that cannot be opened: the bytes were changed, cut short, reordered, moved onto
// another object (its identity is the additional data), or sealed under a key this process lacks.
// Never a client's fault: the edge answers it as a server error, and the message names no content.
export class SealingError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'SealingError';
  }
}

/** Sealed data exists under a master key this process was not given (refuse to start: issue 48). */
export class MissingMasterKeyError extends SealingError {
  constructor(readonly keyIds: readonly string[]) {
    const remedies = [
      ...(keyIds.some((id) => !id.startsWith('kms:')) ? ['set SVC_WEBHOOK_MASTER_KEY (or restore <data dir>/webhook-master.key) to the key with that id'] : []),
      ...(keyIds.some((id) => id.startsWith('kms:')) ? ['name the KMS key (the id after `kms:`) in SVC_KMS_KEY_ID or SVC_KMS_PREVIOUS_KEY_IDS'] : []),
    ];
    super(`data is sealed under master key ${keyIds.join(', ')}, which this process was not given: ${remedies.join('; ')}`);
    this.name = 'MissingMasterKeyError';
  }
}
