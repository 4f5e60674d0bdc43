// Realtime concurrency per project (tenant), across both paths and every process serving the
// listener on one database (docs/DESIGN.md decision 9): builder 2 sessions of which 1 with speakers, payg
// 10 and 2, enterprise 50 and 10. A session holds its seats from `ready` to its close; a start over
// the limit is refused before any audio with 1013. Seats live in the RealtimeSeatStore; a release the
// store could not take (an outage) is retried before the next take, so a seat is never kept for good.
import type { Plan } from '../domain/api-keys.js';
import { randomBase62 } from '../store/random-id.js';
import type { HeldSeats, RealtimeSeatStore, SeatLimits } from '../store/realtime-seat-store.js';
import { CLOSE, RealtimeRefusal } from './realtime-errors.js';

export const DEFAULT_SEAT_LIMITS: Readonly<Record<Plan, SeatLimits>> = {
  builder: { sessions: 2, speakerSessions: 1 },
  payg: { sessions: 10, speakerSessions: 2 },
  enterprise: { sessions: 50, speakerSessions: 10 },
};

export class SessionCapacity {
  private readonly unreleased = new Set<string>();

  constructor(
    private readonly seats: RealtimeSeatStore,
    private readonly limits: Readonly<Record<Plan, SeatLimits>> = DEFAULT_SEAT_LIMITS,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Takes a seat (and a speaker seat) for the tenant, or throws the contract's 1013 refusal. Resolves to the release. */
  async take(tenant: string, plan: Plan, speakers: boolean): Promise<() => void> {
    await this.retryReleases();
    const limit = this.limits[plan];
    const seatId = `seat_${randomBase62(20)}`;
    const outcome = await this.seats.take({ seatId, tenant, speakers }, limit, this.clock());
    if (outcome === 'sessions_full') {
      throw new RealtimeRefusal('rate_limited', CLOSE.tryAgainLater, 'TOO_MANY_STREAMS', `the project's ${limit.sessions} realtime sessions are in use`);
    }
    if (outcome === 'speakers_full') {
      throw new RealtimeRefusal(
        'rate_limited',
        CLOSE.tryAgainLater,
        'SPEAKER_CAPACITY_FULL',
        `the project's ${limit.speakerSessions} realtime sessions with speakers are in use; reconnect without diarization or retry later`,
      );
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.seats.release(seatId).catch(() => this.unreleased.add(seatId));
    };
  }

  /** Seats held now by a tenant's sessions on live instances (tests, operators). */
  heldBy(tenant: string): Promise<HeldSeats> {
    return this.seats.held(tenant, this.clock());
  }

  private async retryReleases(): Promise<void> {
    for (const seatId of [...this.unreleased]) {
      await this.seats.release(seatId);
      this.unreleased.delete(seatId);
    }
  }
}
