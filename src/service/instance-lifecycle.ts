// This process as a registered service instance (src/store/instance-registry.ts): registered before
// it takes any work, kept alive by a heartbeat, deregistered after a clean shutdown. It also frees
// the work of instances that died: at start, and whenever an instance's heartbeat expires, their job
// leases are released (the next claim counts a stalled claim), uploads they were receiving reopen,
// webhook attempts they had in flight are made again, and their idempotency claims in progress are
// dropped (a retry would otherwise get 409 for a day). A live process's work is never touched.
import type { InstanceRole } from '../store/instance-registry.js';
import type { Stores } from '../store/open-stores.js';

/** Heartbeats per TTL: several fit in it, so a busy moment is no death. */
const HEARTBEATS_PER_TTL = 6;

export interface RecoveredWork {
  instances: string[];
  leases: number;
  uploads: number;
  webhookLeases: number;
  idempotencyClaims: number;
  realtimeSeats: number;
}

export interface InstanceLogger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

type LifecycleStores = Pick<Stores, 'kind' | 'instances' | 'jobs' | 'outbox' | 'idempotency' | 'seats' | 'notices'>;

export class InstanceLifecycle {
  private timer: NodeJS.Timeout | null = null;
  private beating: Promise<void> | null = null;
  private logger: InstanceLogger | null = null;

  constructor(
    readonly id: string,
    private readonly stores: LifecycleStores,
    private readonly role: InstanceRole,
    /** Without a heartbeat for this long, an instance is dead (config.lifecycle.instanceTtlMs). */
    private readonly ttlMs: number,
    /**
     * Real time, on the database's clock where processes share one (database-clock.ts): heartbeats are
     * about processes, never about a test's injected job clock.
     */
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Registers this instance and frees what dead ones held. On SQLite this process is the only
   * server on its database, so every other instance is dead whatever its heartbeat says.
   */
  async start(logger?: InstanceLogger): Promise<RecoveredWork> {
    this.logger = logger ?? null;
    await this.stores.instances.register(this.id, this.role, this.now(), this.ttlMs);
    const recovered = await this.recover(this.stores.kind === 'sqlite' ? { allBut: this.id } : {});
    this.timer = setInterval(() => void (this.beating ??= this.beat().finally(() => (this.beating = null))), this.ttlMs / HEARTBEATS_PER_TTL);
    this.timer.unref();
    return recovered;
  }

  /** Frees the work of instances found dead now (their heartbeat expired). */
  async recover(options: { allBut?: string } = {}): Promise<RecoveredWork> {
    const { instances, jobs, outbox, idempotency, seats } = this.stores;
    const dead = await instances.reapDead(this.now(), options);
    const [released, webhookLeases, idempotencyClaims, realtimeSeats] = await Promise.all([
      jobs.releaseWorkOfDeadInstances(this.now()),
      outbox.releaseLeasesOfDeadInstances(),
      idempotency.releaseClaimsOfDeadInstances(),
      seats.releaseSeatsOfDeadInstances(),
    ]);
    const recovered = { instances: dead, ...released, webhookLeases, idempotencyClaims, realtimeSeats };
    // Released leases are claimable now: idle workers in every process should look.
    if (released.leases > 0) this.stores.notices.publish({ kind: 'queued' });
    if (released.leases + released.uploads + webhookLeases + idempotencyClaims + realtimeSeats > 0 || dead.length > 0) {
      this.logger?.info({ ...recovered }, 'released the work of stopped instances');
    }
    return recovered;
  }

  /** Stops the heartbeat and removes this instance (call after its work was given back). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.beating;
    await this.stores.instances.deregister(this.id).catch(() => undefined);
  }

  private async beat(): Promise<void> {
    try {
      const alive = await this.stores.instances.heartbeat(this.id, this.now(), this.ttlMs);
      if (!alive) {
        // Declared dead by another process (this one stalled past the TTL): its leases were released,
        // and the chunks it still runs lose them at their next renewal. It serves on as a new life.
        this.logger?.warn({ instance: this.id }, 'this instance was declared dead by another; registering again');
        await this.stores.instances.register(this.id, this.role, this.now(), this.ttlMs);
      }
      await this.recover();
    } catch (error) {
      // The database may be away for a moment; the next beat tries again (readiness reports it).
      this.logger?.warn({ err: error }, 'instance heartbeat failed');
    }
  }
}
