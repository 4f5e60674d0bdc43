// The library: `import { Engine } from 'svc-stt'` transcribes audio with no server.
export { AudioError, decodeAudio, probeAudio, sniffContainer } from './audio/index.js';
export { type EngineWork, WORK_CLASSES, type WorkClass } from './domain/work-classes.js';
export { type CallOptions, Engine, type EngineOpenOptions, type EngineStats, type LanguageDetection, type TranscribeOptions } from './engine/engine.js';
export { EngineError, isAbortError } from './engine/engine-errors.js';
export { loadNativeAddon, type NativeSystemInfo } from './engine/native-addon.js';
export type { Transcript, TranscriptSegment, TranscriptToken } from './engine/transcript.js';
export type { WorkClassStats } from './engine/work-scheduler.js';
export { downloadModel } from './models/download.js';
export { makeTestModel } from './models/make-test-model.js';
// The pipeline's stages over decoded audio (VAD, language, recognition), as the service runs them.
export type { SpeechDetection, SpeechSegment } from './engine/engine.js';
export { DEFAULT_VAD_PARAMS, type VadParams } from './engine/vad-params.js';
export { vadModelPath } from './models/vad-model-path.js';
export type { TranscriptionOutcome } from './pipeline/run-transcription.js';
export { transcribePcm, type TranscribePcmOptions } from './pipeline/transcribe-pcm.js';
// smart_format: spoken clinical quantities in digits and safe units, every change proved by the safety check.
export { formatTranscript, type TranscriptFormatOptions } from './clinical-text/format-transcript.js';
export { type FormatChange, FormatOptionError, type FormatOptions, FORMATTED_FAMILIES, type FormattedText, formatText } from './clinical-text/smart-format.js';
export { type FormattableTranscript, readTranscript, type TranscriptSegmentText, type TranscriptWord } from './clinical-text/transcript-shape.js';
// PHI redaction of text and of a verbose_json transcript (docs/API.md "Redaction"), as `svc-stt redact` runs it.
export { type RedactedText, type RedactOptions, redactText } from './clinical-text/redact-text.js';
export { type RedactedTranscript, redactTranscript, type TranscriptRedaction, type VerboseTranscriptLike } from './clinical-text/redact-transcript.js';
export {
  HEALTH_CLASSES,
  IDENTIFIER_CLASSES,
  POLICY_GROUPS,
  type RedactionClass,
  RedactionPolicyError,
  type Substitution,
  SUBSTITUTIONS,
} from './clinical-text/redaction-classes.js';
export type { RedactionEntity } from './clinical-text/redaction-spans.js';
