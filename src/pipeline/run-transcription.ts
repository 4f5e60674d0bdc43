// PCM in, a decided transcript out: chooses the language (requested, key default, or detected among
// the allowed candidates), builds the vocabulary prompt, runs the engine. No HTTP here.
import { ApiError } from '../api/api-error.js';
import type { Engine, TranscribeOptions } from '../engine/engine.js';
import type { Transcript } from '../engine/transcript.js';
import type { ServiceConfig } from '../config/service-config.js';
import { LANGUAGE_FAMILIES, WORD_TIMING_FAMILIES, type LanguageFamily } from './languages.js';
import type { TranscriptionRequest } from './transcription-request.js';
import { auditVocabulary, planVocabulary, promptForTerms } from './vocabulary-audit.js';

export interface LanguageDetectionBlock {
  mode: 'per_utterance';
  candidates: string[];
  requested_candidates?: string[];
  languages: string[];
  utterances: number;
  fallbacks: 0;
}

export interface TranscriptionOutcome {
  transcript: Transcript;
  /** The effective language tag reported to the client. */
  language: string;
  family: LanguageFamily;
  languageSource: 'requested' | 'default' | 'detected';
  detection: LanguageDetectionBlock | null;
  vocabulary: ReturnType<typeof auditVocabulary> | null;
  wordTiming: boolean;
  asrMs: number;
}

export interface RunTranscriptionDeps {
  engine: Engine;
  decoding: ServiceConfig['decoding'];
  /** The key's stored dictionary for a language family. */
  dictionaryFor: (family: LanguageFamily) => string[];
}

export async function runTranscription(
  pcm: Float32Array,
  request: TranscriptionRequest,
  deps: RunTranscriptionDeps,
  signal?: AbortSignal,
): Promise<TranscriptionOutcome> {
  const started = performance.now();
  let family: LanguageFamily;
  let language: string;
  let languageSource: TranscriptionOutcome['languageSource'];
  let detection: LanguageDetectionBlock | null = null;

  if (request.language.mode === 'auto') {
    const hints = request.language.hints;
    const candidates: string[] = hints ? [...new Set(hints.map((h) => h.family))] : [...LANGUAGE_FAMILIES];
    const detected = await deps.engine.detectLanguage(pcm, {}, { signal });
    // With hints the caller vouches for the candidates: the likeliest of them wins. Without hints the
    // likeliest language overall must be one we support; there is no silent fallback to English.
    const best = hints
      ? candidates.reduce((a, b) => ((detected.probabilities[b] ?? 0) > (detected.probabilities[a] ?? 0) ? b : a))
      : detected.language;
    if (!candidates.includes(best)) {
      throw new ApiError(422, 'invalid_request', 'the detected language is not supported');
    }
    family = best as LanguageFamily;
    language = family;
    languageSource = 'detected';
    detection = {
      mode: 'per_utterance',
      candidates,
      ...(hints ? { requested_candidates: hints.map((h) => h.tag) } : {}),
      languages: [family],
      // Detection runs on the first window and the whole recording is one run in that language.
      utterances: 1,
      fallbacks: 0,
    };
  } else {
    family = request.language.language.family;
    language = request.language.language.tag;
    languageSource = request.language.source;
  }

  const dictionary = request.dictionary ? deps.dictionaryFor(family) : [];
  const plan = request.vocabulary.length || dictionary.length ? planVocabulary(request.vocabulary, dictionary) : null;
  const wordTiming = request.diarize && WORD_TIMING_FAMILIES.includes(family);
  const options: TranscribeOptions = {
    language: family,
    strategy: deps.decoding.beamSize > 1 ? 'beam' : 'greedy',
    beamSize: Math.max(1, deps.decoding.beamSize),
    ...(deps.decoding.maxTokens > 0 ? { maxTokens: deps.decoding.maxTokens } : {}),
    ...(deps.decoding.temperatureFallback ? {} : { temperatureInc: 0 }),
    ...(plan ? { initialPrompt: promptForTerms(plan.prompted) } : {}),
    tokenTimestamps: wordTiming,
  };
  const transcript = await deps.engine.transcribe(pcm, options, { signal });
  return {
    transcript,
    language,
    family,
    languageSource,
    detection,
    vocabulary: plan ? auditVocabulary(plan, transcript.text, language) : null,
    wordTiming,
    asrMs: Math.round(performance.now() - started),
  };
}
