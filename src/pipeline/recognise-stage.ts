// The recognise stage: each language run's speech packed into decoding windows of at most 30 s cut at
// the VAD's pauses, the windows transcribed in their run's language, all at once (the engine's
// scheduler gives them to workers as they free up), every time carried back to the recording's
// timeline, the windows joined in time order, and decoded segments that are most likely hallucinated
// dropped.
//
// Windows are independent (docs/DESIGN.md decision 10): each is one engine call with the request's
// prompt only, never the previous window's text, so the text is the same however many workers ran
// them, and one recording uses every free worker. Whisper's conditioning on earlier text is dropped as
// faster-whisper's batched pipeline and WhisperX drop it: it is what carries a hallucination or a
// repetition loop from one window into the next, and a window cut at a pause rarely needs the words
// before it to be read.
//
// The hallucination guard (on the decoded side, after the VAD's on the audio side): a segment is
// dropped when whisper itself rates it probably not speech (no-speech probability at or above
// NO_SPEECH_DROP_THRESHOLD, whisper's own default for the same judgement) AND less than half of its
// time lies in speech the VAD found. Either signal alone is not enough: whisper's no-speech
// probability is high on quiet or accented speech, and a VAD region's edges are approximate; text
// that both call silence is what whisper invents over silence ("Thank you.", "Subtitles by ...").
import type { LanguageFamily } from '../domain/language-families.js';
import type { TranscribeOptions } from '../engine/engine.js';
import type { TranscriptSegment } from '../engine/transcript.js';
import type { LanguageRun } from './language-runs.js';
import { addPatternTallies, applyPatterns, emptyPatternTally, type PatternTally } from './pattern-stage.js';
import type { PatternProgram } from './patterns/pattern-program.js';
import { addTallies, EMPTY_TALLY, type Prompting, recognisePromptedWindow, type VocabularyTally } from './prompted-recognition.js';
import type { RecognisedSegment, Transcribe } from './recognised-segment.js';
import { overlapWithSpeech, type PackedAudio, packRegions, type SpeechRegion, toOriginalTime, windowRegions } from './speech-regions.js';
import { correctTerms } from './term-corrections.js';
import { type TextDelta, TextDeltas } from './text-deltas.js';

export const NO_SPEECH_DROP_THRESHOLD = 0.6;
/** Share of a segment's time that must lie in VAD speech for a high no-speech probability to be overruled. */
export const MIN_SPEECH_OVERLAP = 0.5;

export interface RecognisedSpeech {
  text: string;
  /** In the recording's time, ordered. */
  segments: RecognisedSegment[];
  /** Segments dropped by the hallucination guard. */
  droppedSegments: number;
  /** Windows decoded (a prompted window may take two or three engine calls: prompted-recognition.ts). */
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
  const windows = planWindows(input);
  const programs = input.patterns ?? [];
  const deltas = input.onTextDelta ? new OrderedWindowText(new TextDeltas(input.onTextDelta), windows.length) : null;
  const segmentwise = deltas !== null && !input.prompting && programs.length === 0;
  // One window failing stops the others: the request has failed, their work would be thrown away.
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  input.signal?.addEventListener('abort', onAbort, { once: true });
  if (input.signal?.aborted) stop.abort();
  const outcomes: WindowOutcome[] = [];
  let failure: { error: unknown } | null = null;
  try {
    // Every window at once: the engine's scheduler hands them to workers as they free up.
    await Promise.all(
      windows.map(async (window, k) => {
        try {
          outcomes[k] = await recogniseWindow(window, input, programs, stop.signal, segmentwise ? (text) => deltas!.live(k, text) : undefined);
          deltas?.finished(k, outcomes[k].text);
        } catch (error) {
          // The first failure is the request's; the others are the stop it caused.
          failure ??= { error };
          stop.abort();
        }
      }),
    );
  } finally {
    input.signal?.removeEventListener('abort', onAbort);
  }
  if (failure) throw (failure as { error: unknown }).error;
  return assemble(outcomes, input.prompting !== undefined, programs.length);
}

/** One decoding window of a language run: its regions, packed. */
interface PlannedWindow {
  language: LanguageFamily;
  regions: SpeechRegion[];
  packed: PackedAudio;
}

/** What one window gave, before windows are joined in order. */
interface WindowOutcome {
  segments: RecognisedSegment[];
  text: string;
  dropped: number;
  engineCalls: number;
  vocabulary: VocabularyTally | null;
  patterns: PatternTally | null;
}

/** Each run's speech in windows of at most WINDOW_SECONDS of packed audio, runs in time order. */
function planWindows(input: RecogniseInput): PlannedWindow[] {
  const windows: PlannedWindow[] = [];
  for (const run of input.runs) {
    for (const regions of windowRegions(run.regions)) {
      const packed = packRegions(input.pcm, input.sampleRate, regions);
      if (packed.pcm.length > 0) windows.push({ language: run.language, regions, packed });
    }
  }
  return windows;
}

/**
 * One window decoded, mapped to the recording's time, guarded, corrected and formatted. `live`: its
 * text so far as the engine decodes it (only where nothing after decoding can change it).
 */
async function recogniseWindow(
  window: PlannedWindow,
  input: RecogniseInput,
  programs: readonly PatternProgram[],
  signal: AbortSignal,
  live: ((text: string) => void) | undefined,
): Promise<WindowOutcome> {
  const { packed, regions } = window;
  const options = input.optionsFor(window.language);
  let decoded: TranscriptSegment[];
  let vocabulary: VocabularyTally | null = null;
  if (input.prompting) {
    const recognised = await recognisePromptedWindow(packed.pcm, options, input.prompting, input.transcribe, signal);
    decoded = recognised.segments;
    vocabulary = recognised.tally;
  } else {
    // Segments told as decoded pass the same mapping and guard as the kept ones below.
    const told: string[] = [];
    const onSegments = live
      ? (fresh: TranscriptSegment[]) => {
          for (const segment of fresh) {
            const mapped = mapSegment(segment, packed);
            if (!isLikelyHallucination(mapped, regions)) told.push(mapped.text);
          }
          live(told.join('').trim());
        }
      : undefined;
    decoded = (await input.transcribe(packed.pcm, options, signal, onSegments)).segments;
  }
  let dropped = 0;
  let kept: RecognisedSegment[] = [];
  for (const segment of decoded) {
    const mapped = { ...mapSegment(segment, packed), language: window.language };
    if (isLikelyHallucination(mapped, regions)) dropped++;
    else kept.push(mapped);
  }
  if (input.prompting && input.prompting.terms.length > 0) {
    const corrected = correctTerms(kept, input.prompting.terms);
    kept = corrected.segments;
    vocabulary = addTallies(vocabulary ?? EMPTY_TALLY, { ...EMPTY_TALLY, corrections: corrected.corrections });
  }
  let patterns: PatternTally | null = null;
  if (programs.length > 0) {
    const formatted = applyPatterns(kept, programs);
    kept = formatted.segments;
    patterns = formatted.tally;
  }
  const text = kept
    .map((s) => s.text)
    .join('')
    .trim();
  return { segments: kept, text, dropped, engineCalls: 1, vocabulary, patterns };
}

/** The windows' outcomes joined in time order, as if they had been decoded one after another. */
function assemble(outcomes: readonly WindowOutcome[], prompted: boolean, patternCount: number): RecognisedSpeech {
  let vocabulary: VocabularyTally | null = prompted ? EMPTY_TALLY : null;
  let patterns: PatternTally | null = patternCount > 0 ? emptyPatternTally(patternCount) : null;
  const segments: RecognisedSegment[] = [];
  const texts: string[] = [];
  let dropped = 0;
  let engineCalls = 0;
  for (const outcome of outcomes) {
    segments.push(...outcome.segments);
    if (outcome.text !== '') texts.push(outcome.text);
    dropped += outcome.dropped;
    engineCalls += outcome.engineCalls;
    if (outcome.vocabulary) vocabulary = addTallies(vocabulary ?? EMPTY_TALLY, outcome.vocabulary);
    if (patterns !== null && outcome.patterns) patterns = addPatternTallies(patterns, outcome.patterns);
  }
  return { text: texts.join(' '), segments, droppedSegments: dropped, engineCalls, vocabulary, patterns };
}

/**
 * The text told in order while windows finish in any order: the windows finished from the first on,
 * then the live text of the first one not finished. A later window's text waits until every window
 * before it is finished, so what is told only ever grows at its end.
 */
class OrderedWindowText {
  private readonly texts: Array<string | undefined>;
  private readonly liveText: string[];
  private frontier = 0;

  constructor(
    private readonly deltas: TextDeltas,
    windows: number,
  ) {
    this.texts = new Array<string | undefined>(windows);
    this.liveText = new Array<string>(windows).fill('');
  }

  live(window: number, text: string): void {
    this.liveText[window] = text;
    if (window === this.frontier) this.show();
  }

  finished(window: number, text: string): void {
    this.texts[window] = text;
    while (this.frontier < this.texts.length && this.texts[this.frontier] !== undefined) this.frontier++;
    this.show();
  }

  private show(): void {
    const parts = this.texts.slice(0, this.frontier) as string[];
    if (this.frontier < this.texts.length) parts.push(this.liveText[this.frontier]);
    this.deltas.show(parts);
  }
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
