// `multichannel` (docs/API.md "Multichannel"): each channel of a recording is its own track, transcribed
// through the same stages as a mono recording (its own speech regions, language and, with diarize, its
// own voices), then merged in time (channel-merge.ts). What is a track, how many a recording may have,
// and the refusal of audio that is not such a recording live here.
import { channelLabel, mergeChannels } from './channel-merge.js';
import { UnprocessableRequest } from './pipeline-errors.js';
import { type PipelineRequest, type RunOptions, runTranscription, type RunTranscriptionDeps, type TranscriptionOutcome } from './run-transcription.js';

/** The channels a multichannel recording has: two (a consultation's two microphones, a call's two ends). */
export const MAX_CHANNELS = 2;

export { channelLabel };

/** Refuses audio whose channel count multichannel cannot serve: the message says why and what to send. */
export function requireMultichannelAudio(channels: number): void {
  if (channels < 2) throw new UnprocessableRequest('multichannel needs audio with 2 channels; this audio is mono: send it without multichannel');
  if (channels > MAX_CHANNELS) {
    throw new UnprocessableRequest(
      `multichannel takes audio with ${MAX_CHANNELS} channels; this audio has ${channels}: mix it down or send it without multichannel`,
    );
  }
}

/**
 * Each channel's PCM transcribed on its own, in turn (one engine call at a time, as a mono request),
 * then merged. Word times are decoded on every channel: the merge needs them to find a word heard on both.
 */
export async function transcribeChannels(
  channels: readonly Float32Array[],
  request: PipelineRequest,
  deps: RunTranscriptionDeps,
  options: Omit<RunOptions, 'regions' | 'onTextDelta'> = {},
): Promise<TranscriptionOutcome> {
  const tracks = [];
  for (const pcm of channels) {
    const outcome = await runTranscription(pcm, { ...request, wordTimestamps: true }, deps, options);
    tracks.push({ pcm, outcome });
  }
  return mergeChannels(tracks, { sampleRate: deps.sampleRate, diarize: request.diarize, words: request.diarize || request.wordTimestamps === true });
}
