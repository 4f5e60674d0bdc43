// One chunk of a claimed job: the file's first look (on the first claim), the decoded window, the cut
// in a pause, the chunk's transcription, and what it adds to the job, committed as the provisional
// result before the next chunk is claimed. The last chunk is handed over to the job's completion
// (job-completion.ts) instead, which commits it with the success.
//
// The pipeline is called three times a chunk: to cut the window (chunk-window.ts), to transcribe
// the chunk, and to add its outcome to the totals so far (chunk-accumulation.ts). Its tallies are
// never opened here.
import { decodeAudioWindow } from '../audio/index.js';
import type { ServiceConfig } from '../config/service-config.js';
import { verboseBody } from '../contract/response-body.js';
import { SAMPLE_RATE } from '../domain/audio-format.js';
import type { ModelId } from '../domain/model-ids.js';
import { MAX_CHANNELS, transcribeChannels } from '../pipeline/channel-tracks.js';
import { accumulateChunk } from '../pipeline/chunk-accumulation.js';
import { chunkWindowSeconds, cutWindow, type WindowChunk } from '../pipeline/chunk-window.js';
import { applyClinicalText } from '../pipeline/clinical-text-stage.js';
import type { PipelineEngines } from '../pipeline/pipeline-engine.js';
import { runTranscription, transcriptionDeps } from '../pipeline/run-transcription.js';
import type { BlobStore } from '../store/blob-store.js';
import type { JobRecord, JobStore } from '../store/job-store.js';
import type { KeyStore } from '../store/key-store.js';
import type { TenantBlobs } from '../store/sealed-blob-store.js';
import { blameDecodeFailure } from './job-audio-blame.js';
import { probeJobAudio } from './job-audio-probe.js';
import { audioUrlSeconds } from './job-audio-url.js';
import { auditSeconds, JOB_AUDIT_EVENTS, jobOwnerSubject, logJobAudit } from './job-audit.js';
import { carryOf, type CarryOver } from './job-carry-over.js';
import type { FinishedText } from './job-completion.js';
import { decorates } from './job-decoration.js';
import type { JobEvents } from './job-events.js';
import { JOB_FAILURE_MESSAGES, JobFailure } from './job-failure.js';
import { afterChunk, chunkChoice, finalSource, INITIAL_LANGUAGE_STATE } from './job-language.js';
import { parseStoredJobRequest, type StoredJobRequest } from './job-request.js';
import { appendChunk, type AssembledTranscript, emptyTranscript } from './job-transcript.js';
import { keepsUnredacted, unredactedOutcome } from './job-unredacted.js';
import { jobWork } from './job-work.js';

/** Audio shorter than this is not a recording (docs/DESIGN.md decision 1): audio_undecodable. */
export const MIN_JOB_AUDIO_SECONDS = 1;
/** A trailing window shorter than this holds no speech worth an engine call. */
const MIN_WINDOW_SECONDS = 0.05;

export interface JobChunkDeps {
  config: Pick<ServiceConfig, 'decodeTimeoutMs' | 'maxAudioSeconds' | 'decoding'>;
  jobs: JobStore;
  blobs: TenantBlobs;
  keys: KeyStore;
  stages: PipelineEngines;
  modelBuilds: Record<ModelId, string>;
  events: JobEvents;
  log?: { info(obj: object, msg: string): void; error(obj: object, msg: string): void; warn(obj: object, msg: string): void };
}

export class JobChunkProcessor {
  /** Seconds decoded per claim: the chunk's target length and the range its cut may move into. */
  private readonly windowSeconds: number;

  constructor(
    private readonly deps: JobChunkDeps,
    private readonly settings: { chunkSeconds: number; clock: () => Date },
  ) {
    this.windowSeconds = chunkWindowSeconds(settings.chunkSeconds);
  }

  /**
   * Processes the next chunk of a job `workerId` holds. Returns what the job's success needs when the
   * chunk was its last; null when the chunk was committed (or the lease was lost meanwhile).
   */
  async process(job: JobRecord, workerId: string, signal: AbortSignal): Promise<FinishedText | null> {
    const { config } = this.deps;
    const blobs = this.deps.blobs.forTenant(job.tenant);
    const startedAt = performance.now();
    const audioPath = job.audioPath;
    if (!audioPath || !(await blobs.exists(audioPath))) throw new JobFailure('internal_error', JOB_FAILURE_MESSAGES.audioMissing);
    const request = parseStoredJobRequest(job.request);
    const carry = carryOf(job.progress) ?? (await this.firstLook(blobs, audioPath, signal, request.multichannel));
    // Local disk: the file; S3: a fresh presigned URL per chunk, which ffmpeg streams with Range
    // requests (no copy of the recording on the worker).
    const source = await blobs.audioSource(audioPath, audioUrlSeconds(config.decodeTimeoutMs));

    // The chunk ends in a pause near its target length (chunk-cut.ts): decode the target plus the
    // range a cut may move into, find the speech, cut, and leave the rest for the next claim.
    const start = job.completedAudioSeconds;
    const decode = (channel?: number) =>
      decodeAudioWindow(source, {
        startSeconds: start,
        seconds: this.windowSeconds,
        container: carry.container,
        timeoutMs: config.decodeTimeoutMs,
        signal,
        ...(channel === undefined ? {} : { channel }),
      }).catch((error: unknown) => blameDecodeFailure(blobs, audioPath, error));
    // multichannel: each channel's window, and their mix to cut in a pause of both.
    // The first look found exactly MAX_CHANNELS.
    const channels = request.multichannel ? await decodeEach(MAX_CHANNELS, decode) : null;
    const window = channels ? mixOf(channels) : await decode();
    const windowSeconds = window.length / SAMPLE_RATE;
    // Headers can understate a length: the samples decide.
    if (start + windowSeconds > config.maxAudioSeconds + 1) throw new JobFailure('audio_too_long', JOB_FAILURE_MESSAGES.tooLong);
    // The probed length saves a claim that would only find the end; the samples remain the judge
    // when the headers overstate it.
    const reachedEnd = windowSeconds < this.windowSeconds - 0.001 || start + windowSeconds >= carry.durationSeconds - 0.001;
    if (start === 0 && reachedEnd && windowSeconds < MIN_JOB_AUDIO_SECONDS) {
      throw new JobFailure('audio_undecodable', window.length === 0 ? JOB_FAILURE_MESSAGES.undecodable : JOB_FAILURE_MESSAGES.tooShort);
    }
    const chunk = await cutWindow(window, {
      target: this.settings.chunkSeconds,
      reachedEnd,
      sampleRate: SAMPLE_RATE,
      detectSpeech: this.deps.stages[request.model](jobWork(job)).detectSpeech,
      vad: request.vad,
      signal,
    });
    const end = start + chunk.seconds;

    const previous = await this.readPartial(job, job.partialPath);
    const previousUnredacted = keepsUnredacted(request) ? await this.readPartial(job, job.unredactedPath) : null;
    const tracks = channels?.map((pcm) => pcm.subarray(0, chunk.pcm.length)) ?? null;
    const added =
      chunk.seconds >= MIN_WINDOW_SECONDS
        ? await this.transcribe(job, request, carry, { ...chunk, tracks }, { redacted: previous, unredacted: previousUnredacted }, signal)
        : { transcript: previous, unredacted: previousUnredacted, carry };
    const nextCarry: CarryOver = { ...added.carry, processingMs: (carry.processingMs ?? 0) + (performance.now() - startedAt) };
    const texts = { transcript: added.transcript, unredacted: added.unredacted };
    if (chunk.last) return { request, carry: nextCarry, ...texts, endSeconds: end };
    await this.commit(job, workerId, nextCarry, texts, chunk.seconds, end);
    return null;
  }

  /** The chunk transcribed, appended to the transcript and added to what is carried to the next one. */
  private async transcribe(
    job: JobRecord,
    request: StoredJobRequest,
    carry: CarryOver,
    chunk: WindowChunk & { tracks: Float32Array[] | null },
    previous: { redacted: AssembledTranscript; unredacted: AssembledTranscript | null },
    signal: AbortSignal,
  ): Promise<{ transcript: AssembledTranscript; unredacted: AssembledTranscript | null; carry: CarryOver }> {
    // The chunk starts where the audio done so far ends.
    const start = job.completedAudioSeconds;
    // A decorated job's words are attached to its speakers later: decode them with the text.
    const pipelineRequest = {
      ...request,
      language: chunkChoice(carry.language, request.language),
      wordTimestamps: request.wordTimestamps || decorates(request),
    };
    // Speakers of a long recording are attached globally after its text (decoration), not per chunk.
    const deps = {
      ...transcriptionDeps(this.deps.stages[request.model](jobWork(job)), this.deps.config.decoding, (family) =>
        this.deps.keys.getDictionary(job.keyId, family),
      ),
      diarize: undefined,
    };
    const languageBefore = carry.language.evidence ? { languageBefore: carry.language.evidence } : {};
    // multichannel: each channel finds its own speech (the mix's regions are the cut's only).
    const recognised = chunk.tracks
      ? await transcribeChannels(chunk.tracks, pipelineRequest, deps, { signal, ...languageBefore })
      : await runTranscription(chunk.pcm, pipelineRequest, deps, { signal, regions: chunk.regions, ...languageBefore });
    // Formatted and redacted before anything of it is stored: the partial result is shaped from it too.
    const outcome = applyClinicalText(recognised, request.clinicalText);
    const language = afterChunk(carry.language, request.language, outcome);
    // Partial results declare the language as decided so far, like the final one.
    const declared = { ...outcome, language: language.language, languageSource: finalSource(language, request.language) };
    // Shaped once: its segments and words join the transcript, its speaker timing is carried.
    const shape = { model: request.model, modelBuild: this.deps.modelBuilds[request.model], requestId: job.id };
    const body = verboseBody(declared, shape);
    let unredacted: AssembledTranscript | null = null;
    if (previous.unredacted) {
      // The same words as the result's, formatted the same, with the redacted ones left in.
      const plain = { ...unredactedOutcome(recognised, request), language: declared.language, languageSource: declared.languageSource };
      unredacted = appendChunk(previous.unredacted, plain, verboseBody(plain, shape), start, chunk.seconds, job.resultRevision + 1);
    }
    return {
      transcript: appendChunk(previous.redacted, declared, body, start, chunk.seconds, job.resultRevision + 1),
      unredacted,
      carry: accumulateChunk({ ...carry, language, speakerTiming: carry.speakerTiming ?? body.speaker_timing }, outcome, start, {
        keepSpeech: decorates(request),
      }),
    };
  }

  /** Commits a chunk that is not the last: its transcript as the provisional result, its carry-over in the row. */
  private async commit(
    job: JobRecord,
    workerId: string,
    carry: CarryOver,
    texts: { transcript: AssembledTranscript; unredacted: AssembledTranscript | null },
    chunkSeconds: number,
    end: number,
  ): Promise<void> {
    const blobs = this.deps.blobs.forTenant(job.tenant);
    const revision = job.resultRevision + 1;
    const { path: partialPath } = await blobs.writeResult(job.id, { kind: 'partial', revision }, JSON.stringify(texts.transcript));
    const unredactedPath = texts.unredacted ? (await blobs.writeResult(job.id, { kind: 'unredacted', revision }, JSON.stringify(texts.unredacted))).path : null;
    const committed = await this.deps.jobs.commitChunk(
      job.id,
      workerId,
      { progress: carry, completedAudioSeconds: end, audioSeconds: carry.durationSeconds, partialPath, unredactedPath },
      this.settings.clock().getTime(),
    );
    if (!committed) return; // Lost the lease meanwhile; the new holder redoes this chunk.
    logJobAudit(this.deps.log, JOB_AUDIT_EVENTS.chunkDone, jobOwnerSubject(job), {
      chunkIndex: job.resultRevision,
      chunkSeconds: auditSeconds(chunkSeconds),
      completedAudioSeconds: auditSeconds(end),
    });
    if (job.partialPath && job.partialPath !== partialPath) await blobs.delete(job.partialPath);
    if (job.unredactedPath && unredactedPath && job.unredactedPath !== unredactedPath) await blobs.delete(job.unredactedPath);
    this.deps.events.notify(job.id);
  }

  /** First claim of a job: what the file is and how long, refusing what cannot be a recording. */
  private async firstLook(blobs: BlobStore, audioPath: string, signal: AbortSignal, multichannel: boolean): Promise<CarryOver> {
    const { container, durationSeconds } = await probeJobAudio(blobs, audioPath, this.deps.config, signal, multichannel);
    return {
      container,
      durationSeconds,
      language: INITIAL_LANGUAGE_STATE,
      speakerTiming: null,
      wordTiming: false,
      asrMs: 0,
    };
  }

  /** The provisional transcript at `path` (the result's, or the unredacted one); empty before the first chunk. */
  private async readPartial(job: JobRecord, path: string | null): Promise<AssembledTranscript> {
    if (!path) return emptyTranscript('und');
    return JSON.parse((await this.deps.blobs.forTenant(job.tenant).readResult(path)).toString('utf8')) as AssembledTranscript;
  }
}

/** The channels' windows averaged: where the mix pauses, every channel does. */
function mixOf(channels: readonly Float32Array[]): Float32Array {
  const length = Math.min(...channels.map((c) => c.length));
  const mix = new Float32Array(length);
  for (const channel of channels) for (let i = 0; i < length; i++) mix[i]! += channel[i]! / channels.length;
  return mix;
}

/** Each channel's window, one decode after another (one ffmpeg at a time per job, as for the mix). */
async function decodeEach(count: number, decode: (channel: number) => Promise<Float32Array>): Promise<Float32Array[]> {
  const windows: Float32Array[] = [];
  for (let channel = 0; channel < count; channel++) windows.push(await decode(channel));
  return windows;
}
