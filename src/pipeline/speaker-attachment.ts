// Attaches speaker turns to a transcript by the contract's rules (behavioural rules 5 and 6):
// - each word gets the voice whose turns overlap it most (the nearest turn when none does);
// - a segment is split where its words change voice, at token boundaries, so the wording is
//   unchanged: the pieces' texts concatenate to the segment's text byte for byte;
// - without word timing (Arabic, Hindi) segments stay transcript-only and ownership appears only in
//   speaker_segments;
// - max_speakers is a labelling ceiling: the voices with the most speech up to the ceiling are
//   labelled, the others' passages keep their times, are unlabelled and marked review_required.
// Labels are anonymous, session-local capital letters in order of first appearance (as OpenAI's),
// except the voices that match a known speaker (voice-matching.ts), which carry that speaker's name.
import type { SpeakerDiarization, SpeakerTurn } from '../engine/speaker-diarizer.js';
import type { RecognisedSegment } from './recognised-segment.js';
import { type KnownSpeaker, matchKnownSpeakers } from './voice-matching.js';
import { nonOverlapping, type Word, wordsFromSegments, wordsOfSegment } from './words.js';

/** What a segment's `speaker` says when nobody is attributed (diarization off, no word timing, over the ceiling). */
export const UNATTRIBUTED_SPEAKER = 'unknown';
/** The most voices a transcript labels (`max_speakers` is 1 to this); also the default. */
export const MAX_SPEAKERS = 4;
export const DEFAULT_MAX_SPEAKERS = MAX_SPEAKERS;
export const SPEAKER_CEILING_ACTIONS = ['none', 'unlabelled_review_required'] as const;
export type SpeakerCeilingAction = (typeof SPEAKER_CEILING_ACTIONS)[number];

export interface SpeakerTiming {
  word_timing: boolean;
  speaker_ceiling_reached: boolean;
  requested_max_speakers: number | null;
  detected_speaker_count: number;
  speaker_ceiling_action: SpeakerCeilingAction;
  /** With known speakers: each name, whether a voice matched it, and how strongly (voice-matching.ts). */
  known_speakers?: KnownSpeakerTiming[];
}

export interface KnownSpeakerTiming {
  name: string;
  matched: boolean;
  /** 0 to 1, 0.5 at the threshold: the matched voice's, or the nearest voice's when none matched; null when no voice had enough speech. */
  similarity: number | null;
}

export interface AttributedSegment extends RecognisedSegment {
  speaker: string;
  reviewRequired: boolean;
  /** Set where the tokens it is computed from are gone (a redacted segment); otherwise computed from them. */
  confidence?: number | null;
  /** Below the request's `confidence_threshold`. */
  lowConfidence?: true;
  /** `multichannel`: the channel it was heard on (channel-merge.ts). */
  channel?: number;
}

export interface AttributedWord extends Word {
  speaker?: string;
  review_required?: true;
  /** Below the request's `confidence_threshold`: a word for a reviewer to check. */
  low_confidence?: true;
  /** `multichannel`: the channel it was heard on (channel-merge.ts). */
  channel?: number;
}

export interface SpeakerSegment {
  speaker: string;
  start: number;
  end: number;
  review_required?: true;
}

export interface SpeakerAttachment {
  segments: AttributedSegment[];
  /** Present when word timing is available. */
  words: AttributedWord[] | null;
  speakers: Array<{ speaker: string }>;
  speakerSegments: SpeakerSegment[];
  timing: SpeakerTiming;
}

export interface AttachInput {
  segments: RecognisedSegment[];
  diarization: SpeakerDiarization;
  wordTiming: boolean;
  maxSpeakers: number;
  /** Names for the voices that match them; none: every label is a letter. */
  knownSpeakers?: readonly KnownSpeaker[];
}

/**
 * The words an answer shows: the attached ones (with their speakers), else the decoded segments'
 * when word timing was asked for and is available; null without word timing.
 */
export function answerWords(outcome: {
  wordTiming: boolean;
  segments: RecognisedSegment[];
  speakers: { words: AttributedWord[] | null };
}): AttributedWord[] | null {
  return outcome.wordTiming ? (outcome.speakers.words ?? wordsFromSegments(outcome.segments)) : null;
}

/** Segments without speakers: diarization was not requested. */
export function unattributed(segments: RecognisedSegment[], wordTiming: boolean): SpeakerAttachment {
  return {
    segments: segments.map((s) => ({ ...s, speaker: UNATTRIBUTED_SPEAKER, reviewRequired: false })),
    words: null,
    speakers: [],
    speakerSegments: [],
    timing: {
      word_timing: wordTiming,
      speaker_ceiling_reached: false,
      requested_max_speakers: null,
      detected_speaker_count: 0,
      speaker_ceiling_action: 'none',
    },
  };
}

/** The voices' labels under the ceiling and what follows from them alone (no transcript yet). */
interface VoiceLabelling {
  labelOf: (voice: number) => string | null;
  speakers: Array<{ speaker: string }>;
  speakerSegments: SpeakerSegment[];
  timing: SpeakerTiming;
}

function labelVoices(diarization: SpeakerDiarization, maxSpeakers: number, wordTiming: boolean, known: readonly KnownSpeaker[] = []): VoiceLabelling {
  const matches = known.length === 0 ? [] : matchKnownSpeakers(diarization.profiles, known);
  const names = new Map(matches.flatMap((m) => (m.voice === null ? [] : [[m.voice, m.name] as const])));
  const labels = voiceLabels(diarization.turns, maxSpeakers, names);
  const labelOf = (voice: number) => labels.get(voice) ?? null;
  const ceilingReached = diarization.voices > maxSpeakers;
  const timing: SpeakerTiming = {
    word_timing: wordTiming,
    speaker_ceiling_reached: ceilingReached,
    requested_max_speakers: maxSpeakers,
    detected_speaker_count: diarization.voices,
    speaker_ceiling_action: ceilingReached ? 'unlabelled_review_required' : 'none',
    ...(known.length > 0 ? { known_speakers: matches.map((m) => ({ name: m.name, matched: m.voice !== null, similarity: m.similarity })) } : {}),
  };
  const speakers = [...new Set(labels.values())].sort().map((speaker) => ({ speaker }));
  const speakerSegments = diarization.turns.map((t): SpeakerSegment => {
    const label = labelOf(t.speaker);
    return label ? { speaker: label, start: t.start, end: t.end } : { speaker: UNATTRIBUTED_SPEAKER, start: t.start, end: t.end, review_required: true };
  });
  return { labelOf, speakers, speakerSegments, timing };
}

/** A word's speaker fields: its label, or review_required when its voice is over the ceiling. */
function wordSpeaker(labelling: VoiceLabelling, voice: number): { speaker?: string; review_required?: true } {
  const label = labelling.labelOf(voice);
  return label ? { speaker: label } : voice >= 0 ? { review_required: true as const } : {};
}

export function attachSpeakers(input: AttachInput): SpeakerAttachment {
  const { diarization } = input;
  const labelling = labelVoices(diarization, input.maxSpeakers, input.wordTiming, input.knownSpeakers);
  const { labelOf, speakers, speakerSegments, timing } = labelling;
  if (!input.wordTiming) {
    return { ...unattributed(input.segments, false), speakers, speakerSegments, timing };
  }
  const segments: AttributedSegment[] = [];
  const words: AttributedWord[] = [];
  for (const segment of input.segments) {
    const segmentWords = wordsOfSegment(segment);
    if (segmentWords.length === 0) {
      const label = labelOf(voiceAt(diarization.turns, segment.start, segment.end));
      segments.push({ ...segment, speaker: label ?? UNATTRIBUTED_SPEAKER, reviewRequired: label === null && diarization.voices > 0 });
      continue;
    }
    const voices = segmentWords.map((w) => voiceAt(diarization.turns, w.start, w.end));
    segmentWords.forEach((w, i) => words.push({ word: w.word, start: w.start, end: w.end, confidence: w.confidence, ...wordSpeaker(labelling, voices[i]) }));
    segments.push(...splitAtVoiceChanges(segment, segmentWords, voices, labelOf));
  }
  return { segments, words: nonOverlapping(words), speakers, speakerSegments, timing };
}

/** A segment of a transcript already shaped (a long job's, assembled from its chunks): trimmed text, recording time. */
export interface ShapedSegment {
  id: string;
  text: string;
  start: number;
  end: number;
  speaker: string;
}

export interface ShapedAttachment<S extends ShapedSegment> {
  segments: Array<S & { review_required?: true }>;
  words: AttributedWord[] | null;
  speakers: Array<{ speaker: string }>;
  speakerSegments: SpeakerSegment[];
  timing: SpeakerTiming;
}

/**
 * attachSpeakers for a shaped transcript, whose tokens are gone: its words (in order, as the chunks
 * produced them) are found in their segments' text, and a segment is split at the end of the word
 * before a change of voice, so each piece's text is a slice of the segment's (the wording is
 * unchanged). Pieces keep their segment's other fields (its confidence among them); ids are renumbered.
 */
export function attachSpeakersToShaped<S extends ShapedSegment>(input: {
  segments: S[];
  words: Word[] | null;
  diarization: SpeakerDiarization;
  wordTiming: boolean;
  maxSpeakers: number;
  knownSpeakers?: readonly KnownSpeaker[];
}): ShapedAttachment<S> {
  const { diarization } = input;
  const labelling = labelVoices(diarization, input.maxSpeakers, input.wordTiming, input.knownSpeakers);
  const { labelOf, speakers, speakerSegments, timing } = labelling;
  if (!input.wordTiming || !input.words) {
    return { segments: input.segments.map((s) => ({ ...s, speaker: UNATTRIBUTED_SPEAKER })), words: null, speakers, speakerSegments, timing };
  }
  const pieces: Array<S & { review_required?: true }> = [];
  const words: AttributedWord[] = [];
  let next = 0;
  for (const segment of input.segments) {
    const placed = placeWords(segment.text, input.words, next);
    next += placed.length;
    const labelled = (piece: S, voice: number) => {
      const label = labelOf(voice);
      return { ...piece, speaker: label ?? UNATTRIBUTED_SPEAKER, ...(label === null && voice >= 0 ? { review_required: true as const } : {}) };
    };
    if (placed.length === 0) {
      pieces.push(labelled(segment, voiceAt(diarization.turns, segment.start, segment.end)));
      continue;
    }
    const voices = placed.map((p) => voiceAt(diarization.turns, p.word.start, p.word.end));
    placed.forEach((p, i) =>
      words.push({
        word: p.word.word,
        start: p.word.start,
        end: p.word.end,
        ...(p.word.confidence === undefined ? {} : { confidence: p.word.confidence }),
        ...((p.word as AttributedWord).low_confidence ? { low_confidence: true as const } : {}),
        ...wordSpeaker(labelling, voices[i]),
      }),
    );
    for (const run of voiceRuns(voices)) {
      const first = run.from === 0;
      const last = run.to === placed.length;
      const from = first ? 0 : placed[run.from - 1].end;
      const to = last ? segment.text.length : placed[run.to - 1].end;
      pieces.push(
        labelled(
          {
            ...segment,
            text: segment.text.slice(from, to).trim(),
            start: first ? segment.start : placed[run.from].word.start,
            end: last ? segment.end : placed[run.to].word.start,
          },
          run.voice,
        ),
      );
    }
  }
  return { segments: pieces.map((s, i) => ({ ...s, id: `seg_${i}` })), words: nonOverlapping(words), speakers, speakerSegments, timing };
}

/**
 * The words at `from` onwards that spell `text` in order, each with the offset where it ends; stops at
 * the first word not found next in the text (only whitespace may separate words).
 */
function placeWords(text: string, words: Word[], from: number): Array<{ word: Word; end: number }> {
  const placed: Array<{ word: Word; end: number }> = [];
  let cursor = 0;
  for (let i = from; i < words.length; i++) {
    const at = text.indexOf(words[i].word, cursor);
    if (at < 0 || text.slice(cursor, at).trim() !== '') break;
    cursor = at + words[i].word.length;
    placed.push({ word: words[i], end: cursor });
  }
  return placed;
}

/** Runs of one voice over consecutive words: [from, to) word indices. */
function voiceRuns(voices: number[]): Array<{ from: number; to: number; voice: number }> {
  const runs: Array<{ from: number; to: number; voice: number }> = [];
  voices.forEach((voice, i) => {
    const last = runs[runs.length - 1];
    if (last && last.voice === voice) last.to = i + 1;
    else runs.push({ from: i, to: i + 1, voice });
  });
  return runs;
}

/**
 * Labels for the voices kept under the ceiling (named voices first, then most speech first): a named
 * voice's name, the others lettered from A in order of first appearance.
 */
function voiceLabels(turns: SpeakerTurn[], maxSpeakers: number, names: ReadonlyMap<number, string>): Map<number, string> {
  const seconds = new Map<number, number>();
  const firstSeen: number[] = [];
  for (const t of turns) {
    if (!seconds.has(t.speaker)) firstSeen.push(t.speaker);
    seconds.set(t.speaker, (seconds.get(t.speaker) ?? 0) + (t.end - t.start));
  }
  const named = (voice: number) => (names.has(voice) ? 1 : 0);
  const order = [...seconds.keys()].sort((a, b) => named(b) - named(a) || seconds.get(b)! - seconds.get(a)! || a - b);
  const kept = new Set(order.slice(0, maxSpeakers));
  const labels = new Map<number, string>();
  let letters = 0;
  for (const voice of firstSeen) {
    if (kept.has(voice)) labels.set(voice, names.get(voice) ?? String.fromCharCode(65 + letters++));
  }
  return labels;
}

/** The voice whose turns overlap [start, end] most; the nearest turn's when none overlaps; -1 without turns. */
export function voiceAt(turns: SpeakerTurn[], start: number, end: number): number {
  const overlap = new Map<number, number>();
  let nearest = -1;
  let nearestGap = Infinity;
  for (const t of turns) {
    const o = Math.min(end, t.end) - Math.max(start, t.start);
    if (o > 0) overlap.set(t.speaker, (overlap.get(t.speaker) ?? 0) + o);
    const gap = Math.max(t.start - end, start - t.end, 0);
    if (gap < nearestGap) {
      nearestGap = gap;
      nearest = t.speaker;
    }
  }
  let best = -1;
  let bestOverlap = 0;
  for (const [voice, o] of overlap) {
    if (o > bestOverlap || (o === bestOverlap && voice < best)) {
      best = voice;
      bestOverlap = o;
    }
  }
  return best >= 0 ? best : nearest;
}

/** Pieces of one segment, one per run of words of one voice; their texts concatenate to the segment's. */
function splitAtVoiceChanges(
  segment: RecognisedSegment,
  words: ReturnType<typeof wordsOfSegment>,
  voices: number[],
  labelOf: (voice: number) => string | null,
): AttributedSegment[] {
  const runs = voiceRuns(voices);
  return runs.map((run, k) => {
    // Token ranges: the first piece takes everything before its first word, the last everything after.
    const tokenFrom = k === 0 ? 0 : words[run.from].tokenFrom;
    const tokenTo = k === runs.length - 1 ? segment.tokens.length : words[runs[k + 1].from].tokenFrom;
    const tokens = segment.tokens.slice(tokenFrom, tokenTo);
    const label = labelOf(run.voice);
    return {
      ...segment,
      start: k === 0 ? segment.start : words[run.from].start,
      end: k === runs.length - 1 ? segment.end : words[runs[k + 1].from].start,
      text: tokens.map((t) => t.text).join(''),
      tokens,
      speaker: label ?? UNATTRIBUTED_SPEAKER,
      reviewRequired: label === null && run.voice >= 0,
    };
  });
}
