// The library: `import { Engine } from 'svc-stt'` transcribes audio with no server.
export { Engine, type EngineOpenOptions, type EngineStats, type TranscribeOptions, type CallOptions, type LanguageDetection } from './engine/engine.js';
export { EngineError, isAbortError } from './engine/engine-errors.js';
export type { Transcript, TranscriptSegment, TranscriptToken } from './engine/transcript.js';
export { loadNativeAddon, type NativeSystemInfo } from './engine/native-addon.js';
export { decodeAudio, probeAudio, sniffContainer, AudioError } from './audio/index.js';
export { makeTestModel } from './models/make-test-model.js';
export { downloadModel } from './models/download.js';
