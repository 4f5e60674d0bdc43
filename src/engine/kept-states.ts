// When the engine's model gives its kept decoding states back (native/whisper-state.h). A kept state
// saves a call about 250 ms on tiny (its buffers made and touched once), and holds tens to hundreds
// of megabytes: an engine that has had no whisper call for `idleMs` frees them, so an idle worker
// returns to its post-load memory, and the next call after the pause pays for one fresh state.
import type { NativeAddon, NativeModel } from './native-addon.js';

/** How long without a whisper call before the kept states are freed, unless the engine is told otherwise. */
export const DEFAULT_KEPT_STATES_IDLE_MS = 60_000;

export class KeptStates {
  private inFlight = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly addon: Pick<NativeAddon, 'keepStates' | 'releaseStates'>,
    private readonly model: NativeModel,
    /** The most idle states kept: as many as calls can run at once on the model. */
    limit: number,
    private readonly idleMs: number,
  ) {
    addon.keepStates(model, limit);
  }

  /** Follows one whisper call: the idle clock starts when the last call in flight ends. */
  track(call: Promise<unknown>): void {
    this.inFlight++;
    this.cancel();
    const ended = () => {
      this.inFlight--;
      if (this.inFlight === 0) this.arm();
    };
    call.then(ended, ended);
  }

  close(): void {
    this.cancel();
  }

  private arm(): void {
    if (!Number.isFinite(this.idleMs)) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.inFlight === 0 && !this.model.released) this.addon.releaseStates(this.model);
    }, this.idleMs);
    // An idle engine must not keep the process alive for it.
    this.timer.unref();
  }

  private cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
