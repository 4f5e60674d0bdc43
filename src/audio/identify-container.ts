import { stat } from 'node:fs/promises';
import type { AudioContainer } from './audio-container.js';
import { UndecodableAudioError, UnsupportedContainerError } from './audio-errors.js';
import { sniffFile } from './container-sniffer.js';

/**
 * The container ffmpeg must be told to parse, as a typed failure when there is none. An empty file is
 * undecodable (there is no audio at all) rather than of an unsupported type; a missing file is a
 * server error and its fs error propagates unchanged.
 *
 * @param knownContainer a container the caller already sniffed from these bytes; skips re-reading.
 */
export async function identifyContainer(path: string, knownContainer?: AudioContainer): Promise<AudioContainer> {
  if (knownContainer !== undefined) return knownContainer;
  const { size } = await stat(path);
  if (size === 0) throw new UndecodableAudioError('empty file');
  const container = await sniffFile(path);
  if (container === null) throw new UnsupportedContainerError('no supported container signature in the first bytes');
  return container;
}
