import { stat } from 'node:fs/promises';

import type { AudioContainer } from './audio-container.js';
import { UndecodableAudioError, UnsupportedContainerError } from './audio-errors.js';
import { type AudioInput, audioSourceOf } from './audio-source.js';
import { sniffFile } from './container-sniffer.js';

/**
 * The container ffmpeg must be told to parse, as a typed failure when there is none. An empty file is
 * undecodable (there is no audio at all) rather than of an unsupported type; a missing file is a
 * server error and its fs error propagates unchanged.
 *
 * @param knownContainer a container the caller already sniffed from these bytes; skips re-reading.
 *   Required for a URL source: its bytes are sniffed through the store (sniffWithReader over
 *   BlobStore.readRange), which knows how to read a range without ffmpeg.
 */
export async function identifyContainer(input: AudioInput, knownContainer?: AudioContainer): Promise<AudioContainer> {
  if (knownContainer !== undefined) return knownContainer;
  const source = audioSourceOf(input);
  if (source.kind === 'url') throw new TypeError('a URL audio source needs its container: sniff it with sniffWithReader first');
  const { size } = await stat(source.path);
  if (size === 0) throw new UndecodableAudioError('empty file');
  const container = await sniffFile(source.path);
  if (container === null) throw new UnsupportedContainerError('no supported container signature in the first bytes');
  return container;
}
