// The library's and the CLI's way into the pipeline: the same stages as the service (VAD, language,
// recognition) over decoded audio, with plain options instead of a validated API request.
import { resolvePolicies } from '../clinical-text/redaction-classes.js';
import { type LanguageTag, parseLanguageTag, SUPPORTED_LANGUAGE_TAGS } from '../domain/language-families.js';
import type { Engine } from '../engine/engine.js';
import { applyClinicalText, type ClinicalTextRequest } from './clinical-text-stage.js';
import type { LanguageChoice } from './language-stage.js';
import { checkPatterns } from './patterns.js';
import { pipelineStages } from './pipeline-engine.js';
import { UnprocessableRequest } from './pipeline-errors.js';
import { type DecodingSettings, runTranscription, transcriptionDeps, type TranscriptionOutcome } from './run-transcription.js';

export interface TranscribePcmOptions {
  /** A supported tag (`en`, `es-MX`, ...), `auto` (per utterance), or omitted: the dominant language is detected. */
  language?: string;
  /** With `auto`: the candidate languages (supported tags); the likeliest of them is chosen, never refused. */
  languageHints?: string[];
  /** Run the VAD (default true): only speech is decoded. false decodes all of the audio, to compare. */
  vad?: boolean;
  vocabulary?: string[];
  /** A text to guide spelling (OpenAI's `prompt`), ahead of the vocabulary and under the same safety check. */
  prompt?: string;
  /** Structured-token patterns (PATTERNS.md), at most 32: matches are formatted and reported. */
  patterns?: string[];
  /** Word timestamps (token-level timing) where the language has them. */
  wordTimestamps?: boolean;
  /** Speaker labels (who spoke when), attached by the contract's rules; implies word timestamps. */
  diarize?: boolean;
  /** With diarize: the labelling ceiling (1 to 4, default 4). */
  maxSpeakers?: number;
  decoding?: Partial<DecodingSettings>;
  signal?: AbortSignal;
  /** smart_format, PHI redaction and low-confidence marks, as the service's `smart_format`, `redact` and `confidence_threshold`. */
  clinicalText?: ClinicalTextRequest;
}

const DEFAULT_DECODING: DecodingSettings = { beamSize: 1, maxTokens: 0, temperatureFallback: true };

/** `pcm`: 16 kHz mono. The engine needs a VAD model unless `vad` is false. */
export async function transcribePcm(engine: Engine, pcm: Float32Array, options: TranscribePcmOptions = {}): Promise<TranscriptionOutcome> {
  // Unknown policy names are refused before any audio is decoded.
  if (options.clinicalText?.redact) resolvePolicies(options.clinicalText.redact);
  const outcome = await runTranscription(
    pcm,
    {
      language: languageChoiceOf(options.language, options.languageHints),
      dictionary: false,
      vocabulary: options.vocabulary ?? [],
      prompt: options.prompt ?? null,
      patterns: checkPatterns(options.patterns ?? []),
      diarize: options.diarize ?? false,
      wordTimestamps: options.wordTimestamps ?? false,
      ...(options.maxSpeakers !== undefined ? { maxSpeakers: options.maxSpeakers } : {}),
    },
    transcriptionDeps(pipelineStages(engine, { vad: options.vad }), { ...DEFAULT_DECODING, ...options.decoding }),
    { signal: options.signal },
  );
  return options.clinicalText ? applyClinicalText(outcome, options.clinicalText) : outcome;
}

function languageChoiceOf(language: string | undefined, hints: string[] | undefined): LanguageChoice {
  if (hints && language !== 'auto') throw new UnprocessableRequest('language hints are only valid with language auto');
  if (language === undefined) return { mode: 'dominant' };
  if (language === 'auto') return { mode: 'auto', hints: hints ? hints.map(tagOf) : null };
  return { mode: 'explicit', language: tagOf(language), source: 'requested' };
}

function tagOf(raw: string): LanguageTag {
  const tag = parseLanguageTag(raw);
  if (!tag) throw new UnprocessableRequest(`language is not a supported language tag: use ${SUPPORTED_LANGUAGE_TAGS}, or auto`);
  return tag;
}
