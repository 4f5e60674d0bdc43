// A diarized job's decoration: after its text is final (`succeeded`), speakers and word timestamps are
// attached and the stored result is replaced (the contract's "decoration" notes). The job stays
// `succeeded` throughout and no second webhook fires.
//
// The diarization is global: the recording is decoded window by window (its audio is kept until the
// decoration ends), each window's speaker features are computed over the speech regions its chunks
// found, and the joined features are diarized at once (decoration-features.ts), so a voice keeps one
// label across chunks. The words come from the chunks (decoded with token timestamps) and are attached
// by the same rules as an inline answer's (speaker-attachment.ts). A multichannel job's channels are
// diarized one by one, each alone, as an inline answer's are (channel-decoration.ts).
//
// Crash safety: the decorating worker holds the succeeded row's lease. If it dies, the lease runs out
// (or the instance lifecycle expires it at once) and another worker claims the decoration and starts
// it again; after MAX_DECORATION_ATTEMPTS claims, or when it fails outright, the result is marked
// `decoration: {status: unavailable, review_required: true}`. It is never left `processing`.
import type { AudioSource } from '../audio/index.js';
import type { UsageBilling } from '../billing/usage-billing.js';
import type { ServiceConfig } from '../config/service-config.js';
import { SAMPLE_RATE } from '../domain/audio-format.js';
import type { ModelId } from '../domain/model-ids.js';
import { noSpeakers } from '../engine/speaker-diarizer.js';
import type { PipelineEngines, PipelineStages } from '../pipeline/pipeline-engine.js';
import { attachSpeakersToShaped, type ShapedAttachment } from '../pipeline/speaker-attachment.js';
import type { JobRecord, JobStore } from '../store/job-store.js';
import type { KeyStore } from '../store/key-store.js';
import type { TenantBlobs } from '../store/sealed-blob-store.js';
import type { VoiceProfileStore } from '../store/voice-profile-store.js';
import { channelSpeakers } from './channel-decoration.js';
import { type DecorationAudio, speakerFeatures } from './decoration-features.js';
import { JOB_AUDIT_EVENTS, jobOwnerSubject, logJobAudit } from './job-audit.js';
import { carryOf, type CarryOver } from './job-carry-over.js';
import { finalContextOf } from './job-final-context.js';
import { knownSpeakersOfJob } from './job-known-speakers.js';
import { parseStoredJobRequest, type StoredJobRequest } from './job-request.js';
import { type AssembledTranscript, type Decoration, finalResult, type TimedSegment } from './job-transcript.js';
import { jobUsageKey } from './job-usage.js';
import { jobWork } from './job-work.js';

/** How long a decorating worker holds the row before another may take the decoration over. */
export const DECORATION_LEASE_MS = 10 * 60_000;
/** Claims of one decoration before it is given up as unavailable. */
export const MAX_DECORATION_ATTEMPTS = 3;

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
    // A multichannel job's chunks carry each channel's speech regions: without them, no channel can be diarized.
    const lacksChannels = request.multichannel && (carry?.channelSpeech?.length ?? 0) === 0;
    if (!carry || !job.partialPath || !job.audioPath || lacksChannels) throw new Error('the job row lacks what its decoration needs');
    const transcript = JSON.parse((await blobs.readResult(job.partialPath)).toString('utf8')) as AssembledTranscript;
    const started = performance.now();
    const stages = this.deps.stages[request.model](jobWork(job));
    const audioPath = job.audioPath;
    const audio: DecorationAudio = {
      source: () => this.deps.audioSource(job.tenant, audioPath),
      container: carry.container,
      seconds: carry.endSeconds ?? carry.durationSeconds,
      timeoutMs: this.deps.config.decodeTimeoutMs,
      signal,
    };
    const speakers = request.multichannel
      ? await channelSpeakers(
          {
            segments: transcript.segments,
            words: transcript.words ?? null,
            channelSpeech: carry.channelSpeech!,
            wordTiming: carry.wordTiming,
            maxSpeakers: request.maxSpeakers,
            minSpeakers: request.minSpeakers,
            sampleRate: SAMPLE_RATE,
          },
          stages,
          audio,
        )
      : await this.speakers(transcript, carry, request, job, stages, audio);
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

  /** The job's speakers: its recording diarized at once and attached to its transcript. */
  private async speakers(
    transcript: AssembledTranscript,
    carry: CarryOver,
    request: StoredJobRequest,
    job: JobRecord,
    stages: PipelineStages,
    audio: DecorationAudio,
  ): Promise<ShapedAttachment<TimedSegment>> {
    const regions = (carry.speech ?? []).map(([start, end]) => ({ start, end }));
    const features = await speakerFeatures(audio, regions, stages);
    const diarization = regions.length === 0 ? noSpeakers() : await stages.diarize(features, regions, audio.signal, { minVoices: request.minSpeakers });
    return attachSpeakersToShaped({
      segments: transcript.segments,
      words: transcript.words ?? null,
      diarization,
      wordTiming: carry.wordTiming,
      maxSpeakers: request.maxSpeakers,
      knownSpeakers: await knownSpeakersOfJob(job.request, job.tenant, this.deps.voices),
    });
  }
}
