// A decoration's speaker features (job-decoration.ts): the recording decoded window by window (its
// PCM whole would be too big to hold: two hours are 460 MB, their features about 55 MB), each
// window's features computed over the speech regions its chunks found and placed on one canvas, so
// the voices are diarized over the whole recording at once.
import { type AudioContainer, type AudioSource, decodeAudioWindow } from '../audio/index.js';
import { SAMPLE_RATE } from '../domain/audio-format.js';
import { FEATURE_FRAMES_PER_SECOND, SpeakerFeatureCanvas, type SpeakerFeatures } from '../engine/speaker-diarizer.js';
import type { PipelineStages } from '../pipeline/pipeline-engine.js';
import type { SpeechRegion } from '../pipeline/speech-regions.js';

/** Audio decoded at once for speaker features. */
const FEATURE_WINDOW_SECONDS = 300;
/** A window reaches this far into the next one, so that its last frame (25 ms long) is whole. */
const FRAME_OVERHANG_SECONDS = 0.02;

/** The job's recording, as a decoration reads it. */
export interface DecorationAudio {
  /** A decodable source (a file, or a presigned URL): asked for again per window, so a URL never runs out mid-decoration. */
  source: () => Promise<AudioSource>;
  container: AudioContainer;
  /** Where the text ended. */
  seconds: number;
  timeoutMs: number;
  signal: AbortSignal;
}

export interface FeatureOptions {
  /** Decode this channel alone (a multichannel job); absent: the mix. */
  channel?: number;
  /** Also decode the windows that hold any of these (the other channels' speech), without features where `regions` has none. */
  windowRegions?: readonly SpeechRegion[];
  /** Shown each decoded window: its start (seconds) and samples. */
  onWindow?: (startSeconds: number, pcm: Float32Array) => void;
}

/** The recording's speaker features over `regions`, window by window; windows without speech are not decoded. */
export async function speakerFeatures(
  audio: DecorationAudio,
  regions: readonly SpeechRegion[],
  stages: Pick<PipelineStages, 'speakerFeatures'>,
  options: FeatureOptions = {},
): Promise<SpeakerFeatures> {
  const canvas = new SpeakerFeatureCanvas(audio.seconds);
  const within = (list: readonly SpeechRegion[], start: number, end: number) =>
    list.filter((r) => r.end > start && r.start < end).map((r) => ({ start: Math.max(0, r.start - start), end: Math.min(end, r.end) - start }));
  for (let start = 0; start < audio.seconds; start += FEATURE_WINDOW_SECONDS) {
    const end = start + FEATURE_WINDOW_SECONDS + FRAME_OVERHANG_SECONDS;
    const local = within(regions, start, end);
    if (local.length === 0 && within(options.windowRegions ?? [], start, end).length === 0) continue;
    const pcm = await decodeAudioWindow(await audio.source(), {
      startSeconds: start,
      seconds: end - start,
      container: audio.container,
      timeoutMs: audio.timeoutMs,
      signal: audio.signal,
      ...(options.channel === undefined ? {} : { channel: options.channel }),
    });
    if (pcm.length === 0) break;
    options.onWindow?.(start, pcm);
    const inside = local.filter((r) => r.start < pcm.length / SAMPLE_RATE);
    if (inside.length === 0) continue;
    const features = await stages.speakerFeatures(pcm, inside, audio.signal);
    canvas.place(start, features, FEATURE_WINDOW_SECONDS * FEATURE_FRAMES_PER_SECOND);
  }
  return canvas.features;
}
