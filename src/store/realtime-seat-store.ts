// Realtime seats: which sessions each project (tenant) holds open, shared by every process serving
// the realtime listener on one database, so a plan's limit holds across processes (docs/DESIGN.md
// decision 9) and not once per process. A seat names the instance that holds it
// (src/store/instance-registry.ts): only seats of live instances count, so a process that dies with
// sessions open gives their seats back when its heartbeat expires, and rows of instances gone from
// the registry are deleted by the next take for that tenant or by the reaper's sweep. Taking is atomic across processes: two
// starts racing for a project's last seat never both get it.

export interface SeatLimits {
  sessions: number;
  /** Of `sessions`, how many may have speaker labels. */
  speakerSessions: number;
}

export interface SeatClaim {
  /** Unique per session. */
  seatId: string;
  tenant: string;
  speakers: boolean;
}

export type SeatOutcome = 'taken' | 'sessions_full' | 'speakers_full';

export interface HeldSeats {
  sessions: number;
  speakerSessions: number;
}

export interface RealtimeSeatStore {
  /** Takes a seat for this store's instance when the tenant's live seats are under `limits`. */
  take(claim: SeatClaim, limits: SeatLimits, nowMs: number): Promise<SeatOutcome>;
  /** Gives a seat back (idempotent). */
  release(seatId: string): Promise<void>;
  /** The tenant's seats held by live instances. */
  held(tenant: string, nowMs: number): Promise<HeldSeats>;
  /** Deletes the seats of instances no longer registered (reaped); returns how many. */
  releaseSeatsOfDeadInstances(): Promise<number>;
}

/** The store's options: seats taken through it belong to this instance. */
export interface SeatStoreOptions {
  instanceId: string;
}

/** What a take decides from the seats held (shared by the implementations). */
export function seatOutcome(held: HeldSeats, limits: SeatLimits, speakers: boolean): SeatOutcome {
  if (held.sessions >= limits.sessions) return 'sessions_full';
  if (speakers && held.speakerSessions >= limits.speakerSessions) return 'speakers_full';
  return 'taken';
}
