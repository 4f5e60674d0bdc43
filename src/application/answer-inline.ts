// Audio within the inline boundary is transcribed while the client waits: refused at once when the
// engines are full, streamed as it is decoded when asked, and metered before any answer goes out.

import { BillingBlockedError } from '../billing/billing-errors.js';
import type { TranscriptionRequest } from '../contract/transcription-request.js';
import type { ApiKeyRecord } from '../domain/api-keys.js';
import type { UsageRoute } from '../domain/usage-routes.js';
import { isAbortError } from '../engine/engine-errors.js';
import { transcribeChannels } from '../pipeline/channel-tracks.js';
import { applyClinicalText } from '../pipeline/clinical-text-stage.js';
import { UnsupportedDetectedLanguage } from '../pipeline/pipeline-errors.js';
import { runTranscription, transcriptionDeps, type TranscriptionOutcome } from '../pipeline/run-transcription.js';
import { segmentDeltas } from '../pipeline/text-deltas.js';
import { unsupportedLanguageCounters, type UsageCounters, usageCountersOf } from '../pipeline/usage-counters.js';
import type { KnownSpeaker } from '../pipeline/voice-matching.js';
import { EnginesAtCapacity, KeyRevoked, TranscriptionCancelled } from './application-errors.js';
import type { TranscribeUploadDeps } from './transcribe-upload-deps.js';
import type { TranscriptionAnswer } from './transcription-answer.js';
import type { TranscriptionConnection } from './transcription-connection.js';

export interface InlineTranscription {
  key: ApiKeyRecord;
  requestId: string;
  transcription: TranscriptionRequest;
  pcm: Float32Array;
  /** `multichannel`: each channel's PCM, transcribed apart and merged (pipeline/channel-tracks.ts); null: `pcm` alone. */
  channels: Float32Array[] | null;
  /** The request's known speakers, their reference clips made into voice profiles (known-speaker-references.ts). */
  knownSpeakers: KnownSpeaker[];
  /** Aborted when the client hangs up: the transcription stops. */
  abort: AbortController;
}

type InlineDeps = Pick<TranscribeUploadDeps, 'config' | 'engines' | 'stages' | 'modelBuilds' | 'keys' | 'billing'>;

const STREAMED: TranscriptionAnswer = { kind: 'streamed' };

export async function answerInline(
  inline: InlineTranscription,
  connection: Pick<TranscriptionConnection, 'openStream' | 'usage'>,
  deps: InlineDeps,
): Promise<TranscriptionAnswer> {
  const { key, transcription, abort } = inline;
  // Inline work waits behind realtime only (work-scheduler.ts): batch work queued does not refuse it.
  if (!deps.engines[transcription.model].hasRoomFor('interactive')) throw new EnginesAtCapacity();
  const stream = transcription.stream ? connection.openStream(abort) : null;
  // Formatting and redaction change the words after they are decoded: the live text would tell what
  // they remove (a name said, a number as spoken). Such a stream tells its deltas once the whole text
  // is shaped, one per segment; redaction sees the whole text, so a name across two windows is caught.
  const shaped = transcription.clinicalText.smartFormat || transcription.clinicalText.redact !== null;
  const live = stream && !shaped ? { onTextDelta: stream.onTextDelta } : {};
  const context = { requestId: inline.requestId, model: transcription.model, modelBuild: deps.modelBuilds[transcription.model] };
  const meter = (counters: UsageCounters) =>
    deps.billing.meter(key, { eventKey: inlineEventKey(inline.requestId), route: inlineUsageRoute(transcription), model: transcription.model, ...counters });
  let outcome: TranscriptionOutcome;
  try {
    const stages = transcriptionDeps(
      deps.stages[transcription.model]({ workClass: 'interactive', tenant: key.tenant, request: inline.requestId }),
      deps.config.decoding,
      (family) => deps.keys.getDictionary(key.id, family),
    );
    const request = { ...transcription, knownSpeakers: inline.knownSpeakers };
    const recognised = await (
      inline.channels
        ? transcribeChannels(inline.channels, request, stages, { signal: abort.signal })
        : runTranscription(inline.pcm, request, stages, { signal: abort.signal, ...live })
    ).catch(async (error: unknown) => {
      // Counted for the operator's safety figures (nothing billed); the refusal stands whatever the ledger does.
      if (error instanceof UnsupportedDetectedLanguage) await meter(unsupportedLanguageCounters(transcription)).catch(() => {});
      throw isAbortError(error) ? (cutOffOf(abort.signal) ?? new TranscriptionCancelled({ cause: error })) : error;
    });
    outcome = applyClinicalText(recognised, transcription.clinicalText);
    if (outcome.redaction) connection.usage.redacted(outcome.redaction.counts);
    // Cut off as it finished: the key may have no answer, and none is metered.
    const cutOff = cutOffOf(abort.signal);
    if (cutOff) throw cutOff;
  } catch (error) {
    if (!stream?.opened) throw error;
    stream.fail(error);
    return STREAMED;
  }
  // Metered once the work is done and before the answer goes out: an answer is never given unmetered
  // (a ledger that cannot be written fails the request as any store outage does).
  const metered = meter(usageCountersOf(outcome, transcription));
  if (stream) {
    try {
      await metered;
    } catch (error) {
      stream.fail(error);
      return STREAMED;
    }
    if (shaped)
      for (const delta of segmentDeltas(
        outcome.text,
        outcome.speakers.segments.map((s) => s.text),
      ))
        stream.onTextDelta(delta);
    stream.finish(outcome, transcription.responseFormat, context);
    return STREAMED;
  }
  await metered;
  return { kind: 'transcript', outcome, transcription, context };
}

/**
 * Why a transcription was stopped when its key was revoked or paused while it ran (the refusal its
 * request is answered with), or null (not stopped, or stopped by the client hanging up).
 */
function cutOffOf(signal: AbortSignal): KeyRevoked | BillingBlockedError | null {
  const reason: unknown = signal.reason;
  return signal.aborted && (reason instanceof KeyRevoked || reason instanceof BillingBlockedError) ? reason : null;
}

/** The ledger's route for inline work: whisper's translate task is billed as translation. */
export function inlineUsageRoute(transcription: Pick<TranscriptionRequest, 'task'>): UsageRoute {
  return transcription.task === 'translate' ? 'translation' : 'inline';
}

/** The ledger's key of an inline request's work: its reservation's key too (metering converts it). */
export function inlineEventKey(requestId: string): string {
  return `inline:${requestId}`;
}
