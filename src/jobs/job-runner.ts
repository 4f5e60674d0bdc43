// The worker loop: claims runnable jobs with a lease, processes one chunk of audio per claim, and
// records the outcome with a transition that only the lease holder can make.
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
// is committed; a crash between the two leaves an unreferenced file, which the sweeper removes.
//
// Audit: each claim, committed chunk and terminal transition is a job audit line (job-audit.ts),
// written only once the store has recorded it.
import { FLAGSHIP_MODEL } from '../domain/model-ids.js';
import { addTallies, EMPTY_TALLY, shiftTally } from '../pipeline/prompted-recognition.js';
import {
  AudioSourceUnavailableError,
  DECODED_SAMPLE_RATE,
  decodeAudioWindow,
  probeAudio,
  sniffWithReader,
  type AudioContainer,
  type AudioSource,
} from '../audio/index.js';
import type { ServiceConfig } from '../config/service-config.js';
import type { Engine } from '../engine/engine.js';
import { EngineError, isAbortError } from '../engine/engine-errors.js';
import { isStoreUnavailable } from '../store/store-unavailable-error.js';
import { chooseCut, cutSearchSeconds } from '../pipeline/chunk-cut.js';
import type { PipelineEngines } from '../pipeline/pipeline-engine.js';
import { verboseBody } from '../contract/response-body.js';
import { runTranscription } from '../pipeline/run-transcription.js';
import { addPatternTallies, emptyPatternTally, shiftPatternTally } from '../pipeline/pattern-stage.js';
import type { SpeechRegion } from '../pipeline/speech-regions.js';
import { findSpeech } from '../pipeline/speech-stage.js';
import type { ModelId } from '../domain/model-ids.js';
import type { BlobStore } from '../store/blob-store.js';
import { leaseOwnerOf } from '../store/instance-registry.js';
import type { JobRecord, JobStore } from '../store/job-store.js';
import type { KeyStore } from '../store/key-store.js';
import { JOB_AUDIT_EVENTS, auditSeconds, jobOwnerSubject, logJobAudit } from './job-audit.js';
import type { JobEvents } from './job-events.js';
import { JOB_FAILURE_MESSAGES, JobFailure, failureOfAudio } from './job-failure.js';
import { carryOf, type CarryOver } from './job-carry-over.js';
import { DECORATION_LEASE_MS, JobDecorator, pendingDecoration } from './job-decoration.js';
import { finalContextOf } from './job-final-context.js';
import { INITIAL_LANGUAGE_STATE, afterChunk, chunkChoice, finalSource } from './job-language.js';
import { JobLease } from './job-lease.js';
import type { JobQueue } from './job-queue.js';
import { parseStoredJobRequest, type StoredJobRequest } from './job-request.js';
import { effectiveRetentionHours, retentionFrom } from './job-retention.js';
import { jobEventInput, jobFailedEvent, jobSucceededEvent } from './job-webhook-events.js';
import { jobUsage, meterUnsupportedLanguage } from './job-usage.js';
import type { UsageBilling } from '../billing/usage-billing.js';
import { appendChunk, emptyTranscript, finalResult, type AssembledTranscript } from './job-transcript.js';

/** A job whose speakers are attached after its text (job-decoration.ts): diarized, in a format with segments. */
function decorates(request: StoredJobRequest): boolean {
  return request.diarize && request.responseFormat !== 'text';
}

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
/** A decoration that meets a busy engine or a storage outage retries this often before giving its lease back. */
const DECORATION_RETRIES = 10;
/** A presigned audio URL outlives the longest decode it serves by this much (seconds). */
const AUDIO_URL_MARGIN_SECONDS = 300;
const MAX_AUDIO_URL_SECONDS = 7 * 24 * 3600;
/** Audio shorter than this is not a recording (docs/DESIGN.md decision 1): audio_undecodable. */
const MIN_AUDIO_SECONDS = 1;
/** A trailing window shorter than this holds no speech worth an engine call. */
const MIN_WINDOW_SECONDS = 0.05;

export interface JobRunnerDeps {
  config: ServiceConfig;
  /** This process's registered instance id; the loops lease as '<instanceId>/<n>'. */
  instanceId: string;
  jobs: JobStore;
  blobs: BlobStore;
  keys: KeyStore;
  engines: Record<ModelId, Engine>;
  /** The pipeline's engine calls per model (pipeline-engine.ts): the same engines, with the VAD. */
  stages: PipelineEngines;
  modelBuilds: Record<ModelId, string>;
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

export interface JobObserver {
  /** `processingSeconds`: wall time of this job's chunks on workers, summed over claims. */
  jobSucceeded(model: ModelId, processingSeconds: number, audioSeconds: number): void;
  jobFailed(): void;
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/** Regions clipped to the first `seconds` of the window (the chunk before its cut). */
function clipRegions(regions: SpeechRegion[], seconds: number): SpeechRegion[] {
  return regions.filter((r) => r.start < seconds).map((r) => ({ start: r.start, end: Math.min(r.end, seconds) }));
}

export class JobRunner implements JobQueue {
  /** This process's instance (src/store/instance-registry.ts): its leases are released if it dies. */
  readonly instanceId: string;
  private readonly clock: () => Date;
  private readonly chunkSeconds: number;
  private readonly leaseMs: number;
  private readonly decorationLeaseMs: number;
  private readonly decorator: JobDecorator;
  private readonly stopping = new AbortController();
  /** Set when shutdown begins: no new claim; chunks in flight may finish within the drain time. */
  private draining = false;
  private loops: Promise<void>[] = [];
  private wakeUp: (() => void) | null = null;
  private wakePending = false;

  constructor(private readonly deps: JobRunnerDeps) {
    this.clock = deps.clock ?? (() => new Date());
    this.chunkSeconds = deps.chunkSeconds ?? DEFAULT_CHUNK_SECONDS;
    this.leaseMs = deps.leaseMs ?? DEFAULT_LEASE_MS;
    this.decorationLeaseMs = deps.decorationLeaseMs ?? DECORATION_LEASE_MS;
    this.instanceId = deps.instanceId;
    this.decorator = new JobDecorator({
      ...deps,
      audioSource: (path) => deps.blobs.audioSource(path, this.audioUrlSeconds()),
      clock: () => this.now(),
    });
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
        if (decoration) await this.decorate(decoration, workerId);
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
        backoffMs = await this.step(job, workerId);
      } catch (error) {
        // Recording the outcome failed (the database went away): the lease runs out and the job is
        // claimed again; this loop must live on (an escaped rejection would end the process).
        this.deps.log?.error({ err: error, jobId: job.id }, 'recording a job outcome failed; the job is retried when its lease expires');
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
      await this.processChunk(job, workerId, lease.signal);
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
      // Storage or the database away for a moment (not the audio's fault): the chunk runs again later.
      if (isStoreUnavailable(error) || (error instanceof AudioSourceUnavailableError && error.reason !== 'not_found')) {
        this.deps.log?.warn({ err: error, jobId: job.id }, 'storage unavailable; the job is given back and retried');
        await this.releaseLease(job.id, workerId);
        return STORE_BACKOFF_MS;
      }
      const failure = failureOfAudio(error);
      if (!failure) this.deps.log?.error({ err: error, jobId: job.id }, 'job failed unexpectedly');
      await this.fail(job, workerId, failure ?? new JobFailure('internal_error', JOB_FAILURE_MESSAGES.internal));
      return 0;
    } finally {
      lease.stop();
    }
  }

  private async processChunk(job: JobRecord, workerId: string, signal: AbortSignal): Promise<void> {
    const { config, blobs } = this.deps;
    const startedAt = performance.now();
    const audioPath = job.audioPath;
    if (!audioPath || !(await blobs.exists(audioPath))) throw new JobFailure('internal_error', JOB_FAILURE_MESSAGES.audioMissing);
    const request = parseStoredJobRequest(job.request);
    const carry = carryOf(job.progress) ?? (await this.firstLook(audioPath, signal));
    // Local disk: the file; S3: a fresh presigned URL per chunk, which ffmpeg streams with Range
    // requests (no copy of the recording on the worker).
    const source = await blobs.audioSource(audioPath, this.audioUrlSeconds());
    const stages = this.deps.stages[request.model];

    // The chunk ends in a pause near its target length (chunk-cut.ts): decode the target plus the
    // range a cut may move into, find the speech, cut, and leave the rest for the next claim.
    const start = job.completedAudioSeconds;
    const window = await decodeAudioWindow(source, {
      startSeconds: start,
      seconds: this.chunkSeconds + cutSearchSeconds(this.chunkSeconds),
      container: carry.container,
      timeoutMs: config.decodeTimeoutMs,
      signal,
    });
    const windowSeconds = window.length / DECODED_SAMPLE_RATE;
    // Headers can understate a length: the samples decide.
    if (start + windowSeconds > config.maxAudioSeconds + 1) throw new JobFailure('audio_too_long', JOB_FAILURE_MESSAGES.tooLong);
    // The probed length saves a claim that would only find the end; the samples remain the judge
    // when the headers overstate it.
    const reachedEnd = windowSeconds < this.chunkSeconds + cutSearchSeconds(this.chunkSeconds) - 0.001 || start + windowSeconds >= carry.durationSeconds - 0.001;
    if (start === 0 && reachedEnd && windowSeconds < MIN_AUDIO_SECONDS) {
      throw new JobFailure('audio_undecodable', window.length === 0 ? JOB_FAILURE_MESSAGES.undecodable : JOB_FAILURE_MESSAGES.tooShort);
    }
    const regions = await findSpeech(window, DECODED_SAMPLE_RATE, stages.detectSpeech, signal, request.vad);
    const cut = chooseCut(regions, windowSeconds, this.chunkSeconds, reachedEnd);
    const last = reachedEnd && cut >= windowSeconds;
    const pcm = window.subarray(0, Math.min(window.length, Math.round(cut * DECODED_SAMPLE_RATE)));
    const chunkSeconds = pcm.length / DECODED_SAMPLE_RATE;
    const end = start + chunkSeconds;

    const previous = await this.readPartial(job);
    let transcript = previous;
    let nextCarry = carry;
    if (chunkSeconds >= MIN_WINDOW_SECONDS) {
      const outcome = await runTranscription(
        pcm,
        // A decorated job's words are attached to its speakers later: decode them with the text.
        { ...request, language: chunkChoice(carry.language, request.language), wordTimestamps: request.wordTimestamps || decorates(request) },
        // Speakers of a long recording are attached globally after its text (decoration), not per chunk.
        { ...stages, diarize: undefined, decoding: config.decoding, sampleRate: DECODED_SAMPLE_RATE, dictionaryFor: (family) => this.deps.keys.getDictionary(job.keyId, family) },
        { signal, regions: clipRegions(regions, chunkSeconds) },
      );
      const language = afterChunk(carry.language, request.language, outcome);
      const ctx = { model: request.model, modelBuild: this.deps.modelBuilds[request.model], requestId: job.id };
      // Partial results declare the language as decided so far, like the final one.
      const declared = { ...outcome, language: language.language, languageSource: finalSource(language, request.language) };
      transcript = appendChunk(previous, declared, start, chunkSeconds, job.resultRevision + 1, ctx);
      nextCarry = {
        ...carry,
        language,
        speakerTiming: carry.speakerTiming ?? verboseBody(outcome, ctx).speaker_timing,
        wordTiming: outcome.wordTiming,
        asrMs: carry.asrMs + outcome.asrMs,
        ...(outcome.vocabularyTally ? { vocabulary: addTallies(carry.vocabulary ?? EMPTY_TALLY, shiftTally(outcome.vocabularyTally, start)) } : {}),
        ...(outcome.patterns ? { patterns: addPatternTallies(carry.patterns ?? emptyPatternTally(outcome.patterns.results.length), shiftPatternTally(outcome.patterns, start)) } : {}),
        ...(decorates(request) ? { speech: [...(carry.speech ?? []), ...outcome.speech.regions.map((r): [number, number] => [round3(start + r.start), round3(start + r.end)])] } : {}),
      };
    }

    nextCarry = { ...nextCarry, processingMs: (carry.processingMs ?? 0) + (performance.now() - startedAt) };
    if (last) {
      await this.succeed(job, workerId, request, nextCarry, transcript, end);
      return;
    }
    const { path: partialPath } = await blobs.writeResult(job.id, { kind: 'partial', revision: job.resultRevision + 1 }, JSON.stringify(transcript));
    const committed = await this.deps.jobs.commitChunk(
      job.id,
      workerId,
      { progress: nextCarry, completedAudioSeconds: end, audioSeconds: carry.durationSeconds, partialPath },
      this.now(),
    );
    if (!committed) return; // Lost the lease meanwhile; the new holder redoes this chunk.
    logJobAudit(this.deps.log, JOB_AUDIT_EVENTS.chunkDone, jobOwnerSubject(job), {
      chunkIndex: job.resultRevision,
      chunkSeconds: auditSeconds(chunkSeconds),
      completedAudioSeconds: auditSeconds(end),
    });
    if (job.partialPath && job.partialPath !== partialPath) await blobs.delete(job.partialPath);
    this.deps.events.notify(job.id);
  }

  /** First claim of a job: what the file is and how long, refusing what cannot be a recording. */
  private async firstLook(audioPath: string, signal: AbortSignal): Promise<CarryOver> {
    const { blobs } = this.deps;
    const container = await sniffWithReader((offset, length) => blobs.readRange(audioPath, offset, length));
    if (!container) throw new JobFailure('audio_undecodable', JOB_FAILURE_MESSAGES.undecodable);
    const source: AudioSource = await blobs.audioSource(audioPath, this.audioUrlSeconds());
    const probe = await probeAudio(source, { timeoutMs: this.deps.config.decodeTimeoutMs, container, signal });
    if (probe.durationSeconds > this.deps.config.maxAudioSeconds) throw new JobFailure('audio_too_long', JOB_FAILURE_MESSAGES.tooLong);
    return {
      container,
      durationSeconds: probe.durationSeconds,
      language: INITIAL_LANGUAGE_STATE,
      speakerTiming: null,
      wordTiming: false,
      asrMs: 0,
    };
  }

  /** A URL outlives any decode it serves (a reconnect or a seek late in a slow decode still works). */
  private audioUrlSeconds(): number {
    return Math.min(MAX_AUDIO_URL_SECONDS, Math.ceil(this.deps.config.decodeTimeoutMs / 1000) + AUDIO_URL_MARGIN_SECONDS);
  }

  private async readPartial(job: JobRecord): Promise<AssembledTranscript> {
    if (!job.partialPath) return emptyTranscript('und');
    return JSON.parse((await this.deps.blobs.readResult(job.partialPath)).toString('utf8')) as AssembledTranscript;
  }

  private async succeed(
    job: JobRecord,
    workerId: string,
    request: StoredJobRequest,
    carry: CarryOver,
    transcript: AssembledTranscript,
    endSeconds: number,
  ): Promise<void> {
    const { blobs, jobs } = this.deps;
    const finalCarry: CarryOver = { ...carry, endSeconds };
    const context = await finalContextOf(job, request, finalCarry, this.deps);
    const now = this.now();
    const decorating = decorates(request);
    // A decorated job's text is final now; its speakers (and words) follow in the decoration.
    const result = decorating
      ? finalResult(transcript, {
          ...context,
          decoration: pendingDecoration(now, this.decorationLeaseMs),
          speakerTiming: { word_timing: false, speaker_ceiling_reached: false, requested_max_speakers: request.maxSpeakers, detected_speaker_count: 0, speaker_ceiling_action: 'none' },
        })
      : finalResult(transcript, context);
    const stored = await blobs.writeResult(job.id, { kind: 'final' }, result.body);
    // The decoration reads the whole transcript (with its words) from the provisional result.
    const partial = decorating ? await blobs.writeResult(job.id, { kind: 'partial', revision: job.resultRevision + 1 }, JSON.stringify(transcript)) : null;
    // The webhook event is written with the transition itself (one transaction), never after it.
    const eventInput = jobEventInput(job, this.deps.config.publicBaseUrl, now);
    const event = eventInput ? jobSucceededEvent(eventInput) : null;
    const usage = await jobUsage(this.deps.billing, this.deps.keys, job, request, carry, endSeconds);
    const won = await jobs.succeed(
      job.id,
      workerId,
      { resultPath: stored.path, resultBytes: stored.bytes, contentType: result.contentType },
      await this.retention(job, now),
      now,
      event,
      partial ? { leaseMs: this.decorationLeaseMs, progress: finalCarry, partialPath: partial.path } : null,
      // Metered with the success itself: exactly once, whatever crashed or ran again before.
      usage,
    );
    if (!won) {
      if (partial) await blobs.delete(partial.path).catch(() => {});
      return;
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
    });
    if (event) this.deps.webhooks?.kick();
    // Committed: the audio and the provisional result are no longer needed (docs/DESIGN.md "Reliability rules": deleted when the
    // job ends), unless the decoration still reads them.
    const done = partial ? [job.partialPath] : [job.audioPath, job.partialPath];
    for (const path of done) if (path && path !== partial?.path) await blobs.delete(path).catch(() => {});
    this.deps.events.notify(job.id);
    if (partial) {
      const succeeded = await jobs.getById(job.id);
      if (succeeded) await this.decorate(succeeded, workerId);
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
        const away = isStoreUnavailable(error) || (error instanceof AudioSourceUnavailableError && error.reason !== 'not_found');
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

  private async fail(job: JobRecord, workerId: string, failure: JobFailure): Promise<void> {
    const now = this.now();
    const eventInput = jobEventInput(job, this.deps.config.publicBaseUrl, now);
    const event = eventInput ? jobFailedEvent(eventInput, failure.code) : null;
    const released = await this.deps.jobs.fail(job.id, { workerId }, { code: failure.code, message: failure.message }, await this.retention(job, now), now, event);
    if (!released) return;
    logJobAudit(this.deps.log, JOB_AUDIT_EVENTS.failed, jobOwnerSubject(job), { errorCode: failure.code });
    this.deps.observer?.jobFailed();
    // A safety counter only (no audio is billed for a failed job); losing it to an outage loses no money.
    await meterUnsupportedLanguage(this.deps.billing, this.deps.keys, job, parseStoredJobRequest(job.request), failure).catch((error: unknown) => {
      this.deps.log?.warn({ err: error, jobId: job.id }, 'metering a failed job failed');
    });
    if (event) this.deps.webhooks?.kick();
    for (const path of released.paths) await this.deps.blobs.delete(path).catch(() => {});
    this.deps.events.notify(job.id);
  }

  /** Gives a lease back; a store fault here only delays the job until the lease expires. */
  private async releaseLease(jobId: string, workerId: string): Promise<void> {
    await this.deps.jobs.releaseLease(jobId, workerId, this.now()).catch((error: unknown) => {
      this.deps.log?.error({ err: error, jobId }, 'releasing a lease failed; the job waits for the lease to expire');
    });
  }

  private async retention(job: JobRecord, nowMs: number) {
    const keyHours = job.retentionHours ?? (await this.deps.keys.get(job.keyId))?.retentionHours ?? this.deps.config.retentionHours;
    return retentionFrom(nowMs, effectiveRetentionHours(job, keyHours));
  }
}
