// The recognise stage: each language run's speech packed and transcribed in its language, every time
// carried back to the recording's timeline, runs concatenated in time order, and decoded segments
// that are most likely hallucinated dropped.
//
// The hallucination guard (on the decoded side, after the VAD's on the audio side): a segment is
// dropped when whisper itself rates it probably not speech (no-speech probability at or above
// NO_SPEECH_DROP_THRESHOLD, whisper's own default for the same judgement) AND less than half of its
// time lies in speech the VAD found. Either signal alone is not enough: whisper's no-speech
// probability is high on quiet or accented speech, and a VAD region's edges are approximate; text
// that both call silence is what whisper invents over silence ("Thank you.", "Subtitles by ...").
import { addPatternTallies, applyPatterns, emptyPatternTally, type PatternTally } from './pattern-stage.js';
import type { PatternProgram } from './patterns/pattern-program.js';
import type { TranscribeOptions } from '../engine/engine.js';
import type { TranscriptSegment } from '../engine/transcript.js';
import type { LanguageFamily } from '../domain/language-families.js';
import type { LanguageRun } from './language-runs.js';
import { addTallies, EMPTY_TALLY, recognisePromptedWindow, type Prompting, type VocabularyTally } from './prompted-recognition.js';
import { correctTerms } from './term-corrections.js';
import { TextDeltas, type TextDelta } from './text-deltas.js';
import type { RecognisedSegment, Transcribe } from './recognised-segment.js';
import { overlapWithSpeech, packRegions, toOriginalTime, windowRegions, type PackedAudio, type SpeechRegion } from './speech-regions.js';

export const NO_SPEECH_DROP_THRESHOLD = 0.6;
/** Share of a segment's time that must lie in VAD speech for a high no-speech probability to be overruled. */
export const MIN_SPEECH_OVERLAP = 0.5;

export interface RecognisedSpeech {
  text: string;
  /** In the recording's time, ordered. */
  segments: RecognisedSegment[];
  /** Segments dropped by the hallucination guard. */
  droppedSegments: number;
  /** Engine calls made (one per run, or per window with a prompt). */
  engineCalls: number;
  /** What prompting did; null without a prompt. */
  vocabulary: VocabularyTally | null;
  /** What the patterns matched; null without patterns. */
  patterns: PatternTally | null;
}

export interface RecogniseInput {
  pcm: Float32Array;
  sampleRate: number;
  runs: LanguageRun[];
  /** Decoding options for a run's language (vocabulary prompt, word timing, decoding settings). */
  optionsFor: (language: LanguageFamily) => TranscribeOptions;
  transcribe: Transcribe;
  /** A prompt and its safety check (prompted-recognition.ts): runs are decoded window by window. */
  prompting?: Prompting;
  /** The request's patterns (pattern-stage.ts), applied to each window's text after corrections. */
  patterns?: readonly PatternProgram[];
  signal?: AbortSignal;
  /**
   * The text as it is decoded, as deltas. Segments are told as the engine decodes them where nothing
   * after decoding can change them (no prompt, no term corrections, no patterns); otherwise each
   * window is told once it is final.
   */
  onTextDelta?: TextDelta;
}

export async function recogniseRuns(input: RecogniseInput): Promise<RecognisedSpeech> {
  const segments: RecognisedSegment[] = [];
  const texts: string[] = [];
  let dropped = 0;
  let engineCalls = 0;
  let vocabulary: VocabularyTally | null = input.prompting ? EMPTY_TALLY : null;
  const programs = input.patterns ?? [];
  let patterns: PatternTally | null = programs.length > 0 ? emptyPatternTally(programs.length) : null;
  const deltas = input.onTextDelta ? new TextDeltas(input.onTextDelta) : null;
  const segmentwise = deltas !== null && !input.prompting && programs.length === 0;
  for (const run of input.runs) {
    const groups = input.prompting ? windowRegions(run.regions) : [run.regions];
    for (const regions of groups) {
      const packed = packRegions(input.pcm, input.sampleRate, regions);
      if (packed.pcm.length === 0) continue;
      const options = input.optionsFor(run.language);
      let decoded: TranscriptSegment[];
      if (input.prompting) {
        const window = await recognisePromptedWindow(packed.pcm, options, input.prompting, input.transcribe, input.signal);
        decoded = window.segments;
        vocabulary = addTallies(vocabulary ?? EMPTY_TALLY, window.tally);
      } else {
        // Segments told as decoded pass the same mapping and guard as the kept ones below.
        const live: string[] = [];
        const onSegments = segmentwise
          ? (fresh: TranscriptSegment[]) => {
              for (const segment of fresh) {
                const mapped = mapSegment(segment, packed);
                if (!isLikelyHallucination(mapped, regions)) live.push(mapped.text);
              }
              deltas!.show([...texts, live.join('').trim()]);
            }
          : undefined;
        decoded = (await input.transcribe(packed.pcm, options, input.signal, onSegments)).segments;
      }
      engineCalls++;
      let kept: RecognisedSegment[] = [];
      for (const segment of decoded) {
        const mapped = { ...mapSegment(segment, packed), language: run.language };
        if (isLikelyHallucination(mapped, regions)) dropped++;
        else kept.push(mapped);
      }
      if (input.prompting && input.prompting.terms.length > 0) {
        const corrected = correctTerms(kept, input.prompting.terms);
        kept = corrected.segments;
        vocabulary = addTallies(vocabulary ?? EMPTY_TALLY, { ...EMPTY_TALLY, corrections: corrected.corrections });
      }
      if (patterns !== null) {
        const formatted = applyPatterns(kept, programs);
        kept = formatted.segments;
        patterns = addPatternTallies(patterns, formatted.tally);
      }
      segments.push(...kept);
      const text = kept
        .map((s) => s.text)
        .join('')
        .trim();
      if (text !== '') texts.push(text);
      deltas?.show(texts);
    }
  }
  return { text: texts.join(' '), segments, droppedSegments: dropped, engineCalls, vocabulary, patterns };
}

export function isLikelyHallucination(segment: TranscriptSegment, speech: readonly SpeechRegion[]): boolean {
  if (segment.noSpeechProb < NO_SPEECH_DROP_THRESHOLD) return false;
  const duration = segment.end - segment.start;
  if (duration <= 0) return true;
  return overlapWithSpeech(segment.start, segment.end, speech) / duration < MIN_SPEECH_OVERLAP;
}

function mapSegment(segment: TranscriptSegment, packed: PackedAudio): TranscriptSegment {
  const start = toOriginalTime(packed, segment.start, 'start');
  const end = Math.max(start, toOriginalTime(packed, segment.end, 'end'));
  return {
    ...segment,
    start,
    end,
    tokens: segment.tokens.map((token) => {
      const tokenStart = token.start === null ? null : toOriginalTime(packed, token.start, 'start');
      const tokenEnd = token.end === null ? null : Math.max(tokenStart ?? 0, toOriginalTime(packed, token.end, 'end'));
      return {
        ...token,
        start: tokenStart,
        end: tokenEnd,
        dtw: token.dtw === null ? null : toOriginalTime(packed, token.dtw, 'start'),
      };
    }),
  };
}
