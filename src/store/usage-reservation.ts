// Work admitted and not yet recorded: a reservation holds the audio an admitted unit of work will be
// metered for, so that decisions taken meanwhile count it (the allowance, the spend cap and the credit
// are decided on what was recorded plus what is reserved). A reservation is keyed by the event key of
// the work it reserves ('inline:<request id>', 'job:<id>', 'realtime:<session>:<slice>'): recording
// that event converts it (the same transaction deletes it), releasing it deletes it, exactly once
// either way. One that is never converted nor released stops counting by itself: an inline request's
// or a realtime slice's when the instance holding it is no longer alive (its heartbeat expired), a
// job's when the job is no longer accepted or running. A job reserved for by an instance before the
// job row exists or while it awaits its upload is held by both: the instance until the job is
// accepted, the job from then on; a job that ended ends it whatever holds it.
import type { UsagePool } from '../domain/usage-routes.js';
import type { UsageStanding } from './usage-record.js';

export interface UsageReservation {
  /** The event key of the work reserved for. */
  key: string;
  tenant: string;
  keyId: string;
  period: string;
  pool: UsagePool;
  audioMs: number;
  /**
   * Who holds it: the instance doing the work, the job whose work it is (durable across instances
   * once it is accepted), or both (see above); one at least.
   */
  holder: { instance: string; job?: string } | { instance?: undefined; job: string };
  atMs: number;
}

/**
 * Decides, from where the key stands with every live reservation counted, whether the reservation
 * is admitted: the reason it is refused, or the charge it would draw (counted against the key's cap
 * and credit while it is held) and, when less than asked is admitted, the audio held instead.
 */
export type ReservationDecision<Refusal> = (standing: UsageStanding) => { refused: Refusal } | { costMicros: number; audioMs?: number };
