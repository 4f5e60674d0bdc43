// How a job ends: succeeded with its final result (metered with the success itself), or failed with
// a stored failure code. Each terminal transition is made only by the lease holder and carries the
// job's webhook event in the same transaction. Only once the store has recorded it come the audit
// lines, the metrics, the webhook worker's wake-up and the deletion of what the job no longer needs
// (docs/DESIGN.md "Reliability rules"): a crash between the two leaves an unreferenced file, which
// the sweeper removes.
import type { UsageBilling } from '../billing/usage-billing.js';
import type { ServiceConfig } from '../config/service-config.js';
import type { ModelId } from '../domain/model-ids.js';
import type { JobRecord, JobStore } from '../store/job-store.js';
import type { KeyStore } from '../store/key-store.js';
import type { TenantBlobs } from '../store/sealed-blob-store.js';
import { auditSeconds, JOB_AUDIT_EVENTS, jobOwnerSubject, logJobAudit } from './job-audit.js';
import type { CarryOver } from './job-carry-over.js';
import { decorates, pendingDecoration } from './job-decoration.js';
import type { JobEvents } from './job-events.js';
import type { JobFailure } from './job-failure.js';
import { finalContextOf } from './job-final-context.js';
import { makeRedactedAudio } from './job-redacted-audio.js';
import { parseStoredJobRequest, type StoredJobRequest } from './job-request.js';
import { effectiveRetentionHours, retentionFrom } from './job-retention.js';
import { type AssembledTranscript, finalResult } from './job-transcript.js';
import { jobUsage, meterUnsupportedLanguage } from './job-usage.js';
import { jobEventInput, jobFailedEvent, jobSucceededEvent } from './job-webhook-events.js';

export interface JobObserver {
  /** `processingSeconds`: wall time of this job's chunks on workers, summed over claims. */
  jobSucceeded(model: ModelId, processingSeconds: number, audioSeconds: number): void;
  jobFailed(): void;
}

export interface JobCompletionDeps {
  config: Pick<ServiceConfig, 'publicBaseUrl' | 'retentionHours' | 'decodeTimeoutMs' | 'maxAudioSeconds'>;
  jobs: JobStore;
  blobs: TenantBlobs;
  keys: KeyStore;
  modelBuilds: Record<ModelId, string>;
  events: JobEvents;
  billing: UsageBilling;
  log?: { info(obj: object, msg: string): void; error(obj: object, msg: string): void; warn(obj: object, msg: string): void };
  webhooks?: { kick(): void };
  observer?: JobObserver;
}

/** What the job's last chunk leaves for its success: the whole text and what was carried to it. */
export interface FinishedText {
  request: StoredJobRequest;
  carry: CarryOver;
  transcript: AssembledTranscript;
  /** `redact_output=redacted_and_unredacted`: the same transcript unredacted (job-unredacted.ts); null otherwise. */
  unredacted: AssembledTranscript | null;
  /** Where the text ends, seconds into the recording. */
  endSeconds: number;
}

export class JobCompletion {
  constructor(
    private readonly deps: JobCompletionDeps,
    private readonly settings: { clock: () => Date; decorationLeaseMs: number },
  ) {}

  /**
   * Records the job's success with its last chunk. Returns the succeeded row when its decoration is
   * this worker's to run next (it holds the decoration's lease); null otherwise.
   */
  async succeed(job: JobRecord, workerId: string, finished: FinishedText): Promise<JobRecord | null> {
    const { jobs } = this.deps;
    const blobs = this.deps.blobs.forTenant(job.tenant);
    const { request, carry, transcript, unredacted, endSeconds } = finished;
    const { decorationLeaseMs } = this.settings;
    const finalCarry: CarryOver = { ...carry, endSeconds };
    const context = await finalContextOf(job, request, finalCarry, this.deps);
    const now = this.now();
    const decorating = decorates(request);
    // A decorated job's text is final now; its speakers (and words) follow in the decoration.
    const result = decorating
      ? finalResult(transcript, {
          ...context,
          decoration: pendingDecoration(now, decorationLeaseMs),
          speakerTiming: {
            word_timing: false,
            speaker_ceiling_reached: false,
            requested_max_speakers: request.maxSpeakers,
            detected_speaker_count: 0,
            speaker_ceiling_action: 'none',
          },
        })
      : finalResult(transcript, context);
    const stored = await blobs.writeResult(job.id, { kind: 'final' }, result.body);
    // Made while the audio is still there; a copy that fails is left out, the job succeeds all the same.
    const redactedAudioPath = request.clinicalText.redactAudio
      ? await makeRedactedAudio(this.deps, job, carry.container, transcript.redactions ?? [], request.clinicalText.redactAudioFill)
      : null;
    // Shaped as the result before any decoration: the speakers the decoration attaches go to the redacted result only.
    const kept = unredacted ? await blobs.writeResult(job.id, { kind: 'unredacted' }, finalResult(unredacted, context).body) : null;
    // The decoration reads the whole transcript (with its words) from the provisional result.
    const partial = decorating ? await blobs.writeResult(job.id, { kind: 'partial', revision: job.resultRevision + 1 }, JSON.stringify(transcript)) : null;
    // The webhook event is written with the transition itself (one transaction), never after it.
    const eventInput = jobEventInput(job, this.deps.config.publicBaseUrl, now);
    const event = eventInput ? jobSucceededEvent(eventInput) : null;
    const usage = await jobUsage(this.deps.billing, this.deps.keys, job, request, carry, endSeconds);
    const won = await jobs.succeed(
      job.id,
      workerId,
      { resultPath: stored.path, resultBytes: stored.bytes, contentType: result.contentType, redactedAudioPath, unredactedPath: kept?.path ?? null },
      await this.retention(job, now),
      now,
      event,
      partial ? { leaseMs: decorationLeaseMs, progress: finalCarry, partialPath: partial.path } : null,
      // Metered with the success itself: exactly once, whatever crashed or ran again before.
      usage,
    );
    if (!won) {
      if (partial) await blobs.delete(partial.path).catch(() => {});
      return null;
    }
    this.deps.observer?.jobSucceeded(request.model, (carry.processingMs ?? 0) / 1000, endSeconds);
    this.deps.billing.recorded(usage.event);
    // The last chunk is committed with the success itself.
    logJobAudit(this.deps.log, JOB_AUDIT_EVENTS.chunkDone, jobOwnerSubject(job), {
      chunkIndex: job.resultRevision,
      chunkSeconds: auditSeconds(endSeconds - job.completedAudioSeconds),
      completedAudioSeconds: auditSeconds(endSeconds),
    });
    logJobAudit(this.deps.log, JOB_AUDIT_EVENTS.succeeded, jobOwnerSubject(job), {
      audioSeconds: auditSeconds(endSeconds),
      processingSeconds: auditSeconds((carry.processingMs ?? 0) / 1000),
      // That a copy exists, never what it says.
      ...(kept ? { unredactedKept: true } : {}),
    });
    if (event) this.deps.webhooks?.kick();
    // Committed: the audio and the provisional result are no longer needed (docs/DESIGN.md "Reliability rules": deleted when the
    // job ends), unless the decoration still reads them.
    const done = partial ? [job.partialPath, job.unredactedPath] : [job.audioPath, job.partialPath, job.unredactedPath];
    for (const path of done) if (path && path !== partial?.path && path !== kept?.path) await blobs.delete(path).catch(() => {});
    this.deps.events.notify(job.id);
    return partial ? await jobs.getById(job.id) : null;
  }

  async fail(job: JobRecord, workerId: string, failure: JobFailure): Promise<void> {
    const now = this.now();
    const eventInput = jobEventInput(job, this.deps.config.publicBaseUrl, now);
    const event = eventInput ? jobFailedEvent(eventInput, failure.code) : null;
    const released = await this.deps.jobs.fail(
      job.id,
      { workerId },
      { code: failure.code, message: failure.message },
      await this.retention(job, now),
      now,
      event,
    );
    if (!released) return;
    logJobAudit(this.deps.log, JOB_AUDIT_EVENTS.failed, jobOwnerSubject(job), { errorCode: failure.code });
    this.deps.observer?.jobFailed();
    // A safety counter only (no audio is billed for a failed job); losing it to an outage loses no money.
    await meterUnsupportedLanguage(this.deps.billing, this.deps.keys, job, parseStoredJobRequest(job.request), failure).catch((error: unknown) => {
      this.deps.log?.warn({ err: error, jobId: job.id }, 'metering a failed job failed');
    });
    if (event) this.deps.webhooks?.kick();
    for (const path of released.paths)
      await this.deps.blobs
        .forTenant(job.tenant)
        .delete(path)
        .catch(() => {});
    this.deps.events.notify(job.id);
  }

  private now(): number {
    return this.settings.clock().getTime();
  }

  private async retention(job: JobRecord, nowMs: number) {
    const keyHours = job.retentionHours ?? (await this.deps.keys.get(job.keyId))?.retentionHours ?? this.deps.config.retentionHours;
    return retentionFrom(nowMs, effectiveRetentionHours(job, keyHours));
  }
}
