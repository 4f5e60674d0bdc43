// A long recording transcribed chunk by chunk (a job, one chunk per claim) reports over the whole
// recording what each chunk's outcome reports over its own audio. This is where one chunk's outcome,
// which started `offsetSeconds` into the recording, is added to the totals so far: its times moved
// onto the recording's timeline, its tallies summed. The tallies' insides stay the pipeline's own.
//
// The totals are plain data that outlive a process (a job stores them in its row between claims), so
// their shape is kept as it is: totals written by an earlier version are read on.
import { addPatternTallies, emptyPatternTally, type PatternTally, shiftPatternTally } from './pattern-stage.js';
import { addTallies, EMPTY_TALLY, shiftTally, type VocabularyTally } from './prompted-recognition.js';
import type { TranscriptionOutcome } from './run-transcription.js';
import type { SpeechRegion } from './speech-regions.js';

/**
 * What the chunks so far add up to, in the recording's time. A type alias, not an interface: only an
 * alias is assignable to an index signature, which a stored record holding the totals has (a job's
 * carry-over is a Record<string, unknown>).
 */
export type RecordingTotals = {
  /** As the latest chunk decided it (word timing depends on the languages it heard). */
  wordTiming: boolean;
  /** Recognition time, summed over the chunks. */
  asrMs: number;
  /** What prompting did; absent until a prompted chunk. */
  vocabulary?: VocabularyTally;
  /** What the request's patterns matched; absent until a chunk ran them. */
  patterns?: PatternTally;
  /** Speech regions as [start, end] seconds, to the millisecond; kept only when asked for. */
  speech?: Array<[number, number]>;
  /** A multichannel recording's speech regions by channel, as `speech`; kept only when asked for. */
  channelSpeech?: Array<Array<[number, number]>>;
};

/** What accumulation reads of a chunk's outcome. */
export type ChunkOutcome = Pick<TranscriptionOutcome, 'wordTiming' | 'asrMs' | 'vocabularyTally' | 'patterns' | 'speech'>;

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/**
 * The totals with one more chunk. Whatever else `totals` carries comes through untouched, and the
 * fields are set in a fixed order after it (the stored form is the same from chunk to chunk).
 * `keepSpeech`: add the chunk's speech regions, and each channel's of a multichannel recording (speakers
 * are attached later, over the whole recording).
 */
export function accumulateChunk<T extends RecordingTotals>(
  totals: T,
  outcome: ChunkOutcome,
  offsetSeconds: number,
  options: { keepSpeech: boolean },
): T & RecordingTotals {
  const { vocabularyTally, patterns } = outcome;
  return {
    ...totals,
    wordTiming: outcome.wordTiming,
    asrMs: totals.asrMs + outcome.asrMs,
    // A chunk without a tally (no prompt, no patterns) leaves the totals' own, or their absence.
    ...(vocabularyTally ? { vocabulary: addTallies(totals.vocabulary ?? EMPTY_TALLY, shiftTally(vocabularyTally, offsetSeconds)) } : {}),
    ...(patterns
      ? { patterns: addPatternTallies(totals.patterns ?? emptyPatternTally(patterns.results.length), shiftPatternTally(patterns, offsetSeconds)) }
      : {}),
    ...(options.keepSpeech
      ? {
          speech: [...(totals.speech ?? []), ...shifted(outcome.speech.regions, offsetSeconds)],
          ...(outcome.speech.channels
            ? { channelSpeech: outcome.speech.channels.map((regions, c) => [...(totals.channelSpeech?.[c] ?? []), ...shifted(regions, offsetSeconds)]) }
            : {}),
        }
      : {}),
  };
}

/** Regions as [start, end] seconds into the recording, to the millisecond. */
function shifted(regions: readonly SpeechRegion[], offsetSeconds: number): Array<[number, number]> {
  return regions.map((r) => [round3(offsetSeconds + r.start), round3(offsetSeconds + r.end)]);
}
