// The engine calls the stages make, bound to one Engine and to the work they serve (whose request,
// how urgent: the engine's scheduler orders calls by it): transcription, language detection and the
// VAD. The stages take plain functions so that they can be driven by recorded engine outputs in tests;
// this is the one place that binds them to the real engine.
import { SAMPLE_RATE } from '../domain/audio-format.js';
import type { ModelId } from '../domain/model-ids.js';
import type { EngineWork } from '../domain/work-classes.js';
import type { Engine } from '../engine/engine.js';
import type { DetectLanguage } from './language-stage.js';
import type { Transcribe } from './recognised-segment.js';
import type { Diarize, ExtractSpeakerFeatures } from './speaker-stage.js';
import type { DetectSpeech } from './speech-stage.js';

export interface PipelineStages {
  transcribe: Transcribe;
  detectLanguage: DetectLanguage;
  /** null: no VAD (all audio counts as speech). */
  detectSpeech: DetectSpeech | null;
  diarize: Diarize;
  speakerFeatures: ExtractSpeakerFeatures;
}

/** A model's stages for one request's work (its class, tenant and id). */
export type StagesFor = (work: EngineWork) => PipelineStages;

export type PipelineEngines = Record<ModelId, StagesFor>;

export interface StageOptions {
  /** Run the VAD (default true); false only to compare (`--no-vad`). */
  vad?: boolean;
}

/** `work`: whose calls these are; without it the stages' calls are one request of their own, as urgent as inline. */
let anonymousStages = 0;

export function pipelineStages(engine: Engine, options: StageOptions = {}, work?: EngineWork): PipelineStages {
  const tag = { work: work ?? { workClass: 'interactive', tenant: '', request: `stages:${++anonymousStages}` } };
  return {
    transcribe: (pcm, transcribeOptions, signal, onSegments) =>
      engine.transcribe(pcm, transcribeOptions, { signal, ...tag, ...(onSegments ? { onSegments } : {}) }),
    // The stages hand over packed audio (arrays of their own), never views into a larger recording,
    // whose whole buffer would be copied to the worker thread.
    // Packed speech is shorter than a window more often than not: only its length is encoded.
    detectLanguage: async (pcm, signal) => (await engine.detectLanguage(pcm, { audioSeconds: pcm.length / SAMPLE_RATE }, { signal, ...tag })).probabilities,
    detectSpeech: options.vad === false ? null : async (pcm, signal, params) => (await engine.detectSpeech(pcm, params ?? {}, { signal, ...tag })).segments,
    // Every voice up to the diarizer's maximum is detected; the request's ceiling only limits labels.
    diarize: (input, regions, signal, hints) => engine.diarize(input, regions, { minVoices: hints?.minVoices }, { signal, ...tag }),
    speakerFeatures: (pcm, regions, signal) => engine.speakerFeatures(pcm, regions, { signal, ...tag }),
  };
}
