import { extname } from 'node:path';

import type { AudioContainer } from './audio-container.js';

/**
 * What clients may *declare* about an upload (its MIME type and file name), mapped to the container
 * it claims to be. These are claims only: the bytes are sniffed separately (`sniffContainer`), and
 * the jobs API uses this mapping to check that a filename agrees with its declared content_type.
 */

const CANONICAL_MIME_TYPES: Readonly<Record<AudioContainer, string>> = {
  wav: 'audio/wav',
  mp3: 'audio/mpeg',
  mp4: 'audio/mp4',
  webm: 'audio/webm',
  ogg: 'audio/ogg',
  flac: 'audio/flac',
  aac: 'audio/aac',
};

// Includes the non-standard spellings browsers, recorders and OS file pickers actually send.
const CONTAINERS_BY_MIME_TYPE: ReadonlyMap<string, AudioContainer> = new Map<string, AudioContainer>([
  ['audio/wav', 'wav'],
  ['audio/x-wav', 'wav'],
  ['audio/wave', 'wav'],
  ['audio/vnd.wave', 'wav'],
  ['audio/x-pn-wav', 'wav'],
  ['audio/mpeg', 'mp3'],
  ['audio/mp3', 'mp3'],
  ['audio/x-mp3', 'mp3'],
  ['audio/mpeg3', 'mp3'],
  ['audio/x-mpeg', 'mp3'],
  ['audio/x-mpeg-3', 'mp3'],
  ['audio/mpga', 'mp3'],
  ['audio/mp4', 'mp4'],
  ['audio/m4a', 'mp4'],
  ['audio/x-m4a', 'mp4'],
  ['video/mp4', 'mp4'],
  ['audio/webm', 'webm'],
  ['video/webm', 'webm'],
  ['audio/x-matroska', 'webm'],
  ['video/x-matroska', 'webm'],
  ['audio/ogg', 'ogg'],
  // RFC 7587's audio/opus is strictly the RTP payload, but clients use it for .opus files (Ogg Opus).
  ['audio/opus', 'ogg'],
  ['audio/vorbis', 'ogg'],
  ['application/ogg', 'ogg'],
  ['video/ogg', 'ogg'],
  ['audio/flac', 'flac'],
  ['audio/x-flac', 'flac'],
  ['audio/aac', 'aac'],
  ['audio/x-aac', 'aac'],
  ['audio/aacp', 'aac'],
]);

const CONTAINERS_BY_EXTENSION: ReadonlyMap<string, AudioContainer> = new Map<string, AudioContainer>([
  ['.wav', 'wav'],
  ['.wave', 'wav'],
  ['.mp3', 'mp3'],
  ['.mpga', 'mp3'],
  ['.mpeg', 'mp3'],
  ['.m4a', 'mp4'],
  ['.mp4', 'mp4'],
  ['.webm', 'webm'],
  ['.weba', 'webm'],
  ['.mka', 'webm'],
  ['.mkv', 'webm'],
  ['.ogg', 'ogg'],
  ['.oga', 'ogg'],
  ['.opus', 'ogg'],
  ['.flac', 'flac'],
  ['.aac', 'aac'],
  ['.adts', 'aac'],
]);

export function mimeTypeForContainer(container: AudioContainer): string {
  return CANONICAL_MIME_TYPES[container];
}

/**
 * The container a declared MIME type stands for, ignoring case and parameters
 * (`audio/webm;codecs=opus` is webm). Null for unknown or generic types such as
 * `application/octet-stream`: the declaration says nothing, and the caller decides.
 */
export function containerForMimeType(mimeType: string): AudioContainer | null {
  const essence = mimeType.split(';', 1)[0].trim().toLowerCase();
  return CONTAINERS_BY_MIME_TYPE.get(essence) ?? null;
}

/** The container a file name's extension stands for (case-insensitive), or null. */
export function containerForFilename(filename: string): AudioContainer | null {
  // Clients on Windows send backslash paths; only the last component's extension counts.
  const basename = filename.split(/[\\/]/).pop() ?? '';
  return CONTAINERS_BY_EXTENSION.get(extname(basename).toLowerCase()) ?? null;
}

/** True when both the file name and the MIME type are known and name the same container. */
export function filenameMatchesMimeType(filename: string, mimeType: string): boolean {
  const byName = containerForFilename(filename);
  return byName !== null && byName === containerForMimeType(mimeType);
}
