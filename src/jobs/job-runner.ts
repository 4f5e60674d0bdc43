// The worker loop: claims runnable jobs with a lease, has one chunk of audio processed per claim
// (job-chunk.ts), and has the job ended by a transition that only the lease holder can make
// (job-completion.ts). What happens here is scheduling: the loops, claims, wake-ups and idling,
// shutdown, and what a failed claim means (retry later, or fail the job).
//
// Fairness policy: a claim processes at most one chunk (`chunkSeconds` of audio, 5 minutes by
// default), then the job goes to the back of the queue (its `ready_at` becomes now). Jobs are claimed
// oldest `ready_at` first, so a newly accepted job waits for at most one chunk of each job ahead of
// it, never for whole recordings: with one worker and two 2-hour jobs running, a 40-second job starts
// within about two chunks' time. Work in progress is never lost to a requeue: each chunk's text is
// committed (as the provisional result) before the next chunk is claimed.
//
// Crash safety: the job row is the truth. A process that dies mid-chunk loses that chunk only; at
// restart its leases are released (InstanceLifecycle) and the chunk runs again. A job whose
// claims keep ending without progress (it crashes the process, say) fails `internal_error` after
// MAX_STALLED_CLAIMS instead of looping forever. Audio is deleted only after the terminal transition
// is committed (job-completion.ts).
//
// Audit: each claim, committed chunk and terminal transition is a job audit line (job-audit.ts),
// written only once the store has recorded it.
import { AudioSourceUnavailableError } from '../audio/index.js';
import type { UsageBilling } from '../billing/usage-billing.js';
import type { ServiceConfig } from '../config/service-config.js';
import { FLAGSHIP_MODEL, type ModelId } from '../domain/model-ids.js';
import type { Engine } from '../engine/engine.js';
import { EngineError, isAbortError } from '../engine/engine-errors.js';
import type { PipelineEngines } from '../pipeline/pipeline-engine.js';
import { isDiskFull } from '../store/disk-space.js';
import { TenantErasedError } from '../store/erased-tenants.js';
import { leaseOwnerOf } from '../store/instance-registry.js';
import type { JobRecord, JobStore } from '../store/job-store.js';
import type { KeyStore } from '../store/key-store.js';
import type { TenantBlobs } from '../store/sealed-blob-store.js';
import { isStoreUnavailable } from '../store/store-unavailable-error.js';
import type { VoiceProfileStore } from '../store/voice-profile-store.js';
import { audioUrlSeconds } from './job-audio-url.js';
import { auditSeconds, JOB_AUDIT_EVENTS, jobOwnerSubject, logJobAudit } from './job-audit.js';
import { JobChunkProcessor } from './job-chunk.js';
import { JobCompletion, type JobObserver } from './job-completion.js';
import { DECORATION_LEASE_MS, JobDecorator } from './job-decoration.js';
import type { JobEvents } from './job-events.js';
import { failureOfAudio, JOB_FAILURE_MESSAGES, JobFailure } from './job-failure.js';
import { JobLease } from './job-lease.js';
import type { JobQueue } from './job-queue.js';
import { inJobTrace } from './job-trace.js';

export type { JobObserver };

/** Seconds of audio per claim (see the fairness policy above). */
export const DEFAULT_CHUNK_SECONDS = 300;
export const DEFAULT_LEASE_MS = 60_000;
/** Claims that ended without progress before a job is failed rather than retried. */
export const MAX_STALLED_CLAIMS = 3;
/** With nothing to claim, look again this often even without a wake-up (expired leases, missed wakes). */
const IDLE_POLL_MS = 2_000;
/** After the engine refused work (queue full), wait this long before claiming again. */
const BUSY_BACKOFF_MS = 500;
/** After storage or the database failed, wait this long: an outage is not over in milliseconds. */
const STORE_BACKOFF_MS = 5_000;
/** While the database is away, a lease to give back is offered again this often. */
const RELEASE_RETRY_MS = 1_000;
/** A decoration that meets a busy engine or a storage outage retries this often before giving its lease back. */
const DECORATION_RETRIES = 10;

export interface JobRunnerDeps {
  config: ServiceConfig;
  /** This process's registered instance id; the loops lease as '<instanceId>/<n>'. */
  instanceId: string;
  jobs: JobStore;
  blobs: TenantBlobs;
  keys: KeyStore;
  engines: Record<ModelId, Engine>;
  /** The pipeline's engine calls per model (pipeline-engine.ts): the same engines, with the VAD. */
  stages: PipelineEngines;
  modelBuilds: Record<ModelId, string>;
  /** The tenants' enrolled voices a diarized job names (its decoration looks them up). */
  voices: Pick<VoiceProfileStore, 'get'>;
  events: JobEvents;
  /** Meters each job as it ends (recorded with its success). */
  billing: UsageBilling;
  clock?: () => Date;
  /** Chunks processed at once (default: the engine's worker count). */
  concurrency?: number;
  chunkSeconds?: number;
  leaseMs?: number;
  /** How long a decoration is held before another worker may take it over (default DECORATION_LEASE_MS). */
  decorationLeaseMs?: number;
  log?: { info(obj: object, msg: string): void; error(obj: object, msg: string): void; warn(obj: object, msg: string): void };
  /** Told when a job with a webhook succeeded, so its event's first attempt is immediate. */
  webhooks?: { kick(): void };
  /** Told when a job ends here (the service's metrics). */
  observer?: JobObserver;
}

export class JobRunner implements JobQueue {
  /** This process's instance (src/store/instance-registry.ts): its leases are released if it dies. */
  readonly instanceId: string;
  private readonly clock: () => Date;
  private readonly leaseMs: number;
  private readonly decorationLeaseMs: number;
  private readonly decorator: JobDecorator;
  private readonly chunks: JobChunkProcessor;
  private readonly completion: JobCompletion;
  private readonly stopping = new AbortController();
  /** Set when shutdown begins: no new claim; chunks in flight may finish within the drain time. */
  private draining = false;
  private loops: Promise<void>[] = [];
  private wakeUp: (() => void) | null = null;
  private wakePending = false;

  constructor(private readonly deps: JobRunnerDeps) {
    this.clock = deps.clock ?? (() => new Date());
    this.leaseMs = deps.leaseMs ?? DEFAULT_LEASE_MS;
    this.decorationLeaseMs = deps.decorationLeaseMs ?? DECORATION_LEASE_MS;
    this.instanceId = deps.instanceId;
    this.decorator = new JobDecorator({
      ...deps,
      audioSource: (tenant, path) => deps.blobs.forTenant(tenant).audioSource(path, audioUrlSeconds(deps.config.decodeTimeoutMs)),
      clock: () => this.now(),
    });
    this.chunks = new JobChunkProcessor(deps, { chunkSeconds: deps.chunkSeconds ?? DEFAULT_CHUNK_SECONDS, clock: this.clock });
    this.completion = new JobCompletion(deps, { clock: this.clock, decorationLeaseMs: this.decorationLeaseMs });
  }

  /** Starts the loops (work of dead processes is released by the instance lifecycle, src/service/instance-lifecycle.ts). */
  start(): void {
    const concurrency = this.deps.concurrency ?? this.deps.engines[FLAGSHIP_MODEL].workers;
    this.loops = Array.from({ length: Math.max(1, concurrency) }, (_, i) => this.loop(leaseOwnerOf(this.instanceId, i)));
  }

  enqueue(_jobId: string): void {
    this.wake();
  }

  /**
   * Stops claiming; chunks in flight get up to `drainMs` to finish and commit, then the rest are
   * aborted (their leases released at once, so another worker reruns them without waiting).
   */
  async stop(drainMs = 0): Promise<void> {
    this.draining = true;
    this.wake();
    if (drainMs > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.all(this.loops), new Promise((resolve) => (timer = setTimeout(resolve, drainMs)))]);
      clearTimeout(timer);
    }
    this.stopping.abort(new Error('the server is shutting down'));
    this.wake();
    await Promise.all(this.loops);
  }

  private now(): number {
    return this.clock().getTime();
  }

  private wake(): void {
    this.wakePending = true;
    const wake = this.wakeUp;
    this.wakeUp = null;
    wake?.();
  }

  private async idle(): Promise<void> {
    if (this.wakePending) {
      this.wakePending = false;
      return;
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, IDLE_POLL_MS);
      const previous = this.wakeUp;
      this.wakeUp = done;
      function done() {
        clearTimeout(timer);
        previous?.();
        resolve();
      }
    });
    this.wakePending = false;
  }

  private async loop(workerId: string): Promise<void> {
    while (!this.stopping.signal.aborted && !this.draining) {
      let job: JobRecord | null = null;
      try {
        job = await this.deps.jobs.claimNext(workerId, this.now(), this.leaseMs);
      } catch (error) {
        this.deps.log?.error({ err: error }, 'claiming a job failed');
      }
      if (!job) {
        // No text to transcribe: a decoration whose worker died may be waiting.
        const decoration = await this.deps.jobs.claimDecoration(workerId, this.now(), this.decorationLeaseMs).catch((error: unknown) => {
          this.deps.log?.error({ err: error }, 'claiming a decoration failed');
          return null;
        });
        if (decoration) await inJobTrace(decoration, 'decoration', () => this.decorate(decoration, workerId));
        else await this.idle();
        continue;
      }
      logJobAudit(this.deps.log, JOB_AUDIT_EVENTS.claimed, jobOwnerSubject(job), {
        chunkIndex: job.resultRevision,
        completedAudioSeconds: auditSeconds(job.completedAudioSeconds),
      });
      // Other loops may have work waiting too.
      this.wake();
      // A long poll returns on every state change: `accepted` -> `running` too.
      this.deps.events.notify(job.id);
      let backoffMs: number;
      try {
        const claimed = job;
        backoffMs = await inJobTrace(claimed, 'chunk', () => this.step(claimed, workerId));
      } catch (error) {
        // Recording the outcome failed (the database went away): the job is given back (or its lease
        // runs out) and claimed again; this loop must live on (an escaped rejection would end the process).
        this.deps.log?.error({ err: error, jobId: job.id }, 'recording a job outcome failed; the job is given back and retried');
        await this.releaseLease(job.id, workerId);
        backoffMs = STORE_BACKOFF_MS;
      }
      if (backoffMs > 0) await new Promise((resolve) => setTimeout(resolve, backoffMs));
    }
  }

  /** Processes one chunk of a claimed job. Returns how long to wait before the next claim (0: none). */
  private async step(job: JobRecord, workerId: string): Promise<number> {
    const lease = new JobLease(this.deps.jobs, job.id, workerId, this.leaseMs, this.clock, this.stopping.signal);
    try {
      if (job.stalledClaims >= MAX_STALLED_CLAIMS) {
        this.deps.log?.warn({ jobId: job.id, stalledClaims: job.stalledClaims }, 'job failed after repeated stalled claims');
        throw new JobFailure('internal_error', JOB_FAILURE_MESSAGES.internal);
      }
      const finished = await this.chunks.process(job, workerId, lease.signal);
      // The last chunk ends the job; a decorated job's speakers follow at once, on this worker.
      const decoration = finished ? await this.completion.succeed(job, workerId, finished) : null;
      if (decoration) await this.decorate(decoration, workerId);
      return 0;
    } catch (error) {
      if (lease.signal.aborted || isAbortError(error)) {
        // Shutdown or a lost lease: give the job back untouched; the chunk runs again.
        await this.releaseLease(job.id, workerId);
        return 0;
      }
      if (error instanceof EngineError && (error.code === 'queue_full' || error.code === 'engine_closed')) {
        await this.releaseLease(job.id, workerId);
        return BUSY_BACKOFF_MS;
      }
      // Storage or the database away for a moment, or the disk full (not the audio's fault): the chunk runs again later.
      if (storageAway(error)) {
        this.deps.log?.warn({ err: error, jobId: job.id }, 'storage unavailable; the job is given back and retried');
        await this.releaseLease(job.id, workerId);
        return STORE_BACKOFF_MS;
      }
      const failure = failureOfAudio(error);
      // Its tenant erased while this worker held it: nothing was sealed or stored, and the row is gone.
      if (error instanceof TenantErasedError) this.deps.log?.warn({ jobId: job.id }, "the job's tenant was erased; the job ends, nothing written");
      else if (!failure) this.deps.log?.error({ err: error, jobId: job.id }, 'job failed unexpectedly');
      await this.completion.fail(job, workerId, failure ?? new JobFailure('internal_error', JOB_FAILURE_MESSAGES.internal));
      return 0;
    } finally {
      lease.stop();
    }
  }

  /**
   * Runs a decoration this worker holds to its end. A busy engine or a storage outage is waited out
   * (the lease is long); shutdown gives the lease back; any other failure ends it unavailable.
   */
  private async decorate(job: JobRecord, workerId: string): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await this.decorator.decorate(job, workerId, this.stopping.signal);
        this.deps.events.notify(job.id);
        return;
      } catch (error) {
        if (this.stopping.signal.aborted || isAbortError(error)) {
          await this.releaseLease(job.id, workerId);
          return;
        }
        const busy = error instanceof EngineError && (error.code === 'queue_full' || error.code === 'engine_closed');
        const away = storageAway(error);
        if ((busy || away) && attempt < DECORATION_RETRIES) {
          await this.pause(busy ? BUSY_BACKOFF_MS : STORE_BACKOFF_MS);
          continue;
        }
        if (busy || away) {
          this.deps.log?.warn({ err: error, jobId: job.id }, 'decoration postponed; its lease is given back');
          await this.releaseLease(job.id, workerId);
          return;
        }
        this.deps.log?.error({ err: error, jobId: job.id }, 'decoration failed; the result is marked unavailable');
        try {
          await this.decorator.giveUp(job, workerId);
          this.deps.events.notify(job.id);
        } catch (giveUpError) {
          // The lease runs out and another claim gives it up (or succeeds).
          this.deps.log?.error({ err: giveUpError, jobId: job.id }, 'marking a decoration unavailable failed');
        }
        return;
      }
    }
  }

  /** Waits, unless shutdown begins meanwhile. */
  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.stopping.signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.stopping.signal.addEventListener('abort', done, { once: true });
    });
  }

  /**
   * Gives a lease back. Most leases given back are given back because the database went away, and
   * then the release fails too: it is tried again until the database answers, the lease has run out
   * anyway, or shutdown begins, so a blip of a few seconds delays the job by the blip rather than by
   * a whole lease. The release names its owner, so a late one never touches another worker's claim.
   */
  private async releaseLease(jobId: string, workerId: string): Promise<void> {
    const expiresBy = this.now() + this.leaseMs;
    for (;;) {
      try {
        await this.deps.jobs.releaseLease(jobId, workerId, this.now());
        return;
      } catch (error) {
        if (!storageAway(error) || this.now() >= expiresBy || this.stopping.signal.aborted) {
          this.deps.log?.error({ err: error, jobId }, 'releasing a lease failed; the job waits for the lease to expire');
          return;
        }
        await this.pause(RELEASE_RETRY_MS);
      }
    }
  }
}

/**
 * A failure that ends when storage comes back, not a fault of the job: the database or the bucket
 * unreachable, job audio that cannot be fetched for now, a full disk (ENOSPC, SQLITE_FULL) until
 * space is freed. The job is given back and claimed again later.
 */
function storageAway(error: unknown): boolean {
  return isStoreUnavailable(error) || isDiskFull(error) || (error instanceof AudioSourceUnavailableError && error.reason !== 'not_found');
}
