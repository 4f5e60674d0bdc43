// The tracks of a multichannel recording (channel-tracks.ts) as one transcript: segments in time order,
// each segment and word tagged with its channel, speakers named by channel (or by voice within it with
// diarize), tallies and audits added up. A word that bleeds into another channel's microphone is decoded
// there too: where two channels hold the same word at the same time, it is kept on the channel where it
// is louder (RMS over the word's span) and taken out of the other's segment, token by token, so what is
// left of that segment is still what its tokens spell. A copy decoded as other words is known by its
// level: another channel that heard speech then was BLEED_RATIO times louder over its span. A channel's
// speaker turns (`speaker_segments`) are read off the sound the same way: its speech (or with diarize its
// voices' turns), less the bleed.
import { USAGE_FAMILY_MIXED } from '../store/usage-record.js';
import { addPatternTallies, type PatternTally } from './pattern-stage.js';
import { addTallies, type VocabularyTally } from './prompted-recognition.js';
import { NO_SPEECH_LANGUAGE, type TranscriptionOutcome } from './run-transcription.js';
import { type AttributedSegment, type AttributedWord, type SpeakerAttachment, type SpeakerSegment, UNATTRIBUTED_SPEAKER } from './speaker-attachment.js';
import type { SpeechRegion } from './speech-regions.js';
import { addAudits, type VocabularyAudit } from './vocabulary-audit.js';
import { wordsOfSegment } from './words.js';

/** A channel's speaker label without diarize, and the prefix of its voices' labels with it (`channel_0_A`). */
export function channelLabel(channel: number): string {
  return `channel_${channel}`;
}

export interface ChannelTrack {
  /** The channel's own samples: the loudness judge of a word heard on two channels. */
  pcm: Float32Array;
  outcome: TranscriptionOutcome;
}

export interface MergeOptions {
  sampleRate: number;
  /** Speakers are voices within each channel; otherwise each channel is one speaker. */
  diarize: boolean;
  /** The answer carries words (diarize or word timestamps asked). */
  words: boolean;
}

/**
 * Two words are one heard twice when their texts match and their spans meet within this: whisper's word
 * times on two decodes of the same sound differ by tens of milliseconds.
 */
export const BLEED_TOLERANCE_SECONDS = 0.15;

interface TrackWord {
  channel: number;
  segment: number;
  key: string;
  start: number;
  end: number;
  tokenFrom: number;
  tokenTo: number;
  rms: number;
  /** The loudest other channel's RMS over this word's span. */
  loudestElsewhere?: number;
}

/**
 * A word is the other channel's when that channel is this much louder over its span (6 dB): a voice
 * on its own microphone against its bleed into the other (10-20 % of its level, 14-20 dB down), while
 * two voices talking over each other stay within it.
 */
export const BLEED_RATIO = 2;

export function mergeChannels(tracks: readonly ChannelTrack[], options: MergeOptions): TranscriptionOutcome {
  const labelled = tracks.map((track, channel) => labelSegments(track.outcome.speakers.segments, channel, options.diarize));
  const words = tracks.flatMap((track, channel) =>
    trackWords(labelled[channel]!, track.pcm, channel, options.sampleRate).map((w) => ({
      ...w,
      loudestElsewhere: Math.max(0, ...tracks.filter((_, c) => c !== channel).map((other) => rmsOver(other.pcm, w.start, w.end, options.sampleRate))),
    })),
  );
  const dropped = bleedCopies(words);
  const segments = labelled
    .flatMap((segments, channel) => segments.map((segment, index) => withoutTokens(segment, dropped.get(`${channel}:${index}`))))
    .filter((segment): segment is AttributedSegment => segment !== null)
    .sort((a, b) => a.start - b.start || a.channel! - b.channel!);
  const outcomes = tracks.map((t) => t.outcome);
  const spoken = outcomes.filter((o) => o.families.length > 0);
  const languages = [...new Set(spoken.map((o) => o.language))];
  const language = languages.length === 0 ? NO_SPEECH_LANGUAGE : languages.length === 1 ? languages[0]! : USAGE_FAMILY_MIXED;
  const lead = spoken[0] ?? outcomes[0]!;
  const wordTiming = options.words && outcomes.every((o) => o.wordTiming);
  const regions = unionOf(outcomes.flatMap((o) => o.speech.regions));
  return {
    text: segments.map((s) => s.text.trim()).join(' '),
    segments,
    durationSeconds: Math.max(...outcomes.map((o) => o.durationSeconds)),
    language,
    families: [...new Set(outcomes.flatMap((o) => o.families))],
    languageSource: lead.languageSource,
    detection: lead.detection,
    languageEvidence: outcomes.find((o) => o.languageEvidence)?.languageEvidence ?? null,
    vocabulary: sumOf(
      outcomes.map((o) => o.vocabulary).filter((v): v is VocabularyAudit => v !== null),
      addAudits,
      (v) => ({ ...v, language }),
    ),
    vocabularyTally: sumOf(
      outcomes.map((o) => o.vocabularyTally).filter((v): v is VocabularyTally => v !== null),
      addTallies,
    ),
    patterns: sumOf(
      outcomes.map((o) => o.patterns).filter((v): v is PatternTally => v !== null),
      addPatternTallies,
    ),
    wordTiming,
    speakers: attachment(segments, tracks, options, wordTiming),
    speech: { regions, seconds: regions.reduce((sum, r) => sum + (r.end - r.start), 0) },
    asrMs: outcomes.reduce((sum, o) => sum + o.asrMs, 0),
    diarizationMs: outcomes.reduce((sum, o) => sum + o.diarizationMs, 0),
    temperature: lead.temperature,
    task: lead.task,
  };
}

/** A channel's segments with their channel, and the speaker the merged answer gives them. */
function labelSegments(segments: readonly AttributedSegment[], channel: number, diarize: boolean): AttributedSegment[] {
  return segments.map((s) => ({ ...s, channel, speaker: diarize ? voiceLabel(s.speaker, channel) : channelLabel(channel) }));
}

/** A voice's label within its channel, kept apart from the other channel's same letter; `unknown` stays. */
function voiceLabel(speaker: string, channel: number): string {
  return speaker === UNATTRIBUTED_SPEAKER ? speaker : `${channelLabel(channel)}_${speaker}`;
}

function trackWords(segments: readonly AttributedSegment[], pcm: Float32Array, channel: number, sampleRate: number): TrackWord[] {
  return segments.flatMap((segment, index) =>
    wordsOfSegment(segment).map((w) => ({
      channel,
      segment: index,
      key: comparable(w.word),
      start: w.start,
      end: w.end,
      tokenFrom: w.tokenFrom,
      tokenTo: w.tokenTo,
      rms: rmsOver(pcm, w.start, w.end, sampleRate),
    })),
  );
}

/** A word as two decodes of the same sound would both spell it: letters and digits, lower case. */
function comparable(word: string): string {
  return word.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');
}

/** The root mean square of the samples over [start, end] seconds (a zero-length span reads its sample). */
export function rmsOver(pcm: Float32Array, start: number, end: number, sampleRate: number): number {
  const from = Math.max(0, Math.min(pcm.length - 1, Math.floor(start * sampleRate)));
  const to = Math.max(from + 1, Math.min(pcm.length, Math.ceil(end * sampleRate)));
  let sum = 0;
  for (let i = from; i < to; i++) sum += pcm[i]! * pcm[i]!;
  return Math.sqrt(sum / Math.max(1, to - from));
}

/**
 * The words to take out, as token ranges by segment (`channel:segment`): each word that another
 * channel holds at the same time, louder there (on a tie the lower channel keeps it).
 */
function bleedCopies(words: readonly TrackWord[]): Map<string, Array<[number, number]>> {
  const byKey = new Map<string, TrackWord[]>();
  for (const w of words) if (w.key !== '') byKey.set(w.key, [...(byKey.get(w.key) ?? []), w]);
  const dropped = new Map<string, Array<[number, number]>>();
  for (const w of words) {
    const meets = (v: TrackWord) => v.channel !== w.channel && v.start <= w.end + BLEED_TOLERANCE_SECONDS && w.start <= v.end + BLEED_TOLERANCE_SECONDS;
    const sameWordLouder = (byKey.get(w.key) ?? []).some((v) => meets(v) && (v.rms > w.rms || (v.rms === w.rms && v.channel < w.channel)));
    // Decoded apart, the quiet copy may be spelt otherwise: far louder there, over its own span, it is still the other's.
    const drowned = words.some((v) => meets(v) && (w.loudestElsewhere ?? 0) > BLEED_RATIO * w.rms);
    if (!sameWordLouder && !drowned) continue;
    const id = `${w.channel}:${w.segment}`;
    dropped.set(id, [...(dropped.get(id) ?? []), [w.tokenFrom, w.tokenTo]]);
  }
  return dropped;
}

/** The segment without the tokens in `ranges` (its text spelt again from what is left); null when nothing is left. */
function withoutTokens(segment: AttributedSegment, ranges: Array<[number, number]> | undefined): AttributedSegment | null {
  if (!ranges) return segment;
  const tokens = segment.tokens.filter((_, i) => !ranges.some(([from, to]) => i >= from && i < to));
  const text = tokens
    .filter((t) => !t.special)
    .map((t) => t.text)
    .join('');
  if (text.trim() === '') return null;
  return { ...segment, tokens, text };
}

function attachment(segments: readonly AttributedSegment[], tracks: readonly ChannelTrack[], options: MergeOptions, wordTiming: boolean): SpeakerAttachment {
  const outcomes = tracks.map((t) => t.outcome);
  const words: AttributedWord[] | null = wordTiming
    ? segments.flatMap((s) =>
        wordsOfSegment(s).map(({ word, start, end, confidence }) => ({
          word,
          start,
          end,
          confidence,
          speaker: s.speaker,
          channel: s.channel!,
          ...(s.reviewRequired ? { review_required: true as const } : {}),
        })),
      )
    : null;
  const timings = outcomes.map((o) => o.speakers.timing);
  if (options.diarize) {
    const relabel = <T extends { speaker: string }>(items: readonly T[], channel: number) =>
      items.map((i) => ({ ...i, speaker: voiceLabel(i.speaker, channel) }));
    // The diarizer hears the other voice's bleed as a voice of this channel: its turns keep their own stretches only.
    const turns = outcomes
      .flatMap((o, channel) =>
        relabel(o.speakers.speakerSegments, channel).flatMap((turn) =>
          ownStretches([turn], tracks, channel, options.sampleRate).map(({ start, end }) => ({ ...turn, start, end })),
        ),
      )
      .sort((a, b) => a.start - b.start);
    const heard = new Set([...turns.map((t) => t.speaker), ...segments.map((s) => s.speaker)]);
    const labelled = outcomes.flatMap((o, channel) => relabel(o.speakers.speakers, channel));
    const speakers = labelled.filter((s) => heard.has(s.speaker));
    return {
      segments: [...segments],
      words,
      speakers,
      speakerSegments: turns,
      timing: {
        ...timings[0]!,
        word_timing: wordTiming,
        speaker_ceiling_reached: timings.some((t) => t.speaker_ceiling_reached),
        // Less the voices that were only the other channel's bleed.
        detected_speaker_count: timings.reduce((sum, t) => sum + t.detected_speaker_count, 0) - (labelled.length - speakers.length),
        speaker_ceiling_action: timings.some((t) => t.speaker_ceiling_reached) ? 'unlabelled_review_required' : 'none',
      },
    };
  }
  const turns = tracks.flatMap((track, channel) => channelTurns(track, tracks, channel, options.sampleRate));
  const channels = [...new Set([...segments.map((s) => s.channel!), ...turns.map((t) => t.channel)])].sort((a, b) => a - b);
  return {
    segments: [...segments],
    words,
    speakers: channels.map((c) => ({ speaker: channelLabel(c) })),
    speakerSegments: turns.map(({ speaker, start, end }) => ({ speaker, start, end })).sort((a, b) => a.start - b.start),
    timing: {
      word_timing: wordTiming,
      speaker_ceiling_reached: false,
      requested_max_speakers: null,
      detected_speaker_count: channels.length,
      speaker_ceiling_action: 'none',
    },
  };
}

/** The frames the channels' levels are compared over. */
const TURN_FRAME_SECONDS = 0.05;
/** Pauses shorter than this stay inside a turn; bits of turn shorter than this are dropped. */
const TURN_GAP_SECONDS = 0.3;
const TURN_MIN_SECONDS = 0.2;

/**
 * A channel's speaker turns, from the sound rather than the words: its speech regions (its own VAD),
 * less the frames where another channel is BLEED_RATIO times louder (that voice bleeding in).
 */
function channelTurns(track: ChannelTrack, tracks: readonly ChannelTrack[], channel: number, sampleRate: number): Array<SpeakerSegment & { channel: number }> {
  return ownStretches(track.outcome.speech.regions, tracks, channel, sampleRate).map(({ start, end }) => ({
    speaker: channelLabel(channel),
    channel,
    start,
    end,
  }));
}

/**
 * The stretches of `spans` (times on `channel`) where its own voice speaks: less the frames where another
 * channel is BLEED_RATIO times louder, pauses under TURN_GAP_SECONDS closed, bits under TURN_MIN_SECONDS dropped.
 */
function ownStretches(spans: readonly SpeechRegion[], tracks: readonly ChannelTrack[], channel: number, sampleRate: number): SpeechRegion[] {
  const pcm = tracks[channel]!.pcm;
  const own: SpeechRegion[] = [];
  for (const span of spans) {
    for (let start = span.start; start < span.end; start += TURN_FRAME_SECONDS) {
      const end = Math.min(span.end, start + TURN_FRAME_SECONDS);
      const level = rmsOver(pcm, start, end, sampleRate);
      const drowned = tracks.some((other, c) => c !== channel && rmsOver(other.pcm, start, end, sampleRate) > BLEED_RATIO * level);
      if (!drowned) own.push({ start, end });
    }
  }
  const joined = unionOf(own.map((r) => ({ start: r.start, end: r.end + TURN_GAP_SECONDS }))).map((r) => ({ start: r.start, end: r.end - TURN_GAP_SECONDS }));
  return joined.filter((r) => r.end - r.start >= TURN_MIN_SECONDS).map(({ start, end }) => ({ start: round3(start), end: round3(end) }));
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/** The spans covered by any of `spans`, in order, none overlapping. */
function unionOf(spans: readonly SpeechRegion[]): SpeechRegion[] {
  const out: SpeechRegion[] = [];
  for (const { start, end } of [...spans].sort((a, b) => a.start - b.start)) {
    const last = out.at(-1);
    if (last && start <= last.end) last.end = Math.max(last.end, end);
    else out.push({ start, end });
  }
  return out;
}

function sumOf<T>(items: readonly T[], add: (a: T, b: T) => T, finish: (t: T) => T = (t) => t): T | null {
  return items.length === 0 ? null : finish(items.reduce(add));
}
