// Realtime concurrency per project (tenant), across both paths (DESIGN.md decision 9): builder 2
// sessions of which 1 with speakers, payg 10 and 2, enterprise as configured. A session holds its
// seats from `ready` to its close; a start over the limit is refused before any audio with 1013.
import type { Plan } from '../store/key-store.js';
import { CLOSE, RealtimeRefusal } from './realtime-errors.js';

export interface SeatLimits {
  sessions: number;
  speakerSessions: number;
}

export const DEFAULT_SEAT_LIMITS: Readonly<Record<Plan, SeatLimits>> = {
  builder: { sessions: 2, speakerSessions: 1 },
  payg: { sessions: 10, speakerSessions: 2 },
  enterprise: { sessions: 50, speakerSessions: 10 },
};

export class SessionCapacity {
  private readonly held = new Map<string, { sessions: number; speakerSessions: number }>();

  constructor(private readonly limits: Readonly<Record<Plan, SeatLimits>> = DEFAULT_SEAT_LIMITS) {}

  /** Takes a seat (and a speaker seat) for the tenant, or throws the contract's 1013 refusal. Returns the release. */
  take(tenant: string, plan: Plan, speakers: boolean): () => void {
    const limit = this.limits[plan];
    const now = this.held.get(tenant) ?? { sessions: 0, speakerSessions: 0 };
    if (now.sessions >= limit.sessions) {
      throw new RealtimeRefusal('rate_limited', CLOSE.tryAgainLater, 'TOO_MANY_STREAMS', `the project's ${limit.sessions} realtime sessions are in use`);
    }
    if (speakers && now.speakerSessions >= limit.speakerSessions) {
      throw new RealtimeRefusal('rate_limited', CLOSE.tryAgainLater, 'SPEAKER_CAPACITY_FULL', `the project's ${limit.speakerSessions} realtime sessions with speakers are in use; reconnect without diarization or retry later`);
    }
    this.held.set(tenant, { sessions: now.sessions + 1, speakerSessions: now.speakerSessions + (speakers ? 1 : 0) });
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const held = this.held.get(tenant)!;
      const next = { sessions: held.sessions - 1, speakerSessions: held.speakerSessions - (speakers ? 1 : 0) };
      if (next.sessions === 0) this.held.delete(tenant);
      else this.held.set(tenant, next);
    };
  }

  /** Sessions held now by a tenant (for tests and metrics). */
  heldBy(tenant: string): { sessions: number; speakerSessions: number } {
    return this.held.get(tenant) ?? { sessions: 0, speakerSessions: 0 };
  }
}
