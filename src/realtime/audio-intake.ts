// A session's audio as it arrives: PCM16 frames, taken as far as the key's reserved audio admits
// (application/realtime-usage.ts). What the next slice's reservation has not decided yet waits here,
// in order, and is taken when it is; past a limit it is dropped. Nothing is written anywhere.
import type { RealtimeUsage } from '../application/realtime-usage.js';
import type { TurnAnalyser } from './turn-analyser.js';

export class AudioIntake {
  /** PCM16 frames received while the next slice's reservation was undecided, waiting for it. */
  private held: Uint8Array[] = [];
  private heldSamples = 0;
  /** Set while a `stop` waits for held audio to be taken. */
  private drained: (() => void) | null = null;

  /** Set once the session takes no more audio (closed, or a limit reached): what waits is dropped. */
  private shut = false;

  constructor(
    /** The session's reserved audio. */
    private readonly usage: RealtimeUsage,
    private readonly turns: TurnAnalyser,
  ) {}

  /** Samples waiting for the next slice's reservation. */
  get waiting(): number {
    return this.heldSamples;
  }

  /** A frame of PCM16 (an even number of bytes): audio waiting for the next slice's reservation goes first. */
  add(frame: Uint8Array): void {
    const rest = this.held.length > 0 ? frame : this.take(frame);
    if (rest) this.hold(rest, 'last');
  }

  /** The next slice is decided: the audio that waited for it is taken, in order, as far as it is admitted. */
  resume(): void {
    while (this.held.length > 0 && !this.shut) {
      const frame = this.held.shift()!;
      this.heldSamples -= frame.length / 2;
      const rest = this.take(frame);
      if (rest) return this.hold(rest, 'first');
    }
    this.drop();
  }

  /** The session takes no more audio (closed, or past a limit): what waits is dropped. */
  close(): void {
    this.shut = true;
    this.drop();
  }

  /** No audio waits any more (all taken, or past a limit): a `stop` waiting for it may go on. */
  private drop(): void {
    this.held = [];
    this.heldSamples = 0;
    this.drained?.();
    this.drained = null;
  }

  /** Audio sent before `stop` that waits for the next slice's reservation has been taken (or dropped). */
  async taken(): Promise<void> {
    if (this.held.length > 0) await new Promise<void>((resolve) => (this.drained = resolve));
  }

  /**
   * Takes what the key's reserved audio admits of a PCM16 frame: the part not admitted while the next
   * slice is undecided (to take when `resume` is told), or null (all taken, or dropped past a limit).
   */
  private take(frame: Uint8Array): Uint8Array | null {
    const sent = frame.length / 2;
    const samples = this.usage.received(sent);
    if (samples > 0) {
      const view = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
      const pcm = new Float32Array(samples);
      for (let i = 0; i < samples; i++) pcm[i] = view.getInt16(i * 2, true) / 32768;
      this.turns.push(pcm);
    }
    return samples < sent && !this.shut ? frame.subarray(samples * 2) : null;
  }

  private hold(frame: Uint8Array, where: 'first' | 'last'): void {
    // Copied: a transport's frame is reused once its handler returns.
    if (where === 'first') this.held.unshift(frame.slice());
    else this.held.push(frame.slice());
    this.heldSamples += frame.length / 2;
  }
}
