// A diarized job's decoration: after its text is final (`succeeded`), speakers and word timestamps are
// attached and the stored result is replaced (the contract's "decoration" notes). The job stays
// `succeeded` throughout and no second webhook fires.
//
// The diarization is global: the recording is decoded window by window (its audio is kept until the
// decoration ends), each window's speaker features are computed over the speech regions its chunks
// found, and the joined features are diarized at once, so a voice keeps one label across chunks. The
// words come from the chunks (decoded with token timestamps) and are attached by the same rules as an
// inline answer's (speaker-attachment.ts).
//
// Crash safety: the decorating worker holds the succeeded row's lease. If it dies, the lease runs out
// (or the instance lifecycle expires it at once) and another worker claims the decoration and starts
// it again; after MAX_DECORATION_ATTEMPTS claims, or when it fails outright, the result is marked
// `decoration: {status: unavailable, review_required: true}`. It is never left `processing`.
import { type AudioContainer, type AudioSource, decodeAudioWindow } from '../audio/index.js';
import type { UsageBilling } from '../billing/usage-billing.js';
import type { ServiceConfig } from '../config/service-config.js';
import { SAMPLE_RATE } from '../domain/audio-format.js';
import type { ModelId } from '../domain/model-ids.js';
import { FEATURE_FRAMES_PER_SECOND, noSpeakers, SpeakerFeatureCanvas } from '../engine/speaker-diarizer.js';
import type { PipelineEngines, PipelineStages } from '../pipeline/pipeline-engine.js';
import { attachSpeakersToShaped } from '../pipeline/speaker-attachment.js';
import type { SpeechRegion } from '../pipeline/speech-regions.js';
import type { JobRecord, JobStore } from '../store/job-store.js';
import type { KeyStore } from '../store/key-store.js';
import type { TenantBlobs } from '../store/sealed-blob-store.js';
import type { VoiceProfileStore } from '../store/voice-profile-store.js';
import { JOB_AUDIT_EVENTS, jobOwnerSubject, logJobAudit } from './job-audit.js';
import { carryOf } from './job-carry-over.js';
import { finalContextOf } from './job-final-context.js';
import { knownSpeakersOfJob } from './job-known-speakers.js';
import { parseStoredJobRequest, type StoredJobRequest } from './job-request.js';
import { type AssembledTranscript, type Decoration, finalResult } from './job-transcript.js';
import { jobUsageKey } from './job-usage.js';
import { jobWork } from './job-work.js';

/** How long a decorating worker holds the row before another may take the decoration over. */
export const DECORATION_LEASE_MS = 10 * 60_000;
/** Claims of one decoration before it is given up as unavailable. */
export const MAX_DECORATION_ATTEMPTS = 3;
/** Audio decoded at once for speaker features (the features of two hours are about 55 MB; its PCM would be 460 MB). */
const FEATURE_WINDOW_SECONDS = 300;
/** A window reaches this far into the next one, so that its last frame (25 ms long) is whole. */
const FRAME_OVERHANG_SECONDS = 0.02;

export const UNAVAILABLE_DECORATION: Decoration = { status: 'unavailable', review_required: true };

/** A job whose speakers are attached after its text: diarized, in a format with segments. */
export function decorates(request: StoredJobRequest): boolean {
  return request.diarize && request.responseFormat !== 'text';
}

export function pendingDecoration(nowMs: number, leaseMs: number): Decoration {
  return { status: 'processing', stale_after: new Date(nowMs + leaseMs).toISOString() };
}

export interface JobDecoratorDeps {
  config: Pick<ServiceConfig, 'decodeTimeoutMs'>;
  jobs: JobStore;
  blobs: TenantBlobs;
  keys: KeyStore;
  /** Told of the passages a decoration marked for review (they are added to the job's usage event). */
  billing: Pick<UsageBilling, 'safetyRecorded'>;
  stages: PipelineEngines;
  modelBuilds: Record<ModelId, string>;
  /** The tenants' enrolled voices a job names (looked up when its speakers are attached). */
  voices: Pick<VoiceProfileStore, 'get'>;
  /** A decodable source for the job's audio (a file, or a presigned URL). */
  audioSource: (tenant: string, path: string) => Promise<AudioSource>;
  clock: () => number;
  log?: { info(obj: object, msg: string): void; error(obj: object, msg: string): void; warn(obj: object, msg: string): void };
}

export class JobDecorator {
  constructor(private readonly deps: JobDecoratorDeps) {}

  /**
   * Decorates a job whose decoration lease `workerId` holds, and ends the decoration: with speakers,
   * or unavailable when the attempts are spent. Throws what the caller must judge (an abort, storage
   * away); `giveUp` then decides whether the decoration is lost.
   */
  async decorate(job: JobRecord, workerId: string, signal: AbortSignal): Promise<void> {
    if (job.decorationAttempts > MAX_DECORATION_ATTEMPTS) {
      this.deps.log?.warn({ jobId: job.id, attempts: job.decorationAttempts }, 'decoration given up after repeated claims');
      await this.giveUp(job, workerId);
      return;
    }
    const blobs = this.deps.blobs.forTenant(job.tenant);
    const request = parseStoredJobRequest(job.request);
    const carry = carryOf(job.progress);
    if (!carry || !job.partialPath || !job.audioPath) throw new Error('the job row lacks what its decoration needs');
    const transcript = JSON.parse((await blobs.readResult(job.partialPath)).toString('utf8')) as AssembledTranscript;
    const started = performance.now();
    const regions = (carry.speech ?? []).map(([start, end]) => ({ start, end }));
    const seconds = carry.endSeconds ?? carry.durationSeconds;
    const stages = this.deps.stages[request.model](jobWork(job));
    const features = await this.speakerFeatures(job.tenant, job.audioPath, carry.container, regions, seconds, stages, signal);
    const diarization = regions.length === 0 ? noSpeakers() : await stages.diarize(features, regions, signal, { minVoices: request.minSpeakers });
    const speakers = attachSpeakersToShaped({
      segments: transcript.segments,
      words: transcript.words ?? null,
      diarization,
      wordTiming: carry.wordTiming,
      maxSpeakers: request.maxSpeakers,
      knownSpeakers: await knownSpeakersOfJob(job.request, job.tenant, this.deps.voices),
    });
    const context = await finalContextOf(job, request, carry, this.deps);
    const result = finalResult(transcript, { ...context, speakers, diarizationMs: Math.round(performance.now() - started) });
    await this.end(job, workerId, 'done', result, speakers.segments.filter((s) => s.review_required).length);
  }

  /** Ends the decoration as unavailable: the stored result stays, marked for review. */
  async giveUp(job: JobRecord, workerId: string): Promise<void> {
    if (!job.resultPath) return;
    const stored = JSON.parse((await this.deps.blobs.forTenant(job.tenant).readResult(job.resultPath)).toString('utf8')) as Record<string, unknown>;
    const body = JSON.stringify({ ...stored, decoration: UNAVAILABLE_DECORATION, word_timing_available: false });
    // The whole transcript is one passage to review.
    await this.end(job, workerId, 'unavailable', { contentType: job.resultContentType ?? 'application/json; charset=utf-8', body }, 1);
  }

  /**
   * Writes the new result under a name of its own and swaps it in, if this worker still holds the
   * decoration; `reviewRequired` passages are metered with the swap (the job's usage event).
   */
  private async end(
    job: JobRecord,
    workerId: string,
    status: 'done' | 'unavailable',
    result: { contentType: string; body: string },
    reviewRequired: number,
  ): Promise<void> {
    const { jobs } = this.deps;
    const blobs = this.deps.blobs.forTenant(job.tenant);
    const stored = await blobs.writeResult(job.id, { kind: 'final', revision: job.decorationAttempts }, result.body);
    const released = await jobs.endDecoration(
      job.id,
      workerId,
      {
        status,
        result: { resultPath: stored.path, resultBytes: stored.bytes, contentType: result.contentType },
        reviewRequired: { usageEventKey: jobUsageKey(job.id), passages: reviewRequired },
      },
      this.deps.clock(),
    );
    if (released) {
      logJobAudit(this.deps.log, JOB_AUDIT_EVENTS.decorated, jobOwnerSubject(job), { decoration: status });
      this.deps.billing.safetyRecorded({ reviewRequired });
    }
    // Lost the lease meanwhile: the holder's result counts, this one goes.
    const unreferenced = released ? released.paths : [stored.path];
    for (const path of unreferenced) await blobs.delete(path).catch(() => {});
  }

  /** The recording's speaker features, window by window; windows without speech are not decoded. */
  private async speakerFeatures(
    tenant: string,
    audioPath: string,
    container: AudioContainer,
    regions: SpeechRegion[],
    seconds: number,
    stages: PipelineStages,
    signal: AbortSignal,
  ) {
    const canvas = new SpeakerFeatureCanvas(seconds);
    const source = await this.deps.audioSource(tenant, audioPath);
    for (let start = 0; start < seconds; start += FEATURE_WINDOW_SECONDS) {
      const end = start + FEATURE_WINDOW_SECONDS + FRAME_OVERHANG_SECONDS;
      const local = regions
        .filter((r) => r.end > start && r.start < end)
        .map((r) => ({ start: Math.max(0, r.start - start), end: Math.min(end, r.end) - start }));
      if (local.length === 0) continue;
      const pcm = await decodeAudioWindow(source, {
        startSeconds: start,
        seconds: end - start,
        container,
        timeoutMs: this.deps.config.decodeTimeoutMs,
        signal,
      });
      if (pcm.length === 0) break;
      const inside = local.filter((r) => r.start < pcm.length / SAMPLE_RATE);
      if (inside.length === 0) continue;
      const features = await stages.speakerFeatures(pcm, inside, signal);
      canvas.place(start, features, FEATURE_WINDOW_SECONDS * FEATURE_FRAMES_PER_SECOND);
    }
    return canvas.features;
  }
}
