// Work that is open while its key may change (a realtime session, an inline decode) watches the key
// and is told, within one poll, when it may go on no longer: the key was revoked (or is gone), or
// its usage was paused. The store is read, one read per watched key a poll, so a change made by the
// CLI or by another process on the same database counts as one made here. A poll the store cannot
// answer is skipped (the work goes on; the next poll tries again).
import { DEFAULTS } from '../config/service-config.js';
import type { KeyStore } from '../store/key-store.js';

/** Why open work must stop. */
export type KeyCutOff = 'revoked' | 'paused';

/** How often watched keys are read by default (SVC_KEY_WATCH_MS): the longest open work outlives a revocation or a pause by. */
export const KEY_WATCH_INTERVAL_MS = DEFAULTS.lifecycle.keyWatchMs;

export type KeyCutOffListener = (cutOff: KeyCutOff) => void;

export class KeyStandingWatch {
  private readonly watchers = new Map<string, Set<KeyCutOffListener>>();
  private timer: NodeJS.Timeout | null = null;
  private polling = false;

  constructor(
    private readonly keys: Pick<KeyStore, 'get'>,
    private readonly intervalMs: number = KEY_WATCH_INTERVAL_MS,
    private readonly onError: (error: unknown) => void = () => {},
  ) {}

  /** Tells `listener` once, at most, that work under `keyId` must stop. Returns the function that stops watching. */
  watch(keyId: string, listener: KeyCutOffListener): () => void {
    let listeners = this.watchers.get(keyId);
    if (!listeners) this.watchers.set(keyId, (listeners = new Set()));
    listeners.add(listener);
    this.timer ??= setInterval(() => void this.poll(), this.intervalMs).unref();
    return () => this.forget(keyId, listener);
  }

  /** Stops polling (the service's shutdown); watchers are told nothing more. */
  close(): void {
    this.watchers.clear();
    this.stopTimer();
  }

  private forget(keyId: string, listener: KeyCutOffListener): void {
    const listeners = this.watchers.get(keyId);
    if (!listeners?.delete(listener) || listeners.size > 0) return;
    this.watchers.delete(keyId);
    if (this.watchers.size === 0) this.stopTimer();
  }

  private stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** One read per watched key; a poll still reading when the next is due lets it pass. */
  private async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      await Promise.all([...this.watchers.keys()].map((keyId) => this.check(keyId)));
    } finally {
      this.polling = false;
    }
  }

  private async check(keyId: string): Promise<void> {
    let cutOff: KeyCutOff | null;
    try {
      const key = await this.keys.get(keyId);
      cutOff = key === null || key.revokedAt !== null ? 'revoked' : key.billingState !== 'active' ? 'paused' : null;
    } catch (error) {
      this.onError(error);
      return;
    }
    if (cutOff === null) return;
    for (const listener of this.watchers.get(keyId) ?? []) {
      this.forget(keyId, listener);
      listener(cutOff);
    }
  }
}
