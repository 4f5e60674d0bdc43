// A job's transcription request as stored in its row, and back. Both job routes store the validated
// TranscriptionRequest with its language flattened to plain data (see serializeJobRequest); the worker
// rebuilds the typed request from it. Stored requests are trusted (validated before they were stored),
// but a row from an older version with a missing field still gets the defaults rather than a crash.
import type { RequestVadParams } from '../contract/chunking-strategy.js';
import { type ClinicalTextFields, NO_CLINICAL_TEXT } from '../contract/clinical-text-fields.js';
import { DEFAULT_JOB_RESPONSE_FORMAT, DEFAULT_PROFILE, RESPONSE_FORMATS } from '../contract/request-fields.js';
import { DEFAULT_SPEAKER_COUNT } from '../contract/speaker-count.js';
import { type LanguageChoice, type TranscriptionRequest } from '../contract/transcription-request.js';
import { parseLanguageTag } from '../domain/language-families.js';
import { FLAGSHIP_MODEL, isModelId } from '../domain/model-ids.js';
import { DEFAULT_MAX_SPEAKERS } from '../pipeline/speaker-attachment.js';

export type StoredJobRequest = TranscriptionRequest;

export { DEFAULT_MAX_SPEAKERS };

export function serializeLanguage(language: LanguageChoice): Record<string, unknown> {
  if (language.mode === 'auto') return { mode: 'auto', hints: language.hints?.map((h) => h.tag) ?? null };
  if (language.mode === 'explicit') return { mode: 'explicit', tag: language.language.tag, source: language.source };
  return { mode: language.mode };
}

/**
 * The request as the job row stores it. Known speakers are not stored as they came (clips' bytes, ids
 * to look up): the caller passes them in `extra` as job-known-speakers.ts stores them.
 */
export function serializeJobRequest(request: TranscriptionRequest, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const { knownSpeakerReferences: _clips, enrolledVoiceIds: _ids, ...stored } = request;
  return { ...stored, language: serializeLanguage(request.language), ...extra };
}

export function parseStoredJobRequest(stored: Record<string, unknown>): StoredJobRequest {
  const language = stored.language as { mode?: string; tag?: string; source?: string; hints?: string[] | null } | undefined;
  let choice: LanguageChoice;
  if (language?.mode === 'auto') {
    const hints = language.hints?.map((tag) => parseLanguageTag(tag)).filter((t) => t !== null) ?? null;
    choice = { mode: 'auto', hints: hints && hints.length > 0 ? hints : null };
  } else if (language?.mode === 'dominant' || language?.mode === 'per_utterance' || stored.detectOmittedLanguage === true) {
    // Rows of the previous version said `explicit` + `detectOmittedLanguage` for what is now `dominant`.
    choice = language?.mode === 'per_utterance' ? { mode: 'per_utterance' } : { mode: 'dominant' };
  } else {
    choice = {
      mode: 'explicit',
      language: parseLanguageTag(language?.tag ?? 'en') ?? parseLanguageTag('en')!,
      source: language?.source === 'requested' ? 'requested' : 'default',
    };
  }
  const strings = (value: unknown) => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);
  return {
    task: stored.task === 'translate' ? 'translate' : 'transcribe',
    model: isModelId(stored.model) ? stored.model : FLAGSHIP_MODEL,
    responseFormat: RESPONSE_FORMATS.find((f) => f === stored.responseFormat) ?? DEFAULT_JOB_RESPONSE_FORMAT,
    language: choice,
    diarize: stored.diarize === true,
    wordTimestamps: stored.wordTimestamps === true,
    dictionary: stored.dictionary !== false,
    vocabulary: strings(stored.vocabulary),
    prompt: typeof stored.prompt === 'string' ? stored.prompt : null,
    patterns: strings(stored.patterns),
    webhookUrl: typeof stored.webhookUrl === 'string' ? stored.webhookUrl : null,
    profile: DEFAULT_PROFILE,
    // A job answers by polling or webhook, never on the connection that created it.
    stream: false,
    temperature: typeof stored.temperature === 'number' && stored.temperature >= 0 && stored.temperature <= 1 ? stored.temperature : 0,
    // Token log-probabilities come with inline answers only.
    logprobs: false,
    vad: storedVad(stored.vad),
    maxSpeakers: typeof stored.maxSpeakers === 'number' ? stored.maxSpeakers : DEFAULT_MAX_SPEAKERS,
    // Rows from before min_speakers: no floor.
    minSpeakers: typeof stored.minSpeakers === 'number' ? stored.minSpeakers : DEFAULT_SPEAKER_COUNT.minSpeakers,
    // Known speakers are stored as job-known-speakers.ts says, and read from there by the decoration.
    knownSpeakerReferences: [],
    enrolledVoiceIds: [],
    clinicalText: storedClinicalText(stored.clinicalText),
    // Rows from before multichannel: the mix.
    multichannel: stored.multichannel === true,
  };
}

/** The stored smart_format and redaction (validated when the request was made); rows from before them: neither. */
function storedClinicalText(value: unknown): ClinicalTextFields {
  const v = value as Partial<ClinicalTextFields> | null | undefined;
  if (!v || typeof v !== 'object') return NO_CLINICAL_TEXT;
  const redact = Array.isArray(v.redact) ? v.redact.filter((p): p is string => typeof p === 'string') : [];
  return {
    smartFormat: v.smartFormat === true,
    redact: redact.length > 0 ? redact : null,
    redactSubstitution: v.redactSubstitution === 'hash' ? 'hash' : 'entity_name',
    confidenceThreshold: typeof v.confidenceThreshold === 'number' ? v.confidenceThreshold : null,
    // Rows from before redact_audio: no copy.
    redactAudio: v.redactAudio === true && redact.length > 0,
    // Rows from before redact_audio_fill: silence.
    redactAudioFill: v.redactAudioFill === 'tone' ? 'tone' : 'silence',
    // Rows from before redact_output: the redacted transcript only.
    redactOutput: v.redactOutput === 'redacted_and_unredacted' && redact.length > 0 ? 'redacted_and_unredacted' : 'redacted',
  };
}

/** Whether a stored request asked for a redacted copy of its audio (the job view says what came of it). */
export function asksRedactedAudio(stored: Record<string, unknown>): boolean {
  return storedClinicalText(stored.clinicalText).redactAudio;
}

/** The stored server_vad parameters (validated when the request was made); null when absent. */
function storedVad(value: unknown): RequestVadParams | null {
  const v = value as Partial<RequestVadParams> | null | undefined;
  if (!v || typeof v.threshold !== 'number' || typeof v.minSilenceDurationMs !== 'number' || typeof v.speechPadMs !== 'number') return null;
  return { threshold: v.threshold, minSilenceDurationMs: v.minSilenceDurationMs, speechPadMs: v.speechPadMs };
}
