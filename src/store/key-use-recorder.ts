// A key's last use (the console's "Last used", `keys list`), recorded beside the request path: API
// authentication and realtime starts tell the recorder, which writes at most once per key per
// KEY_USE_RESOLUTION_MS from this process (a memo of its last write per key, and the time the key's
// record already carries) and leaves the rest to the store's conditional write, so processes sharing
// the database write once between them. A request never waits for the write, nor fails with it: a
// failed write is logged, and tried again a resolution later.
import { type ApiKeyRecord } from '../domain/api-keys.js';
import { KEY_USE_RESOLUTION_MS, type KeyStore } from './key-store.js';

export interface KeyUseLog {
  warn(details: object, message: string): void;
}

/** Memo entries kept before the stale ones are dropped: far more keys than a process sees used in a minute. */
const MEMO_PRUNE_SIZE = 10_000;

export class KeyUseRecorder {
  /** Epoch milliseconds of this process's last write per key id. */
  private readonly lastWrite = new Map<string, number>();
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly keys: Pick<KeyStore, 'recordUse'>,
    /** Epoch milliseconds: the service's clock, the one its key store judges with. */
    private readonly clock: () => number,
    private readonly log: KeyUseLog,
  ) {}

  /** The key was used now. A refused key (revoked, or past its scheduled revocation) is not recorded. */
  record(key: ApiKeyRecord): void {
    if (key.revokedAt !== null) return;
    const now = this.clock();
    const staleBefore = now - KEY_USE_RESOLUTION_MS;
    const stored = key.lastUsedAt === null ? Number.NEGATIVE_INFINITY : Date.parse(key.lastUsedAt);
    const written = this.lastWrite.get(key.id) ?? Number.NEGATIVE_INFINITY;
    if (stored >= staleBefore || written >= staleBefore) return;
    if (this.lastWrite.size >= MEMO_PRUNE_SIZE) this.prune(staleBefore);
    // Noted before the write lands, so the requests arriving meanwhile do not start writes of their own.
    this.lastWrite.set(key.id, now);
    const write = this.keys.recordUse(key.id).then(
      () => undefined,
      (error: unknown) => this.log.warn({ err: error, keyId: key.id }, "a key's last use was not recorded"),
    );
    this.inFlight.add(write);
    void write.finally(() => this.inFlight.delete(write));
  }

  /** Resolves once the writes started so far have finished (a closing service waits for them before its store closes). */
  async settled(): Promise<void> {
    await Promise.all([...this.inFlight]);
  }

  private prune(staleBefore: number): void {
    for (const [id, at] of this.lastWrite) if (at < staleBefore) this.lastWrite.delete(id);
  }
}
