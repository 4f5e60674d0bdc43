// A finished turn's text, by the same stages as an uploaded window (pipeline/recognise-stage.ts): the
// turn's speech packed, decoded with the session's vocabulary under the safety check (its fallback
// to the context-free text included), term corrections, the session's patterns, and the
// hallucination guard. Partials skip all of this (they are provisional and replaced within a second);
// the turn_final, the only text a client may act on, never does.
import { SAMPLE_RATE } from '../domain/audio-format.js';
import type { LanguageFamily } from '../domain/language-families.js';
import type { TranscribeOptions } from '../engine/engine.js';
import type { PatternTally } from '../pipeline/pattern-stage.js';
import type { PatternProgram } from '../pipeline/patterns/pattern-program.js';
import type { VocabularyTally } from '../pipeline/prompted-recognition.js';
import { recogniseRuns } from '../pipeline/recognise-stage.js';
import type { Transcribe } from '../pipeline/recognised-segment.js';
import type { SpeechRegion } from '../pipeline/speech-regions.js';
import type { VocabularyPlan } from '../pipeline/vocabulary-audit.js';
import { meanTokenProbability } from '../pipeline/words.js';

export interface TurnRecognitionInput {
  /** The turn's audio, 16 kHz; `regions` are its speech, in seconds from its first sample. */
  pcm: Float32Array;
  regions: readonly SpeechRegion[];
  language: LanguageFamily;
  /** The session's vocabulary for this turn (no terms: no prompt, no check). */
  vocabulary: VocabularyPlan;
  patterns: readonly PatternProgram[];
  transcribe: Transcribe;
  signal?: AbortSignal;
}

export interface TurnRecognition {
  text: string;
  /** Segments the hallucination guard dropped: a turn whose every segment was dropped has no text. */
  droppedSegments: number;
  /** What prompting did in this turn; null without vocabulary. Times in the turn's own seconds. */
  vocabulary: VocabularyTally | null;
  /** What the patterns matched; null without patterns. Times in the turn's own seconds. */
  patterns: PatternTally | null;
  /** The mean probability of the turn's text tokens (a model probability, not an accuracy); null without text. */
  confidence: number | null;
}

/**
 * Greedy, without context from earlier turns (a turn is decoded on its own). Speech runs at about 3
 * tokens a second: a cap well above it keeps a runaway decode short.
 */
export function turnDecodeOptions(language: LanguageFamily, seconds: number): TranscribeOptions {
  return { language, strategy: 'greedy', temperatureInc: 0, noContext: true, maxTokens: Math.ceil(seconds * 8) + 16 };
}

export async function recogniseTurn(input: TurnRecognitionInput): Promise<TurnRecognition> {
  const { vocabulary } = input;
  const recognised = await recogniseRuns({
    pcm: input.pcm,
    sampleRate: SAMPLE_RATE,
    runs: [{ language: input.language, regions: [...input.regions] }],
    // Sized by the packed speech: a turn is at most one window.
    optionsFor: (language) => turnDecodeOptions(language, speechSeconds(input.regions)),
    transcribe: input.transcribe,
    ...(vocabulary.terms.length > 0 ? { prompting: { terms: vocabulary.terms, prompt: vocabulary.prompt, wordTiming: false } } : {}),
    patterns: input.patterns,
    ...(input.signal ? { signal: input.signal } : {}),
  });
  return {
    text: recognised.text,
    droppedSegments: recognised.droppedSegments,
    vocabulary: recognised.vocabulary,
    patterns: recognised.patterns,
    confidence: meanTokenProbability(recognised.segments.flatMap((segment) => segment.tokens)),
  };
}

function speechSeconds(regions: readonly SpeechRegion[]): number {
  return regions.reduce((sum, r) => sum + (r.end - r.start), 0);
}
