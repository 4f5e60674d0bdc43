// Admission and metering of a realtime session by the audio it receives, in slices of up to
// SLICE_SECONDS. Each slice is reserved before its audio arrives (billing's reservation, as much of
// a slice as the key's allowance, spend cap and credit let through, at least LEAST_SLICE_SECONDS),
// and recorded once it is full (converting the reservation) or when the session closes. The first
// slice is reserved at the start (a key that cannot have one is refused before `ready`); the next
// one when half of the current one is used, so audio at real time never waits for it (audio sent
// ahead of time may: `received` then admits what fits and `resume` is told when the rest may come).
// When the next one is refused, the session may go on to the end of the current one and no further:
// `limit` is told, and `received` admits no audio beyond it. The same holds at the plan's longest session
// (realtimeSessionMaxMs), read at the start.
//
// Slices are keyed by the session's own id (server-made) and their number, so a slice recorded
// twice counts once and a process that dies mid-session loses at most the slice in progress (its
// reservation ends with the process's heartbeat). A slice the ledger could not record is tried again
// with the next one and at the close. A reservation the ledger could not take (the database down)
// lets the audio go on into that slice, asked for again a second later, so an outage does not cut
// sessions: only then can a session pass a limit, by what it receives until the database answers.
import { BillingBlockedError } from '../billing/billing-errors.js';
import type { BilledKey, UsageBilling } from '../billing/usage-billing.js';
import type { StartMessage } from '../contract/realtime-start.js';
import { randomBase62 } from '../store/random-id.js';
import { NO_SAFETY_EVENTS } from '../store/usage-record.js';

export const SLICE_SECONDS = 60;
/** A slice shorter than this is not worth admitting: the session ends where the last one ends. */
export const LEAST_SLICE_SECONDS = 1;

type Billing = Pick<UsageBilling, 'meter' | 'reserveUpTo' | 'release' | 'terms'>;

/** A slice's reservation: under way, admitted (the samples it admits), refused (why), or failed (the ledger's error, when). */
type SliceReservation =
  | { state: 'pending'; decided: Promise<void> }
  | { state: 'admitted'; samples: number }
  | { state: 'refused'; refusal: BillingBlockedError }
  | { state: 'failed'; atMs: number };

/** A reservation the ledger could not take is asked for again after this long. */
const RETRY_MS = 1000;

/** Why a session can take no more audio: billing refused its next slice, or it is as long as its plan allows. */
export type UsageLimit = { kind: 'billing'; refusal: BillingBlockedError } | { kind: 'session_length'; maxMs: number };

export interface UsageHandlers {
  /** The audio admitted has run out: the key can have no more in this session. */
  limit(limit: UsageLimit): void;
  /** Audio `received` did not admit while the next slice was undecided may come now. */
  resume(): void;
  /** Recording or reserving a slice failed (the ledger's error): logged, tried again later. */
  failure?(error: unknown): void;
}

export class RealtimeUsage {
  private sliceNumber = 1;
  /** Samples received into the current slice, and in all. */
  private open = 0;
  private total = 0;
  /** The slices' reservations, by number (kept: a slice's recording waits for its reservation's decision). */
  private readonly reservations = new Map<number, SliceReservation>();
  private limited = false;
  private closed = false;
  /** The current slice is full and the next one undecided: audio waits. */
  private waiting = false;
  private readonly pending: Array<{ number: number; samples: number }> = [];
  /** Samples received that the close left unmetered (the current slice's untranscribed part). */
  private unmetered = 0;
  private recording: Promise<void> = Promise.resolve();

  private constructor(
    private readonly id: string,
    private readonly billing: Billing,
    private readonly key: BilledKey,
    private readonly start: Pick<StartMessage, 'model' | 'language' | 'diarization'>,
    private readonly sampleRate: number,
    private readonly handlers: UsageHandlers,
    firstSliceMs: number,
    /** The plan's longest session, in samples (null: none). */
    private readonly maxSamples: number | null,
  ) {
    this.reservations.set(1, { state: 'admitted', samples: this.samplesOf(firstSliceMs) });
  }

  /** Reserves the session's first slice: BillingBlockedError when the key can have none. */
  static async open(
    billing: Billing,
    key: BilledKey,
    start: Pick<StartMessage, 'model' | 'language' | 'diarization'>,
    sampleRate: number,
    handlers: UsageHandlers,
  ): Promise<RealtimeUsage> {
    const id = `rt_${randomBase62(20)}`;
    const { realtimeSessionMaxMs } = await billing.terms(key);
    const admittedMs = await billing.reserveUpTo(key, 'realtime', SLICE_SECONDS * 1000, LEAST_SLICE_SECONDS * 1000, sliceKey(id, 1));
    const maxSamples = realtimeSessionMaxMs === null ? null : Math.round((realtimeSessionMaxMs / 1000) * sampleRate);
    return new RealtimeUsage(id, billing, key, start, sampleRate, handlers, admittedMs, maxSamples);
  }

  /** How many of `samples` are admitted now (fewer at the limit, or while the next slice is undecided: see `resume`). */
  received(samples: number): number {
    let taken = 0;
    const allowed = this.maxSamples === null ? samples : Math.min(samples, this.maxSamples - this.total);
    while (taken < allowed && !this.closed) {
      const bound = this.bound();
      if (this.open >= bound) {
        if (!this.moveOn()) break;
        continue;
      }
      const take = Math.min(allowed - taken, bound - this.open);
      this.open += take;
      taken += take;
    }
    this.total += taken;
    if (this.maxSamples !== null && this.total >= this.maxSamples)
      this.reachLimit({ kind: 'session_length', maxMs: (this.maxSamples / this.sampleRate) * 1000 });
    if (!this.closed) {
      // A reservation that failed is asked for again; the next slice, halfway through this one.
      if (this.retryDue(this.sliceNumber)) this.reserve(this.sliceNumber);
      const next = this.sliceNumber + 1;
      if (this.open * 2 >= this.bound() && (!this.reservations.has(next) || this.retryDue(next))) this.reserve(next);
    }
    return taken;
  }

  /**
   * Records what is left, less `untranscribed` samples at the end (audio of a turn a cut-off session
   * never transcribes is not billed); gives back a next slice not used. Resolves once every slice was tried.
   */
  async close(untranscribed = 0): Promise<void> {
    if (this.closed) return this.recording;
    this.closed = true;
    const kept = Math.max(0, this.open - untranscribed);
    this.unmetered = this.open - kept;
    if (kept > 0) this.cut(kept);
    this.flush();
    const unused = kept > 0 ? [this.sliceNumber + 1] : [this.sliceNumber, this.sliceNumber + 1];
    this.recording = this.recording.then(async () => {
      for (const number of unused) {
        await this.decided(number);
        if (this.reservations.get(number)?.state === 'admitted')
          await this.billing.release(sliceKey(this.id, number)).catch((error: unknown) => this.handlers.failure?.(error));
      }
    });
    await this.recording;
  }

  /**
   * The samples metered, once `close` was called (its recording may still be under way): all those
   * received, less the part of the current slice it left out. Untranscribed audio in a slice recorded
   * earlier (full before the close) stays metered, so this can be more than received less untranscribed.
   */
  get meteredSamples(): number {
    return this.total - this.unmetered;
  }

  /** The samples the current slice may hold: its reservation's, or a whole slice while it is undecided (after a failure). */
  private bound(): number {
    const current = this.reservations.get(this.sliceNumber);
    if (current?.state === 'admitted') return current.samples;
    // Refused when asked again after a failure: it ends where it is.
    if (current?.state === 'refused') return this.open;
    return this.samplesOf(SLICE_SECONDS * 1000);
  }

  /** At the current slice's end: on into the next one (true), or waiting for its decision or stopped at the limit (false). */
  private moveOn(): boolean {
    const current = this.reservations.get(this.sliceNumber);
    const next = this.reservations.get(this.sliceNumber + 1);
    const refused = current?.state === 'refused' ? current : next?.state === 'refused' ? next : null;
    if (refused) {
      this.reachLimit({ kind: 'billing', refusal: refused.refusal });
      return false;
    }
    if (next === undefined) this.reserve(this.sliceNumber + 1);
    if (next === undefined || next.state === 'pending') {
      this.waiting = true;
      return false;
    }
    // Admitted; or failed, and the audio goes on into it while it is asked for again (see the header).
    this.cut(this.open);
    this.flush();
    this.sliceNumber++;
    return true;
  }

  private retryDue(number: number): boolean {
    const reservation = this.reservations.get(number);
    return reservation?.state === 'failed' && performance.now() - reservation.atMs >= RETRY_MS;
  }

  /** A decision came for the slice the audio waits on: it may come (admitted, or the ledger failing), or the limit is here. */
  private decidedNext(number: number): void {
    if (!this.waiting || number !== this.sliceNumber + 1 || this.closed) return;
    const next = this.reservations.get(number);
    if (next?.state === 'refused') return this.reachLimit({ kind: 'billing', refusal: next.refusal });
    this.waiting = false;
    this.handlers.resume();
  }

  private reserve(number: number): void {
    const decided = this.billing.reserveUpTo(this.key, 'realtime', SLICE_SECONDS * 1000, LEAST_SLICE_SECONDS * 1000, sliceKey(this.id, number)).then(
      (admittedMs) => {
        this.reservations.set(number, { state: 'admitted', samples: this.samplesOf(admittedMs) });
        this.decidedNext(number);
      },
      (error: unknown) => {
        if (!(error instanceof BillingBlockedError)) {
          this.handlers.failure?.(error);
          this.reservations.set(number, { state: 'failed', atMs: performance.now() });
          return this.decidedNext(number);
        }
        this.reservations.set(number, { state: 'refused', refusal: error });
        // The current slice (asked for again after a failure): it ends where it is.
        if (number === this.sliceNumber) this.reachLimit({ kind: 'billing', refusal: error });
        else this.decidedNext(number);
      },
    );
    this.reservations.set(number, { state: 'pending', decided });
  }

  /** Resolves once slice `number`'s reservation, if any is under way, is decided. */
  private async decided(number: number): Promise<void> {
    const reservation = this.reservations.get(number);
    if (reservation?.state === 'pending') await reservation.decided;
  }

  private reachLimit(limit: UsageLimit): void {
    if (this.limited || this.closed) return;
    this.limited = true;
    this.handlers.limit(limit);
  }

  private samplesOf(ms: number): number {
    return Math.round((ms / 1000) * this.sampleRate);
  }

  private cut(samples: number): void {
    this.pending.push({ number: this.sliceNumber, samples });
    this.open = 0;
  }

  /** One recording pass at a time: slices go to the ledger in order, each once its reservation is decided (recording converts it). */
  private flush(): void {
    this.recording = this.recording.then(async () => {
      while (this.pending.length > 0) {
        const slice = this.pending[0];
        try {
          await this.decided(slice.number);
          await this.billing.meter(this.key, {
            eventKey: sliceKey(this.id, slice.number),
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
          this.handlers.failure?.(error);
          return;
        }
      }
    });
  }
}

function sliceKey(session: string, number: number): string {
  return `realtime:${session}:${number}`;
}
