// A job's language across its chunks. Each chunk runs the pipeline's language stage; what one chunk
// decides is carried to the next (in the row's `progress`):
// - a given language (requested or key default) is used for every chunk as it is;
// - `auto` detects per utterance in every chunk; without hints, what the chunks so far established
//   (the last language, the speech judged outside the families) is carried, so the rule refusing a
//   recording outside the families is over the recording and a thin chunk inherits its neighbour's
//   language like any utterance (decideLanguages in src/pipeline/language-runs.ts);
// - an omitted language (no key default; decided at acceptance, stored as the `dominant` choice) is
//   decided on the first chunk that holds speech, by the dominant-language probes of its opening
//   windows: one language is then used for the rest of the recording; probes that disagree send the
//   rest of the recording the per-utterance way too.
// What the job reports is accumulated over the chunks: the effective language (`mixed` once two
// chunks differ), and a detection block whose utterances and languages cover the whole recording.
import { parseLanguageTag } from '../domain/language-families.js';
import type { LanguageEvidence } from '../pipeline/language-runs.js';
import { type LanguageChoice, type LanguageDetectionBlock, type LanguageSource, noSpeechLanguage } from '../pipeline/language-stage.js';
import { NO_SPEECH_LANGUAGE, type TranscriptionOutcome } from '../pipeline/run-transcription.js';

/** The language state carried from chunk to chunk. */
export interface JobLanguageState {
  /** The choice for the next chunk, once decided; null: the request's own choice. */
  choice: StoredChoice | null;
  /** How the language was chosen, once known (null until a chunk decides it). */
  source: LanguageSource | null;
  detection: LanguageDetectionBlock | null;
  /** The effective language so far: `und` before any speech. */
  language: string;
  /** Unhinted `auto`: what detection established so far (absent in rows written before it was kept). */
  evidence?: LanguageEvidence | null;
}

/** A LanguageChoice as plain data. */
export type StoredChoice = { mode: 'explicit'; tag: string } | { mode: 'per_utterance' };

export const INITIAL_LANGUAGE_STATE: JobLanguageState = { choice: null, source: null, detection: null, language: NO_SPEECH_LANGUAGE, evidence: null };

/** The choice a chunk runs with. */
export function chunkChoice(state: JobLanguageState, requested: LanguageChoice): LanguageChoice {
  if (!state.choice) return requested;
  if (state.choice.mode === 'per_utterance') return { mode: 'per_utterance' };
  // The family of a tag the service produced itself always parses.
  return { mode: 'explicit', language: parseLanguageTag(state.choice.tag)!, source: 'requested' };
}

/** The state after a chunk's outcome. */
export function afterChunk(state: JobLanguageState, requested: LanguageChoice, outcome: TranscriptionOutcome): JobLanguageState {
  const spoke = outcome.families.length > 0;
  let { choice } = state;
  if (!choice && requested.mode === 'dominant' && spoke) {
    choice = outcome.families.length === 1 ? { mode: 'explicit', tag: outcome.families[0] } : { mode: 'per_utterance' };
  }
  const source = state.source ?? (spoke ? outcome.languageSource : null);
  return {
    choice,
    source,
    detection: mergeDetection(state.detection, outcome),
    language: combineLanguage(state.language, outcome.language),
    evidence: outcome.languageEvidence ?? state.evidence ?? null,
  };
}

/**
 * How the finished job (or a partial result) declares its language source before any speech: as the
 * pipeline says of silence, so `auto` is `detected`, never `default`.
 */
export function finalSource(state: JobLanguageState, requested: LanguageChoice): LanguageSource {
  return state.source ?? noSpeechLanguage(requested).source;
}

function combineLanguage(previous: string, next: string): string {
  if (previous === NO_SPEECH_LANGUAGE) return next;
  if (next === NO_SPEECH_LANGUAGE || next === previous) return previous;
  return 'mixed';
}

/**
 * The recording's detection block: the first chunk's, grown by each later chunk's utterances and new
 * languages (a chunk after a dominant decision reports no block of its own, its speech still counts).
 */
function mergeDetection(previous: LanguageDetectionBlock | null, outcome: TranscriptionOutcome): LanguageDetectionBlock | null {
  if (!previous) return outcome.detection;
  return {
    ...previous,
    languages: [...new Set([...previous.languages, ...outcome.families])],
    utterances: previous.utterances + (outcome.detection?.utterances ?? outcome.speech.regions.length),
  };
}
