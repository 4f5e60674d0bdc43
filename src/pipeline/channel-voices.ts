// The speakers of a multichannel recording (docs/API.md "Multichannel"), shared by the inline merge
// (channel-merge.ts) and a job's decoration (jobs/channel-decoration.ts), which diarizes each channel
// after the text: the labels (`channel_0`, or a voice within it, `channel_0_A`), and each channel's
// turns read off the sound, less the stretches where another channel is BLEED_RATIO times louder (the
// other voice bleeding into this microphone). How loud a channel is over a span is asked of a
// `ChannelLevel`: an answer reads its samples, a job the levels it kept while decoding its windows.
import type { SpeakerSegment, SpeakerTiming } from './speaker-attachment.js';
import { UNATTRIBUTED_SPEAKER } from './speaker-attachment.js';
import type { SpeechRegion } from './speech-regions.js';

/**
 * A word is the other channel's when that channel is this much louder over its span (6 dB): a voice
 * on its own microphone against its bleed into the other (10-20 % of its level, 14-20 dB down), while
 * two voices talking over each other stay within it.
 */
export const BLEED_RATIO = 2;

/** The RMS level of `channel` over [start, end] seconds. */
export type ChannelLevel = (channel: number, start: number, end: number) => number;

/** A channel's speaker label without diarize, and the prefix of its voices' labels with it (`channel_0_A`). */
export function channelLabel(channel: number): string {
  return `channel_${channel}`;
}

/** A voice's label within its channel, kept apart from the other channel's same letter; `unknown` stays. */
export function voiceLabel(speaker: string, channel: number): string {
  return speaker === UNATTRIBUTED_SPEAKER ? speaker : `${channelLabel(channel)}_${speaker}`;
}

/** What one channel's own diarization attached: its voices, turns and timing, labelled within the channel. */
export interface ChannelVoices {
  speakers: ReadonlyArray<{ speaker: string }>;
  speakerSegments: readonly SpeakerSegment[];
  timing: SpeakerTiming;
}

/**
 * The channels' voices as one answer's: labelled by channel, each turn less the other voices' bleed, a
 * voice dropped that is left with neither a turn nor one of `segmentSpeakers` (the merged segments'
 * labels: the diarizer heard only the other channel's bleed), and the timing added up.
 */
export function mergeChannelVoices(
  channels: readonly ChannelVoices[],
  options: { segmentSpeakers: readonly string[]; wordTiming: boolean; level: ChannelLevel },
): { speakers: Array<{ speaker: string }>; speakerSegments: SpeakerSegment[]; timing: SpeakerTiming } {
  const relabel = <T extends { speaker: string }>(items: readonly T[], channel: number) =>
    items.map((i) => ({ ...i, speaker: voiceLabel(i.speaker, channel) }));
  // The diarizer hears the other voice's bleed as a voice of this channel: its turns keep their own stretches only.
  const turns = channels
    .flatMap((c, channel) =>
      relabel(c.speakerSegments, channel).flatMap((turn) =>
        ownStretches([turn], channel, channels.length, options.level).map(({ start, end }) => ({ ...turn, start, end })),
      ),
    )
    .sort((a, b) => a.start - b.start);
  const heard = new Set([...turns.map((t) => t.speaker), ...options.segmentSpeakers]);
  const labelled = channels.flatMap((c, channel) => relabel(c.speakers, channel));
  const speakers = labelled.filter((s) => heard.has(s.speaker));
  const timings = channels.map((c) => c.timing);
  const ceilingReached = timings.some((t) => t.speaker_ceiling_reached);
  return {
    speakers,
    speakerSegments: turns,
    timing: {
      ...timings[0]!,
      word_timing: options.wordTiming,
      speaker_ceiling_reached: ceilingReached,
      // Less the voices that were only the other channel's bleed.
      detected_speaker_count: timings.reduce((sum, t) => sum + t.detected_speaker_count, 0) - (labelled.length - speakers.length),
      speaker_ceiling_action: ceilingReached ? 'unlabelled_review_required' : 'none',
    },
  };
}

/** The frames the channels' levels are compared over. */
const TURN_FRAME_SECONDS = 0.05;
/** Pauses shorter than this stay inside a turn; bits of turn shorter than this are dropped. */
const TURN_GAP_SECONDS = 0.3;
const TURN_MIN_SECONDS = 0.2;

/**
 * The stretches of `spans` (times on `channel`, one of `channels`) where its own voice speaks: less the
 * frames where another channel is BLEED_RATIO times louder, pauses under TURN_GAP_SECONDS closed, bits
 * under TURN_MIN_SECONDS dropped.
 */
export function ownStretches(spans: readonly SpeechRegion[], channel: number, channels: number, level: ChannelLevel): SpeechRegion[] {
  const own: SpeechRegion[] = [];
  for (const span of spans) {
    for (let start = span.start; start < span.end; start += TURN_FRAME_SECONDS) {
      const end = Math.min(span.end, start + TURN_FRAME_SECONDS);
      const mine = level(channel, start, end);
      let drowned = false;
      for (let other = 0; other < channels && !drowned; other++) drowned = other !== channel && level(other, start, end) > BLEED_RATIO * mine;
      if (!drowned) own.push({ start, end });
    }
  }
  const joined = unionOf(own.map((r) => ({ start: r.start, end: r.end + TURN_GAP_SECONDS }))).map((r) => ({ start: r.start, end: r.end - TURN_GAP_SECONDS }));
  return joined.filter((r) => r.end - r.start >= TURN_MIN_SECONDS).map(({ start, end }) => ({ start: round3(start), end: round3(end) }));
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/** The spans covered by any of `spans`, in order, none overlapping. */
export function unionOf(spans: readonly SpeechRegion[]): SpeechRegion[] {
  const out: SpeechRegion[] = [];
  for (const { start, end } of [...spans].sort((a, b) => a.start - b.start)) {
    const last = out.at(-1);
    if (last && start <= last.end) last.end = Math.max(last.end, end);
    else out.push({ start, end });
  }
  return out;
}
