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
import { BLEED_RATIO, channelLabel, type ChannelLevel, mergeChannelVoices, ownStretches, unionOf, voiceLabel } from './channel-voices.js';
import { addPatternTallies, type PatternTally } from './pattern-stage.js';
import { addTallies, type VocabularyTally } from './prompted-recognition.js';
import { NO_SPEECH_LANGUAGE, type TranscriptionOutcome } from './run-transcription.js';
import { type AttributedSegment, type AttributedWord, type SpeakerAttachment, type SpeakerSegment } from './speaker-attachment.js';
import { addAudits, type VocabularyAudit } from './vocabulary-audit.js';
import { wordsOfSegment } from './words.js';

export { BLEED_RATIO, channelLabel };

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
    speech: { regions, seconds: regions.reduce((sum, r) => sum + (r.end - r.start), 0), channels: outcomes.map((o) => o.speech.regions) },
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
  const level = levelOf(tracks, options.sampleRate);
  if (options.diarize) {
    const voices = mergeChannelVoices(
      outcomes.map((o) => o.speakers),
      { segmentSpeakers: segments.map((s) => s.speaker), wordTiming, level },
    );
    return { segments: [...segments], words, ...voices };
  }
  const turns = tracks.flatMap((track, channel) => channelTurns(track, channel, tracks.length, level));
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

/** The channels' levels read off their samples. */
function levelOf(tracks: readonly ChannelTrack[], sampleRate: number): ChannelLevel {
  return (channel, start, end) => rmsOver(tracks[channel]!.pcm, start, end, sampleRate);
}

/**
 * A channel's speaker turns, from the sound rather than the words: its speech regions (its own VAD),
 * less the frames where another channel is BLEED_RATIO times louder (that voice bleeding in).
 */
function channelTurns(track: ChannelTrack, channel: number, channels: number, level: ChannelLevel): Array<SpeakerSegment & { channel: number }> {
  return ownStretches(track.outcome.speech.regions, channel, channels, level).map(({ start, end }) => ({
    speaker: channelLabel(channel),
    channel,
    start,
    end,
  }));
}

function sumOf<T>(items: readonly T[], add: (a: T, b: T) => T, finish: (t: T) => T = (t) => t): T | null {
  return items.length === 0 ? null : finish(items.reduce(add));
}
