// Known speakers of a direct upload: each reference clip (a data URL's bytes, src/contract/
// known-speaker-fields.ts) decoded by the same path as an upload's audio (sniffed, then ffmpeg or the
// in-process WAV reader), and made into a voice profile by src/pipeline/reference-clip.ts. The clip
// lives in a spool file only while it is decoded; nothing of it is kept or logged.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { rm } from 'node:fs/promises';
import { DECODED_SAMPLE_RATE, decodeAudio, isAudioError, sniffFile } from '../audio/index.js';
import type { KnownSpeakerReference } from '../contract/known-speaker-fields.js';
import { REFERENCE_MAX_SECONDS, REFERENCE_MIN_SECONDS, referenceProfile, type ReferenceClipStages } from '../pipeline/reference-clip.js';
import type { KnownSpeaker } from '../pipeline/voice-matching.js';
import type { BlobStore } from '../store/blob-store.js';
import { UnusableKnownSpeakerReference } from './application-errors.js';

export interface KnownSpeakerDeps {
  blobs: Pick<BlobStore, 'createUploadPath' | 'createUploadStream'>;
  decodeTimeoutMs: number;
  stages: ReferenceClipStages;
}

/** Decoding may run this far past the limit, so that the length check below says what is wrong (codec padding is a few ms). */
const DECODE_MARGIN_SECONDS = 1;

export async function knownSpeakersOf(references: readonly KnownSpeakerReference[], deps: KnownSpeakerDeps, signal?: AbortSignal): Promise<KnownSpeaker[]> {
  const known: KnownSpeaker[] = [];
  for (const [i, reference] of references.entries()) {
    const field = `known_speaker_references[${i}]`;
    const pcm = await decodeReference(reference.clip, field, deps, signal);
    known.push({ name: reference.name, profile: await referenceProfile(pcm, DECODED_SAMPLE_RATE, field, deps.stages, signal) });
  }
  return known;
}

async function decodeReference(clip: Buffer, field: string, deps: KnownSpeakerDeps, signal?: AbortSignal): Promise<Float32Array> {
  const path = deps.blobs.createUploadPath('reference');
  try {
    await pipeline(Readable.from([clip]), deps.blobs.createUploadStream(path));
    const container = await sniffFile(path);
    if (!container) throw new UnusableKnownSpeakerReference(`${field} is not audio in a supported format (WAV, MP3, M4A/MP4, WebM, OGG, FLAC or AAC)`);
    return await decodeAudio(path, { maxSeconds: REFERENCE_MAX_SECONDS + DECODE_MARGIN_SECONDS, timeoutMs: deps.decodeTimeoutMs, container, signal });
  } catch (error) {
    if (isAudioError(error) && error.code === 'audio_too_long') {
      throw new UnusableKnownSpeakerReference(`${field} must be ${REFERENCE_MIN_SECONDS} to ${REFERENCE_MAX_SECONDS} seconds of audio`);
    }
    if (isAudioError(error) && error.code === 'undecodable_audio') throw new UnusableKnownSpeakerReference(`${field} could not be decoded as audio`);
    throw error;
  } finally {
    await rm(path, { force: true });
  }
}
