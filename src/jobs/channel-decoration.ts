// The decoration of a diarized multichannel job (job-decoration.ts; docs/API.md "Multichannel"): as an
// inline answer does, each channel is diarized alone, over its own speech regions (carried from its
// chunks), and its voices are attached to its own segments and words only; the labels, the turns less
// the other voice's bleed and the timing are channel-voices.ts's, as the inline merge's are. A job has
// no whole PCM to read the channels' levels from: each channel's pass keeps its level per 10 ms while
// it decodes its windows (two hours are 720,000 frames a channel).
import { noSpeakers } from '../engine/speaker-diarizer.js';
import { type ChannelLevel, mergeChannelVoices, voiceLabel } from '../pipeline/channel-voices.js';
import type { PipelineStages } from '../pipeline/pipeline-engine.js';
import { attachSpeakersToShaped, type ShapedAttachment } from '../pipeline/speaker-attachment.js';
import { type DecorationAudio, speakerFeatures } from './decoration-features.js';
import type { TimedSegment, TimedWord } from './job-transcript.js';

/** The frame a channel's level is kept over. */
const LEVEL_FRAME_SECONDS = 0.01;

/** A channel's loudness over a recording, filled window by window: the sum of squares per frame. */
export class LevelTrack {
  private readonly squares: Float64Array;
  private readonly counts: Uint16Array;

  constructor(
    seconds: number,
    private readonly sampleRate: number,
  ) {
    const frames = Math.ceil(seconds / LEVEL_FRAME_SECONDS) + 1;
    this.squares = new Float64Array(frames);
    this.counts = new Uint16Array(frames);
  }

  /** The samples of a window starting `startSeconds` into the recording (a frame decoded twice is set twice alike). */
  place(startSeconds: number, pcm: Float32Array): void {
    const perFrame = Math.round(this.sampleRate * LEVEL_FRAME_SECONDS);
    const first = Math.round(startSeconds / LEVEL_FRAME_SECONDS);
    for (let offset = 0, frame = first; offset < pcm.length && frame < this.squares.length; offset += perFrame, frame++) {
      let sum = 0;
      const end = Math.min(pcm.length, offset + perFrame);
      for (let i = offset; i < end; i++) sum += pcm[i]! * pcm[i]!;
      this.squares[frame] = sum;
      this.counts[frame] = end - offset;
    }
  }

  /** The RMS over the frames [start, end] seconds touch; 0 where nothing was decoded. */
  rmsOver(start: number, end: number): number {
    const from = Math.max(0, Math.min(this.squares.length - 1, Math.floor(start / LEVEL_FRAME_SECONDS + 1e-9)));
    const to = Math.max(from + 1, Math.min(this.squares.length, Math.ceil(end / LEVEL_FRAME_SECONDS - 1e-9)));
    let sum = 0;
    let count = 0;
    for (let f = from; f < to; f++) {
      sum += this.squares[f]!;
      count += this.counts[f]!;
    }
    return count === 0 ? 0 : Math.sqrt(sum / count);
  }
}

export interface ChannelDecorationInput {
  segments: TimedSegment[];
  words: TimedWord[] | null;
  /** Each channel's speech regions, [start, end] seconds into the recording. */
  channelSpeech: ReadonlyArray<ReadonlyArray<readonly [number, number]>>;
  wordTiming: boolean;
  maxSpeakers: number;
  minSpeakers: number;
  sampleRate: number;
}

/** The job's speakers, each channel diarized alone and attached to its own segments and words. */
export async function channelSpeakers(
  input: ChannelDecorationInput,
  stages: Pick<PipelineStages, 'speakerFeatures' | 'diarize'>,
  audio: DecorationAudio,
): Promise<ShapedAttachment<TimedSegment>> {
  const regions = input.channelSpeech.map((list) => list.map(([start, end]) => ({ start, end })));
  const levels = regions.map(() => new LevelTrack(audio.seconds, input.sampleRate));
  const attachments: Array<ShapedAttachment<TimedSegment>> = [];
  for (let channel = 0; channel < regions.length; channel++) {
    const own = regions[channel]!;
    // Every window with speech on any channel is decoded: the levels judge the other channels' turns there too.
    const features = await speakerFeatures(audio, own, stages, {
      channel,
      windowRegions: regions.flat(),
      onWindow: (start, pcm) => levels[channel]!.place(start, pcm),
    });
    const diarization = own.length === 0 ? noSpeakers() : await stages.diarize(features, own, audio.signal, { minVoices: input.minSpeakers });
    attachments.push(
      attachSpeakersToShaped({
        segments: input.segments.filter((s) => s.channel === channel),
        words: input.words?.filter((w) => w.channel === channel) ?? null,
        diarization,
        wordTiming: input.wordTiming,
        maxSpeakers: input.maxSpeakers,
        // Known speakers are refused with multichannel, on jobs as inline (transcription-request.ts).
      }),
    );
  }
  return mergeChannelAttachments(attachments, { wordTiming: input.wordTiming, level: (channel, start, end) => levels[channel]!.rmsOver(start, end) });
}

/**
 * Each channel's attachment (by index) as the job's: segments and words labelled within their channel
 * (`channel_0_A`) and put in time order, the voices by channel-voices.ts.
 */
export function mergeChannelAttachments(
  attachments: ReadonlyArray<ShapedAttachment<TimedSegment>>,
  options: { wordTiming: boolean; level: ChannelLevel },
): ShapedAttachment<TimedSegment> {
  const segments = attachments
    .flatMap((a, channel) => a.segments.map((s) => ({ ...s, channel, speaker: voiceLabel(s.speaker, channel) })))
    .sort((a, b) => a.start - b.start || a.channel - b.channel)
    .map((s, i) => ({ ...s, id: `seg_${i}` }));
  const attached = attachments.every((a) => a.words !== null);
  const words = attached
    ? attachments
        .flatMap((a, channel) => a.words!.map((w) => ({ ...w, channel, ...(w.speaker === undefined ? {} : { speaker: voiceLabel(w.speaker, channel) }) })))
        .sort((a, b) => a.start - b.start || a.channel - b.channel)
    : null;
  const voices = mergeChannelVoices(attachments, { segmentSpeakers: segments.map((s) => s.speaker), wordTiming: options.wordTiming, level: options.level });
  return { segments, words, ...voices };
}
