// The processes serving one database (API, worker, or both), each under a random instance id with a
// heartbeat. Work a process holds names its instance — job and webhook leases as
// '<instance id>/<slot>', uploads streaming in and idempotency claims in progress by the instance
// id — so that when a process dies, exactly its work is released: a restarting process, or one of
// many sharing PostgreSQL, never takes over work a live process still holds.

import { randomBase62 } from './random-id.js';

export const INSTANCE_ROLES = ['all', 'api', 'worker'] as const;
export type InstanceRole = (typeof INSTANCE_ROLES)[number];

export interface InstanceRecord {
  id: string;
  role: InstanceRole;
  startedAtMs: number;
  heartbeatAtMs: number;
  /** Past this time without a heartbeat, the instance counts as dead and its work is released. */
  expiresAtMs: number;
}

export interface InstanceRegistry {
  /** Adds (or refreshes) this process's row. */
  register(id: string, role: InstanceRole, nowMs: number, ttlMs: number): Promise<void>;
  /** Extends this process's life; false when its row is gone (another process declared it dead). */
  heartbeat(id: string, nowMs: number, ttlMs: number): Promise<boolean>;
  /** Removes this process's row (a clean shutdown, after its work was given back). */
  deregister(id: string): Promise<void>;
  /**
   * Removes the rows of dead instances and returns their ids: those whose heartbeat expired, or
   * with `allBut`, every instance except that one (the embedded server, which alone uses its database).
   */
  reapDead(nowMs: number, options?: { allBut?: string }): Promise<string[]>;
  /** Instances alive now (operators' view, readiness). */
  live(nowMs: number): Promise<InstanceRecord[]>;
}

/** A fresh instance id: random, and free of the '/' that separates it from a lease's slot. */
export function newInstanceId(): string {
  return `inst_${randomBase62(20)}`;
}

/** The holder name of a lease taken by `instanceId` (job loops, the webhook worker). */
export function leaseOwnerOf(instanceId: string, slot: string | number): string {
  return `${instanceId}/${slot}`;
}
