export type { AudioContainer, Container } from './audio-container.js';
export { AUDIO_CONTAINERS, isAudioContainer } from './audio-container.js';
export { assertDurationWithin } from './audio-duration-window.js';
export type { AudioErrorCode } from './audio-errors.js';
export {
  AUDIO_ERROR_MESSAGES,
  AudioError,
  AudioTooLongError,
  AudioTooShortError,
  DecodeAbortedError,
  DecodeTimeoutError,
  isAudioError,
  UndecodableAudioError,
  UnsupportedContainerError,
} from './audio-errors.js';
export type { AudioInput, AudioSource } from './audio-source.js';
export { audioSourceOf } from './audio-source.js';
export type { AudioSourceFailureReason } from './audio-source-failure.js';
export { AudioSourceUnavailableError } from './audio-source-failure.js';
export { AUDIO_TOOLS, AudioToolsMissingError, missingAudioTools, requireAudioTools } from './audio-tools.js';
export { containerForFilename, containerForMimeType, filenameMatchesMimeType, mimeTypeForContainer } from './container-media-types.js';
export type { ReadBytesAt } from './container-sniffer.js';
export { SNIFF_BYTES, sniffContainer, sniffFile, sniffWithReader } from './container-sniffer.js';
export type { DecodeAudioOptions } from './decode-audio.js';
export { decodeAudio } from './decode-audio.js';
export type { DecodeWindowOptions } from './decode-audio-window.js';
export { decodeAudioWindow } from './decode-audio-window.js';
export { AudioToolUnavailableError } from './ffmpeg-process.js';
export { identifyContainer } from './identify-container.js';
export type { MutedWavOptions, RedactionFill } from './muted-wav.js';
export { writeMutedWav } from './muted-wav.js';
export { REDACTION_FILLS, TONE_HZ } from './muted-wav.js';
export type { AudioProbe, ProbeAudioOptions } from './probe-audio.js';
export { probeAudio } from './probe-audio.js';
export type { TimeSpan } from './time-spans.js';
export { padAndMergeSpans } from './time-spans.js';
