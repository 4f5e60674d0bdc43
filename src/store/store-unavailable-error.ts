// A store could not be reached or could not answer: the database server is down or restarting, the
// network to it dropped, a connection could not be had in time, the bucket or the key management
// service does not answer (or refuses the service's credentials). The request that needed it was
// fine and nothing was acknowledged; src/api answers 503 with Retry-After, and readiness probes
// report the store as unavailable.
export type UnavailableStore = 'database' | 'storage' | 'key service';

export class StoreUnavailableError extends Error {
  constructor(
    readonly store: UnavailableStore,
    options: { cause: unknown },
  ) {
    super(`the ${store} is unavailable`, options);
    this.name = 'StoreUnavailableError';
  }
}

export function isStoreUnavailable(error: unknown): error is StoreUnavailableError {
  return error instanceof StoreUnavailableError;
}
