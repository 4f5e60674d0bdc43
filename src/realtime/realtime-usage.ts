// Metering of a realtime session by the audio it received: a slice is recorded every SLICE_SECONDS
// of audio and the remainder when the session closes, each slice keyed by the session's own id
// (server-made) and its number, so a slice recorded twice counts once and a process that dies
// mid-session loses at most the slice in progress. A slice the ledger could not take is tried again
// with the next one and at the close.
import type { BilledKey, UsageBilling } from '../billing/usage-billing.js';
import { randomBase62 } from '../store/random-id.js';
import { NO_SAFETY_EVENTS } from '../store/usage-record.js';
import type { StartMessage } from './start-message.js';

export const SLICE_SECONDS = 60;

interface Slice {
  eventKey: string;
  samples: number;
}

export class RealtimeUsage {
  private readonly id = `rt_${randomBase62(20)}`;
  private sliceNumber = 0;
  /** Samples received and not yet in a slice. */
  private open = 0;
  private readonly pending: Slice[] = [];
  private recording: Promise<void> = Promise.resolve();

  constructor(
    private readonly billing: Pick<UsageBilling, 'meter'>,
    private readonly key: BilledKey,
    private readonly start: Pick<StartMessage, 'model' | 'language' | 'diarization'>,
    private readonly sampleRate: number,
    private readonly onFailure: (error: unknown) => void = () => {},
  ) {}

  received(samples: number): void {
    this.open += samples;
    if (this.open < SLICE_SECONDS * this.sampleRate) return;
    this.cut();
    this.flush();
  }

  /** Records what is left; resolves once every slice was tried. */
  async close(): Promise<void> {
    if (this.open > 0) this.cut();
    this.flush();
    await this.recording;
  }

  private cut(): void {
    this.pending.push({ eventKey: `realtime:${this.id}:${++this.sliceNumber}`, samples: this.open });
    this.open = 0;
  }

  /** One recording pass at a time: slices go to the ledger in order. */
  private flush(): void {
    this.recording = this.recording.then(async () => {
      while (this.pending.length > 0) {
        const slice = this.pending[0];
        try {
          await this.billing.meter(this.key, {
            eventKey: slice.eventKey,
            route: 'realtime',
            model: this.start.model,
            languageFamily: this.start.language,
            diarization: this.start.diarization,
            vocabulary: false,
            patterns: false,
            audioMs: Math.round((slice.samples / this.sampleRate) * 1000),
            safety: NO_SAFETY_EVENTS,
          });
          this.pending.shift();
        } catch (error) {
          this.onFailure(error);
          return;
        }
      }
    });
  }
}
