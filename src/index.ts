// The library: `import { Engine } from 'svc-stt'` transcribes audio with no server.
export { Engine, type EngineOpenOptions, type EngineStats, type TranscribeOptions, type CallOptions, type LanguageDetection } from './engine/engine.js';
export { EngineError, isAbortError } from './engine/engine-errors.js';
export type { Transcript, TranscriptSegment, TranscriptToken } from './engine/transcript.js';
export { loadNativeAddon, type NativeSystemInfo } from './engine/native-addon.js';
export { WORK_CLASSES, type EngineWork, type WorkClass } from './domain/work-classes.js';
export type { WorkClassStats } from './engine/work-scheduler.js';
export { decodeAudio, probeAudio, sniffContainer, AudioError } from './audio/index.js';
export { makeTestModel } from './models/make-test-model.js';
export { downloadModel } from './models/download.js';
// The pipeline's stages over decoded audio (VAD, language, recognition), as the service runs them.
export { transcribePcm, type TranscribePcmOptions } from './pipeline/transcribe-pcm.js';
export type { TranscriptionOutcome } from './pipeline/run-transcription.js';
export { DEFAULT_VAD_PARAMS, type VadParams } from './engine/vad-params.js';
export type { SpeechDetection, SpeechSegment } from './engine/engine.js';
export { vadModelPath } from './models/vad-model-path.js';
// smart_format: spoken clinical quantities in digits and safe units, every change proved by the safety check.
export { formatText, FormatOptionError, FORMATTED_FAMILIES, type FormatOptions, type FormatChange, type FormattedText } from './clinical-text/smart-format.js';
export { formatTranscript, type TranscriptFormatOptions } from './clinical-text/format-transcript.js';
export { readTranscript, type FormattableTranscript, type TranscriptSegmentText, type TranscriptWord } from './clinical-text/transcript-shape.js';
// PHI redaction of text and of a verbose_json transcript (docs/API.md "Redaction"), as `svc-stt redact` runs it.
export { redactText, type RedactOptions, type RedactedText } from './clinical-text/redact-text.js';
export { redactTranscript, type RedactedTranscript, type TranscriptRedaction, type VerboseTranscriptLike } from './clinical-text/redact-transcript.js';
export {
  IDENTIFIER_CLASSES,
  HEALTH_CLASSES,
  POLICY_GROUPS,
  SUBSTITUTIONS,
  RedactionPolicyError,
  type RedactionClass,
  type Substitution,
} from './clinical-text/redaction-classes.js';
export type { RedactionEntity } from './clinical-text/redaction-spans.js';
