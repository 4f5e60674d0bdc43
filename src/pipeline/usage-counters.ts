// What a unit of work is metered with, read off the pipeline's outcome: the language family (never
// the tag's text beyond it), which features ran, and the safety counters. Counters only: nothing of
// the transcript leaves here.
import type { WorkDone } from '../billing/usage-billing.js';
import { parseLanguageTag } from '../domain/language-families.js';
import { NO_SAFETY_EVENTS, type SafetyCounters, USAGE_FAMILY_MIXED, USAGE_FAMILY_NONE } from '../store/usage-record.js';
import type { VocabularyTally } from './prompted-recognition.js';
import type { PipelineRequest, TranscriptionOutcome } from './run-transcription.js';

export type UsageCounters = Omit<WorkDone, 'eventKey' | 'route' | 'model'>;

/** The family metered for a reported language: a family, `mixed`, or `und` (no speech, or not a tag). */
export function usageFamilyOf(language: string): string {
  if (language === USAGE_FAMILY_MIXED) return USAGE_FAMILY_MIXED;
  return parseLanguageTag(language)?.family ?? USAGE_FAMILY_NONE;
}

/** Whether the request asked for vocabulary help: terms, the key's dictionary, or a prompt. */
export function usesVocabulary(request: Pick<PipelineRequest, 'vocabulary' | 'prompt'>, dictionaryTerms: number): boolean {
  return request.vocabulary.length > 0 || dictionaryTerms > 0 || (request.prompt ?? '') !== '';
}

export function vocabularySafety(tally: VocabularyTally | null): Pick<SafetyCounters, 'vocabularyFallbacks' | 'suspectInsertions'> {
  return { vocabularyFallbacks: tally?.fallbackChunks ?? 0, suspectInsertions: tally?.suspectTerms.length ?? 0 };
}

/** Counters of an inline answer (or a realtime utterance) from its outcome. */
export function usageCountersOf(
  outcome: TranscriptionOutcome,
  request: Pick<PipelineRequest, 'diarize' | 'vocabulary' | 'prompt' | 'patterns'>,
): UsageCounters {
  return {
    languageFamily: usageFamilyOf(outcome.language),
    diarization: request.diarize,
    vocabulary: usesVocabulary(request, outcome.vocabulary?.dictionary_terms ?? 0),
    patterns: (request.patterns?.length ?? 0) > 0,
    audioMs: Math.round(outcome.durationSeconds * 1000),
    safety: {
      ...NO_SAFETY_EVENTS,
      ...vocabularySafety(outcome.vocabularyTally),
      reviewRequired: outcome.speakers.segments.filter((s) => s.reviewRequired).length,
    },
  };
}

/** Counters of work refused because the language spoken is not supported: counted, no audio billed. */
export function unsupportedLanguageCounters(request: Pick<PipelineRequest, 'diarize' | 'vocabulary' | 'prompt' | 'patterns'>): UsageCounters {
  return {
    languageFamily: USAGE_FAMILY_NONE,
    diarization: request.diarize,
    vocabulary: usesVocabulary(request, 0),
    patterns: (request.patterns?.length ?? 0) > 0,
    audioMs: 0,
    safety: { ...NO_SAFETY_EVENTS, unsupportedLanguage: 1 },
  };
}
