// The scheduler in front of a worker pool (docs/DESIGN.md "Engine scheduler"). The pool runs one call
// per worker and never queues: calls wait here, and whenever a compute slot is free the next one due
// goes to a worker. Next due means: the most urgent class with calls waiting (WORK_CLASSES' order);
// inside it the next tenant in turn, then that tenant's next request in turn, then that request's
// oldest call. Work-conserving: a free slot always takes a waiting call, whatever its class.
//
// Holding batch work: with `urgentSlots`, the pool has that many workers beyond its compute slots.
// When every slot computes and one of them runs batch work, an urgent call (any class above batch)
// does not wait for it to end: the batch call is held (its compute thread sleeps at the next step of
// its graph, native/abort-control.h) and the urgent call runs on a spare worker in its place. A held
// call resumes, where it stopped, as soon as a slot is free again, before any waiting batch call
// starts. Nothing is computed twice and at most `slots` calls compute at once. Without spare workers
// (or for calls that cannot be held), urgent work waits at most for the first running call to end:
// one decoding window.
//
// Lending idle slots: a call of a class in `lendTo` that starts while nothing else waits, and whose
// request has had the engine to itself lately (recent-requests.ts), takes the slots that are idle too
// and computes with their threads (whisper.cpp's threads are per call): a lone inline request or
// realtime final on a quiet box uses the whole box instead of one core of it. The decision waits one
// turn of the event loop (setImmediate), so that the other windows of a request, scheduled in the same
// turn, take those slots instead. Slots lent count as computing until the call ends: what arrives
// meanwhile waits for it (one window, decoded faster), never shares its cores. Batch calls are never
// lent to: a held call with several threads would leave them spinning.
//
// Bounds keep the engine's refusal semantics ('queue_full', answered 503 capacity_unavailable): each
// class holds at most `maxQueue` waiting requests. A request already waiting may always add calls (its
// windows are one piece of work, admitted as a whole); a call that finds a worker free never waits.
import { type EngineWork, WORK_CLASSES, type WorkClass } from '../domain/work-classes.js';
import { abortError, EngineError } from './engine-errors.js';
import { RecentRequests } from './recent-requests.js';

/** What one class's queue reports (engine stats, /metrics). */
export interface WorkClassStats {
  /** Calls waiting. */
  queued: number;
  /** Requests with calls waiting (what maxQueue bounds). */
  waitingRequests: number;
  /** Calls handed to a worker since the engine opened. */
  dispatched: number;
  /** Seconds those calls waited, summed (the mean wait is this over dispatched). */
  waitSeconds: number;
  /** How long the oldest waiting call has waited, in seconds (0 when none waits). */
  oldestWaitSeconds: number;
}

/** Calls with no work given: one request each, of one anonymous tenant, as urgent as an inline request. */
export const UNTAGGED_WORK_CLASS: WorkClass = 'interactive';
const UNTAGGED_TENANT = '';

/** A running call that can be paused where it is and resumed later (the engine's control array). */
export interface Holdable {
  hold(): void;
  resume(): void;
}

/** Starts a call computing on `share` slots (1, or more where idle slots were lent to it). */
export type StartCall = (share: number) => Promise<unknown>;

interface WaitingCall {
  /** The request it belongs to, where the caller named one. */
  request: string | undefined;
  start: StartCall;
  holdable: Holdable | undefined;
  /** Handed to a worker (no longer waiting). */
  dispatched: boolean;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  enqueuedAt: number;
  detach: () => void;
}

/** Items taken in turn: the next after the last one served, wrapping around. */
class Rotation<T> {
  readonly items: T[] = [];
  private next = 0;

  add(item: T): void {
    this.items.push(item);
  }

  /** The item whose turn it is; the turn passes to the one after it. */
  take(): T | undefined {
    if (this.items.length === 0) return undefined;
    if (this.next >= this.items.length) this.next = 0;
    return this.items[this.next++];
  }

  remove(item: T): void {
    const at = this.items.indexOf(item);
    if (at < 0) return;
    this.items.splice(at, 1);
    // The item after the removed one keeps its turn.
    if (at < this.next) this.next--;
  }
}

interface RequestQueue {
  request: string;
  calls: WaitingCall[];
}

interface TenantQueue {
  tenant: string;
  requests: Rotation<RequestQueue>;
  byRequest: Map<string, RequestQueue>;
}

class ClassQueue {
  readonly tenants = new Rotation<TenantQueue>();
  readonly byTenant = new Map<string, TenantQueue>();
  waitingRequests = 0;
  queued = 0;
  dispatched = 0;
  waitSeconds = 0;

  has(tenant: string, request: string): boolean {
    return this.byTenant.get(tenant)?.byRequest.has(request) ?? false;
  }

  push(tenant: string, request: string, call: WaitingCall): void {
    let t = this.byTenant.get(tenant);
    if (!t) {
      t = { tenant, requests: new Rotation(), byRequest: new Map() };
      this.byTenant.set(tenant, t);
      this.tenants.add(t);
    }
    let r = t.byRequest.get(request);
    if (!r) {
      r = { request, calls: [] };
      t.byRequest.set(request, r);
      t.requests.add(r);
      this.waitingRequests++;
    }
    r.calls.push(call);
    this.queued++;
  }

  /** The call due next in this class, removed from the queue. */
  take(): WaitingCall | undefined {
    const t = this.tenants.take();
    if (!t) return undefined;
    const r = t.requests.take()!;
    const call = r.calls.shift()!;
    this.forget(t, r);
    return call;
  }

  /** A waiting call withdrawn (its caller gave up). */
  remove(tenant: string, request: string, call: WaitingCall): boolean {
    const t = this.byTenant.get(tenant);
    const r = t?.byRequest.get(request);
    const at = r ? r.calls.indexOf(call) : -1;
    if (!t || !r || at < 0) return false;
    r.calls.splice(at, 1);
    this.forget(t, r);
    return true;
  }

  oldest(): number {
    let oldest = Infinity;
    for (const t of this.tenants.items) for (const r of t.requests.items) if (r.calls.length > 0) oldest = Math.min(oldest, r.calls[0].enqueuedAt);
    return oldest;
  }

  /** After a call left: empty requests and tenants leave their rotations. */
  private forget(t: TenantQueue, r: RequestQueue): void {
    this.queued--;
    if (r.calls.length > 0) return;
    t.requests.remove(r);
    t.byRequest.delete(r.request);
    this.waitingRequests--;
    if (t.byRequest.size > 0) return;
    this.tenants.remove(t);
    this.byTenant.delete(t.tenant);
  }
}

interface RunningCall {
  workClass: WorkClass;
  holdable: Holdable | undefined;
  held: boolean;
  /** Slots it computes on: 1, more where idle ones were lent to it. */
  share: number;
}

export interface WorkSchedulerOptions {
  /** Workers beyond the compute slots, for urgent calls that hold batch work (see above). Default 0. */
  urgentSlots?: number;
  /** Classes whose calls take the idle slots when they start with nothing else waiting (see above). Default none. */
  lendTo?: readonly WorkClass[];
  /** The requests at work on the engine, shared by its lanes (each lane's calls mark theirs seen). */
  recent?: RecentRequests;
  clock?: () => number;
}

export class WorkScheduler {
  private readonly running = new Set<RunningCall>();
  private readonly queues = Object.fromEntries(WORK_CLASSES.map((c) => [c, new ClassQueue()])) as Record<WorkClass, ClassQueue>;
  private readonly urgentSlots: number;
  private readonly lendTo: ReadonlySet<WorkClass>;
  private readonly recent: RecentRequests;
  private lent = 0;
  private readonly clock: () => number;
  private untagged = 0;
  private holds = 0;
  private idle: Array<() => void> = [];

  constructor(
    /** Calls that may compute at once (the pool's workers, less its urgent ones). */
    readonly slots: number,
    /** Requests that may wait, per class. */
    readonly maxQueue: number,
    options: WorkSchedulerOptions = {},
  ) {
    this.urgentSlots = options.urgentSlots ?? 0;
    this.lendTo = new Set(options.lendTo ?? []);
    this.recent = options.recent ?? new RecentRequests();
    if (this.lendTo.has('batch')) throw new RangeError('batch calls are never lent idle slots');
    this.clock = options.clock ?? (() => performance.now());
  }

  /** Calls on a worker now, held ones included. */
  get active(): number {
    return this.running.size;
  }

  /** Calls held now (their workers wait for a slot). */
  get held(): number {
    let held = 0;
    for (const call of this.running) if (call.held) held++;
    return held;
  }

  /** Slots lent to calls that started alone, summed since the start. */
  get slotsLent(): number {
    return this.lent;
  }

  /** Times a batch call was held for an urgent one, since the start. */
  get holdsMade(): number {
    return this.holds;
  }

  /** Calls waiting now, all classes. */
  get queued(): number {
    return WORK_CLASSES.reduce((sum, c) => sum + this.queues[c].queued, 0);
  }

  /** Whether a new request of `workClass` would be admitted now (a free slot, or room in its queue). */
  hasRoomFor(workClass: WorkClass): boolean {
    return this.computing < this.slots || this.queues[workClass].waitingRequests < this.maxQueue;
  }

  stats(): Record<WorkClass, WorkClassStats> {
    const now = this.clock();
    return Object.fromEntries(
      WORK_CLASSES.map((c) => {
        const q = this.queues[c];
        const oldest = q.oldest();
        return [
          c,
          {
            queued: q.queued,
            waitingRequests: q.waitingRequests,
            dispatched: q.dispatched,
            waitSeconds: q.waitSeconds,
            oldestWaitSeconds: oldest === Infinity ? 0 : (now - oldest) / 1000,
          },
        ];
      }),
    ) as Record<WorkClass, WorkClassStats>;
  }

  /**
   * Runs `start` once a slot is free and the call is due; settles as its promise does. Rejects with
   * 'queue_full' when the call would have to wait and its class has no room for another request, and
   * with an AbortError when `signal` aborts while it waits (it never starts then). `holdable`: how to
   * pause the call once running, if it is batch work and urgent work needs its slot.
   */
  schedule(work: EngineWork | undefined, start: StartCall, signal?: AbortSignal, holdable?: Holdable): Promise<unknown> {
    if (signal?.aborted) return Promise.reject(abortError());
    const workClass = work?.workClass ?? UNTAGGED_WORK_CLASS;
    const tenant = work?.tenant ?? UNTAGGED_TENANT;
    // Each untagged call is a request of its own.
    const request = work?.request ?? `untagged:${this.untagged++}`;
    if (work) this.recent.seen(work.request);
    const queue = this.queues[workClass];
    const joining = queue.has(tenant, request);
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        if (queue.remove(tenant, request, call)) reject(abortError());
      };
      const call: WaitingCall = {
        request: work?.request,
        start,
        holdable,
        dispatched: false,
        resolve,
        reject,
        enqueuedAt: this.clock(),
        detach: () => signal?.removeEventListener('abort', onAbort),
      };
      queue.push(tenant, request, call);
      this.dispatch();
      if (call.dispatched) return;
      // Still waiting: a request new to its class needs room there.
      if (!joining && queue.waitingRequests > this.maxQueue && queue.remove(tenant, request, call)) {
        reject(new EngineError('queue_full', `the engine queue is full (${this.maxQueue} ${workClass} requests waiting)`));
        return;
      }
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Resolves once nothing waits or runs. */
  drained(): Promise<void> {
    if (this.running.size === 0 && this.queued === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  /** Slots computing now (running calls not held, with the slots lent to them). */
  private get computing(): number {
    let computing = 0;
    for (const call of this.running) if (!call.held) computing += call.share;
    return computing;
  }

  /** Hands waiting calls to free slots, most urgent class first; holds and resumes batch calls. */
  private dispatch(): void {
    for (;;) {
      const next = WORK_CLASSES.find((c) => this.queues[c].queued > 0);
      const workerFree = this.running.size < this.slots + this.urgentSlots;
      if (this.computing < this.slots) {
        const held = this.firstHeld();
        // A held call holds a worker and its memory: it goes on before new batch work starts.
        if (held && (next === undefined || next === 'batch' || !workerFree)) {
          held.held = false;
          held.holdable!.resume();
          continue;
        }
        if (next !== undefined && workerFree) {
          this.start(next);
          continue;
        }
        break;
      }
      // Every slot computes: urgent work takes the slot of a batch call, which is held meanwhile.
      if (next === undefined || next === 'batch' || !workerFree) break;
      const displaced = this.holdableBatchCall();
      if (!displaced) break;
      displaced.held = true;
      this.holds++;
      displaced.holdable!.hold();
      this.start(next);
    }
    if (this.running.size === 0 && this.queued === 0) {
      const waiting = this.idle;
      this.idle = [];
      for (const resolve of waiting) resolve();
    }
  }

  private start(workClass: WorkClass): void {
    const queue = this.queues[workClass];
    const call = queue.take()!;
    call.dispatched = true;
    call.detach();
    queue.dispatched++;
    queue.waitSeconds += (this.clock() - call.enqueuedAt) / 1000;
    const running: RunningCall = { workClass, holdable: call.holdable, held: false, share: 1 };
    this.running.add(running);
    if (!this.lendTo.has(workClass) || this.computing >= this.slots) {
      this.launch(call, running);
      return;
    }
    // Idle slots now: whether they stay idle is known once this turn's other calls are scheduled.
    setImmediate(() => {
      if (this.queued === 0 && !this.recent.othersAtWork(call.request ?? '')) {
        const idle = Math.max(0, this.slots - this.computing);
        running.share += idle;
        this.lent += idle;
      }
      this.launch(call, running);
    });
  }

  private launch(call: WaitingCall, running: RunningCall): void {
    let started: Promise<unknown>;
    try {
      started = call.start(running.share);
    } catch (error) {
      started = Promise.reject(error);
    }
    started
      .finally(() => {
        // A request is at work until a while after its last call ends, not only after it was scheduled.
        if (call.request !== undefined) this.recent.seen(call.request);
        this.running.delete(running);
        this.dispatch();
      })
      .then(call.resolve, call.reject);
  }

  private firstHeld(): RunningCall | undefined {
    for (const call of this.running) if (call.held) return call;
    return undefined;
  }

  private holdableBatchCall(): RunningCall | undefined {
    for (const call of this.running) if (call.workClass === 'batch' && !call.held && call.holdable) return call;
    return undefined;
  }
}
